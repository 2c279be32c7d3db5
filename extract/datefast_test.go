package extract

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// findDateCounting runs findDate on text and reports whether it called
// slowDate (ruleDate, or go-dateparser with -tags dateparser).
func findDateCounting(text string, ref time.Time) (tr timeRange, ok, slow bool) {
	prev := slowDate
	slowDate = func(text string, toks []token, ref time.Time) (timeRange, bool) {
		slow = true
		return prev(text, toks, ref)
	}
	defer func() { slowDate = prev }()
	tr, ok = findDate(text, tokenize(text), ref)
	return tr, ok, slow
}

// zWord reports whether text holds a word starting with z: go-dateparser
// then finds no date near it ("on 17 November 2021 and Zoe has tickets"),
// where the fixed rules do.
func zWord(text string) bool {
	for _, t := range tokenize(text) {
		if t.key[0] == 'z' {
			return true
		}
	}
	return false
}

// dateCase is a text, its reference and the period findDate must give.
type dateCase struct {
	text       string
	ref        time.Time // zero: ref
	start, end string    // "" when no date
	// fast: resolved by fastDate, without slowDate. Otherwise slowDate
	// must have been asked.
	fast bool
	// own: a date go-dateparser does not give (the fast path is not
	// compared with it).
	own bool
}

var m8 = time.FixedZone("M8", -8*3600)

func TestResolveTimeRange_FixedAbsolute(t *testing.T) {
	tests := []dateCase{
		// <Month> <Year>, <Month>, <Year>, <Month> of <Year>.
		{text: "Alice Kowalski moved to Lisbon in March 2021 to work at Northwind.", start: "2021-03-01", end: "2021-04-01", fast: true},
		{text: "In May 2023 I started a new job", start: "2023-05-01", end: "2023-06-01", fast: true},
		{text: "March, 2021 was hard", start: "2021-03-01", end: "2021-04-01", fast: true},
		{text: "in March of 2021", start: "2021-03-01", end: "2021-04-01", fast: true},
		{text: "Sept 2021", start: "2021-09-01", end: "2021-10-01", fast: true},
		{text: "since December 2022", start: "2022-12-01", end: "2023-01-01", fast: true},
		// <day> <Month> <Year>, <Month> <day>, <Year>, ISO.
		{text: "I met Alice Kowalski at the Northwind office in Lisbon on 12 May 2022.", start: "2022-05-12", end: "2022-05-13", fast: true},
		{text: "on the 12th of May, 2022", start: "2022-05-12", end: "2022-05-13", fast: true},
		{text: "June 5, 2021 was my birthday", start: "2021-06-05", end: "2021-06-06", fast: true},
		{text: "May 5th 2021", start: "2021-05-05", end: "2021-05-06", fast: true},
		{text: "I was there on 8 May, 2023 with my sister", start: "2023-05-08", end: "2023-05-09", fast: true},
		{text: "2022-03-04 was great", start: "2022-03-04", end: "2022-03-05", fast: true},
		{text: "on 2023-5-8", start: "2023-05-08", end: "2023-05-09", fast: true},
		{text: "The festival is on 3 March 2024 and Bob already has tickets.", start: "2024-03-03", end: "2024-03-04", fast: true},
		{text: "on 12 May 2022", ref: time.Date(2023, 5, 8, 20, 0, 0, 0, m8), start: "2022-05-12", end: "2022-05-13", fast: true},
		// <Month> <day>, <day> <Month>: the past unless the text speaks
		// of the future; ref's day is past.
		{text: "May 8th", start: "2023-05-08", end: "2023-05-09", fast: true},
		{text: "on May 9", start: "2022-05-09", end: "2022-05-10", fast: true},
		{text: "I will be there on May 8", start: "2024-05-08", end: "2024-05-09", fast: true},
		{text: "I will be there on 9 May", start: "2023-05-09", end: "2023-05-10", fast: true},
		{text: "on the 5th of June", start: "2022-06-05", end: "2022-06-06", fast: true},
		{text: "We met on Jan 5", start: "2023-01-05", end: "2023-01-06", fast: true},
		{text: "on 29 February", start: "2020-02-29", end: "2020-03-01", fast: true},
		{text: "February 29", ref: time.Date(2024, 2, 29, 10, 0, 0, 0, time.UTC), start: "2024-02-29", end: "2024-03-01", fast: true},
		{text: "I will go on February 29", start: "2024-02-29", end: "2024-03-01", fast: true},
		// in <Month>.
		{text: "In March I ran", start: "2023-03-01", end: "2023-04-01", fast: true},
		{text: "in May we moved", start: "2023-05-01", end: "2023-06-01", fast: true},
		{text: "in June we moved", start: "2022-06-01", end: "2022-07-01", fast: true},
		{text: "I will go to Paris in June", start: "2023-06-01", end: "2023-07-01", fast: true},
		{text: "I will go to Paris in May", start: "2024-05-01", end: "2024-06-01", fast: true},
		{text: "in Sept", start: "2022-09-01", end: "2022-10-01", fast: true},
		{text: "in January", ref: time.Date(2024, 1, 1, 2, 0, 0, 0, time.FixedZone("P5", 5*3600)), start: "2024-01-01", end: "2024-02-01", fast: true},
		// <Year>, in <Year>.
		{text: "in 2022 I adopted a dog", start: "2022-01-01", end: "2023-01-01", fast: true},
		{text: "What did Caroline do in 2023?", start: "2023-01-01", end: "2024-01-01", fast: true},
		{text: "2019 was a great time", start: "2019-01-01", end: "2020-01-01", fast: true},
		{text: "I paid 2000 dollars", start: "2000-01-01", end: "2001-01-01", fast: true},
		// N units ago.
		{text: "two weeks ago I ran a charity race", start: "2023-04-24", end: "2023-05-01", fast: true},
		{text: "2 days ago", start: "2023-05-06", end: "2023-05-07", fast: true},
		{text: "a week ago", start: "2023-05-01", end: "2023-05-08", fast: true},
		{text: "a month ago", start: "2023-04-01", end: "2023-05-01", fast: true},
		{text: "13 months ago", start: "2022-04-01", end: "2022-05-01", fast: true},
		{text: "three years ago I was in Sweden", start: "2020-01-01", end: "2021-01-01", fast: true},
		// on <Weekday>.
		{text: "The meeting was on Friday", start: "2023-05-05", end: "2023-05-06", fast: true},
		{text: "I'm going to Paris on Friday", start: "2023-05-12", end: "2023-05-13", fast: true},
		{text: "on Monday", start: "2023-05-01", end: "2023-05-02", fast: true},
		{text: "I will see him on Monday", start: "2023-05-15", end: "2023-05-16", fast: true},
		{text: "Greta cooked ramen for dinner on Friday evening and it was amazing.", start: "2023-05-05", end: "2023-05-06", fast: true},
		// Decades.
		{text: "music of the 2010s", start: "2010-01-01", end: "2020-01-01", fast: true, own: true},
		{text: "in the 1990's", start: "1990-01-01", end: "2000-01-01", fast: true, own: true},
		{text: "a book from the 1900s", fast: true},
		{text: "in the 2000s", fast: true},
		// go-dateparser drops dates near a word starting with z; the
		// fixed rules do not.
		{text: "The jazz festival in Lisbon is on 17 November 2021 and Zoe already has tickets.", start: "2021-11-17", end: "2021-11-18", fast: true, own: true},

		// No trigger, no date, no go-dateparser.
		{text: "May I help you?", fast: true},
		{text: "We march on", fast: true},
		{text: "we sat down", fast: true},
		{text: "25 people came", fast: true},
		{text: "I may go to the park", fast: true},
		{text: "this may be hard", fast: true},
		{text: "every May we travel", fast: true},
	}
	// slowCases: the forms or contexts fastDate leaves to slowDate.
	tests = append(tests, slowCases...)
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			r := tt.ref
			if r.IsZero() {
				r = ref
			}
			got, ok, slow := findDateCounting(tt.text, r)
			if slow == tt.fast {
				t.Errorf("go-dateparser called: %v, want %v", slow, !tt.fast)
			}
			if tt.start == "" {
				if ok {
					t.Errorf("findDate(%q) = %v, %v; want no date", tt.text, got.start, got.end)
				}
			} else {
				loc := r.Location()
				start, _ := time.ParseInLocation("2006-01-02", tt.start, loc)
				end, _ := time.ParseInLocation("2006-01-02", tt.end, loc)
				if !ok || !got.start.Equal(start) || !got.end.Equal(end) {
					t.Errorf("findDate(%q) = [%v, %v), %v; want [%v, %v)", tt.text, got.start, got.end, ok, start, end)
				}
			}
			if tt.fast && !tt.own && parserDateFunc != nil {
				want, wok := parserDateFunc(tt.text, tokenize(tt.text), r)
				if ok != wok || ok && (!got.start.Equal(want.start) || !got.end.Equal(want.end)) {
					t.Errorf("fixed rules: [%v, %v) %v; go-dateparser: [%v, %v) %v", got.start, got.end, ok, want.start, want.end, wok)
				}
			}
		})
	}
}

// TestNumericDates_SameAsRegexp checks that numericDates, which runs the
// regular expression field by field, finds what it finds on the whole
// text.
func TestNumericDates_SameAsRegexp(t *testing.T) {
	texts := []string{
		"", "2023-05-08", "on 2023-05-08 and 12/05/2023.", "v1.2.3 at 0.0.0.0:10000",
		"a2023-05-08 2023-05-08b 2023-05-08-09", "12/5/23\t08.05.2023\n1.2.2023x",
		"ip 10.1.2.3/24 on 2024/1 and 1/2/3/4/2020", "é2023-05-08 日2023/5 2023-5-8。",
	}
	rng := rand.New(rand.NewPCG(3, 1))
	const alphabet = "0123456789-/. a\n\t:x"
	for range 2000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, text := range texts {
		got, want := numericDates(text), numericDateRE.FindAllStringIndex(text, -1)
		if len(got) != len(want) {
			t.Fatalf("numericDates(%q) = %v, want %v", text, got, want)
		}
		for i := range got {
			if !slices.Equal(got[i], want[i]) {
				t.Fatalf("numericDates(%q) = %v, want %v", text, got, want)
			}
		}
	}
}
