package extract

import (
	"sync"
	"testing"
	"time"
)

// ref is Monday 8 May 2023, 13:56 UTC (LoCoMo conv-26 session 1).
var ref = time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestResolveTimeRange(t *testing.T) {
	tests := []struct {
		text       string
		start, end string // "" when no date
	}{
		// Fixed rules.
		{"I went to the LGBTQ support group last Saturday", "2023-05-06", "2023-05-07"},
		{"I went there yesterday", "2023-05-07", "2023-05-08"},
		{"today was awesome", "2023-05-08", "2023-05-09"},
		{"see you tomorrow at 5pm", "2023-05-09", "2023-05-10"},
		{"the day before yesterday", "2023-05-06", "2023-05-07"},
		{"last night was fun", "2023-05-07", "2023-05-08"},
		{"I painted that lake sunrise last year!", "2022-01-01", "2023-01-01"},
		{"this year was hard", "2023-01-01", "2024-01-01"},
		{"last week we went camping", "2023-05-01", "2023-05-08"},
		{"next week", "2023-05-15", "2023-05-22"},
		{"in the past week", "2023-05-01", "2023-05-09"},
		{"last weekend we camped", "2023-05-06", "2023-05-08"},
		{"this weekend I'm painting", "2023-05-13", "2023-05-15"},
		{"this past weekend", "2023-05-06", "2023-05-08"},
		{"last month was hard", "2023-04-01", "2023-05-01"},
		{"next month I'm going to Paris", "2023-06-01", "2023-07-01"},
		{"what did Caroline do last June?", "2022-06-01", "2022-07-01"},
		{"last May", "2022-05-01", "2022-06-01"},
		{"next May", "2024-05-01", "2024-06-01"},
		{"This May was hot", "2023-05-01", "2023-06-01"},
		{"next Friday", "2023-05-12", "2023-05-13"},
		{"this Friday", "2023-05-12", "2023-05-13"},
		{"last Monday", "2023-05-01", "2023-05-02"},
		{"last summer we went to the beach", "2022-06-01", "2022-09-01"},
		{"this summer", "2023-06-01", "2023-09-01"},
		{"this winter", "2023-12-01", "2024-03-01"},
		// go-dateparser.
		{"In May 2023 I started a new job", "2023-05-01", "2023-06-01"},
		{"May 2023", "2023-05-01", "2023-06-01"},
		{"two weeks ago I ran a charity race", "2023-04-24", "2023-05-01"},
		{"2 days ago", "2023-05-06", "2023-05-07"},
		{"three years ago I was in Sweden", "2020-01-01", "2021-01-01"},
		{"in 2022 I adopted a dog", "2022-01-01", "2023-01-01"},
		{"What did Caroline do in 2023?", "2023-01-01", "2024-01-01"},
		{"June 5, 2021 was my birthday", "2021-06-05", "2021-06-06"},
		{"on the 5th of June", "2022-06-05", "2022-06-06"},
		{"We met on Jan 5", "2023-01-05", "2023-01-06"},
		{"In March I ran", "2023-03-01", "2023-04-01"},
		{"I'm going on a trip on 12/05/2023", "2023-12-05", "2023-12-06"},
		{"2022-03-04 was a day", "2022-03-04", "2022-03-05"},
		{"The meeting was on Friday", "2023-05-05", "2023-05-06"},
		{"I'm going to Paris on Friday", "2023-05-12", "2023-05-13"},
		{"I will go to Paris in June", "2023-06-01", "2023-07-01"},
		{"in two weeks we leave", "2023-05-22", "2023-05-29"},
		{"I was there on 8 May, 2023 and again last Friday", "2023-05-08", "2023-05-09"},
		// No date.
		{"I may go to the park", "", ""},
		{"this may be hard", "", ""},
		{"she is 25", "", ""},
		{"I have 3 kids and 2 dogs", "", ""},
		{"we sat down and had a march through the fields", "", ""},
		{"We march on", "", ""},
		{"a few years ago I was in Sweden", "", ""},
		{"We go to the beach every Sunday", "", ""},
		{"each May we travel", "", ""},
		{"We spent 1500 dollars", "", ""},
		{"version 3.5.1 is out", "", ""},
		{"the score was 3-2", "", ""},
		{"Hey Mel! Good to see you!", "", ""},
		{"", "", ""},
		{"\xff\xfe last \xff", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			start, end, ok := ResolveTimeRange(tt.text, ref)
			if tt.start == "" {
				if ok {
					t.Errorf("ResolveTimeRange(%q) = %v, %v, true; want no date", tt.text, start, end)
				}
				return
			}
			if !ok {
				t.Fatalf("ResolveTimeRange(%q) found no date, want %s..%s", tt.text, tt.start, tt.end)
			}
			if got, want := start, day(tt.start); !got.Equal(want) {
				t.Errorf("start = %v, want %v", got, want)
			}
			if got, want := end, day(tt.end); !got.Equal(want) {
				t.Errorf("end = %v, want %v", got, want)
			}
		})
	}
}

// TestResolveTimeRange_ProgressiveFuture checks that a bare month or day
// resolves forward when the present progressive speaks of a plan, and
// backward in the past tense or the plain present.
func TestResolveTimeRange_ProgressiveFuture(t *testing.T) {
	ref := time.Date(2024, 3, 4, 10, 0, 0, 0, time.UTC) // a Monday
	tests := []struct {
		text       string
		start, end string
	}{
		{"I'm moving in April.", "2024-04-01", "2024-05-01"},
		{"I’m moving in April.", "2024-04-01", "2024-05-01"},
		{"I am moving to Lisbon in April", "2024-04-01", "2024-05-01"},
		{"We're starting the new project in June", "2024-06-01", "2024-07-01"},
		{"I'm starting at Northwind in April", "2024-04-01", "2024-05-01"},
		{"we're going to Rome in May", "2024-05-01", "2024-06-01"},
		{"She's finally leaving in February", "2025-02-01", "2025-03-01"},
		{"They are not moving in April after all", "2024-04-01", "2024-05-01"},
		{"I'm flying to Berlin on Friday", "2024-03-08", "2024-03-09"},
		{"I'm visiting my parents on 12 May", "2024-05-12", "2024-05-13"},
		// The past and the plain present stay backward.
		{"I moved in April.", "2023-04-01", "2023-05-01"},
		{"I was moving in April", "2023-04-01", "2023-05-01"},
		{"We started the project in June", "2023-06-01", "2023-07-01"},
		{"It's amazing what happened in April", "2023-04-01", "2023-05-01"},
		{"I'm happy we met in April", "2023-04-01", "2023-05-01"},
		{"I'm reading the book I bought on Friday", "2024-03-01", "2024-03-02"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			start, end, ok := ResolveTimeRange(tt.text, ref)
			if !ok {
				t.Fatalf("ResolveTimeRange(%q) found no date, want %s..%s", tt.text, tt.start, tt.end)
			}
			if !start.Equal(day(tt.start)) || !end.Equal(day(tt.end)) {
				t.Errorf("ResolveTimeRange(%q) = %v..%v, want %s..%s", tt.text, start, end, tt.start, tt.end)
			}
		})
	}
}

func TestResolveTimeRange_Reference(t *testing.T) {
	est := time.FixedZone("EST", -5*3600)
	tests := []struct {
		name       string
		text       string
		ref        time.Time
		start, end time.Time
	}{
		{"Location", "yesterday", time.Date(2023, 5, 8, 2, 0, 0, 0, est),
			time.Date(2023, 5, 7, 0, 0, 0, 0, est), time.Date(2023, 5, 8, 0, 0, 0, 0, est)},
		{"LastSaturdayOnSaturday", "last Saturday", time.Date(2023, 5, 6, 12, 0, 0, 0, time.UTC),
			day("2023-04-29"), day("2023-04-30")},
		{"LastWeekendOnSunday", "last weekend", time.Date(2023, 5, 7, 12, 0, 0, 0, time.UTC),
			day("2023-04-29"), day("2023-05-01")},
		{"LastSummerInSummer", "last summer", time.Date(2023, 7, 15, 12, 0, 0, 0, time.UTC),
			day("2022-06-01"), day("2022-09-01")},
		{"LastSummerInSeptember", "last summer", time.Date(2023, 9, 2, 12, 0, 0, 0, time.UTC),
			day("2023-06-01"), day("2023-09-01")},
		{"ThisWinterInJanuary", "this winter", time.Date(2023, 1, 10, 12, 0, 0, 0, time.UTC),
			day("2022-12-01"), day("2023-03-01")},
		{"NextWinterInJanuary", "next winter", time.Date(2023, 1, 10, 12, 0, 0, 0, time.UTC),
			day("2023-12-01"), day("2024-03-01")},
		{"LastDecemberInJanuary", "last December", time.Date(2023, 1, 10, 12, 0, 0, 0, time.UTC),
			day("2022-12-01"), day("2023-01-01")},
		{"NextMonthInDecember", "next month", time.Date(2023, 12, 10, 12, 0, 0, 0, time.UTC),
			day("2024-01-01"), day("2024-02-01")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start, end, ok := ResolveTimeRange(tt.text, tt.ref)
			if !ok || !start.Equal(tt.start) || !end.Equal(tt.end) {
				t.Errorf("ResolveTimeRange(%q, %v) = %v, %v, %v; want %v, %v, true", tt.text, tt.ref, start, end, ok, tt.start, tt.end)
			}
			if ok && start.Location() != tt.ref.Location() {
				t.Errorf("start is in %v, want %v", start.Location(), tt.ref.Location())
			}
		})
	}
	t.Run("ZeroRef", func(t *testing.T) {
		start, _, ok := ResolveTimeRange("yesterday", time.Time{})
		if want := dayStart(time.Now()).AddDate(0, 0, -1); !ok || !start.Equal(want) {
			t.Errorf("ResolveTimeRange(yesterday, zero) = %v, %v; want %v", start, ok, want)
		}
	})
}

func TestResolveTimeRange_Concurrent(t *testing.T) {
	texts := []string{"in 2022 I adopted a dog", "June 5, 2021 was my birthday", "two weeks ago", "last Saturday"}
	want := make([]time.Time, len(texts))
	for i, s := range texts {
		want[i], _, _ = ResolveTimeRange(s, ref)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				k := (i + g) % len(texts)
				if got, _, _ := ResolveTimeRange(texts[k], ref); !got.Equal(want[k]) {
					t.Errorf("concurrent ResolveTimeRange(%q) = %v, want %v", texts[k], got, want[k])
					return
				}
			}
		}()
	}
	wg.Wait()
}

func FuzzResolveTimeRange(f *testing.F) {
	for _, s := range []string{"last Saturday", "May 2023", "12/05/2023", "in two weeks", "the day before", "last", "\xffmay 5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		start, end, ok := ResolveTimeRange(s, ref)
		if ok && !start.Before(end) {
			t.Fatalf("ResolveTimeRange(%q) = [%v, %v): empty range", s, start, end)
		}
	})
}

func BenchmarkResolveTimeRange(b *testing.B) {
	for _, bb := range []struct{ name, text string }{
		{"NoDate", "I'm keen on counseling or working in mental health to support those with similar issues."},
		{"Rule", "I went to a LGBTQ support group last Saturday and it was so powerful."},
		{"Parser", "I adopted my dog in 2022 and she has been great ever since."},
		{"ParserNoise", "I may go to the park with the kids if the weather is nice, we sat there in March."},
	} {
		b.Run(bb.name, func(b *testing.B) {
			for b.Loop() {
				ResolveTimeRange(bb.text, ref)
			}
		})
	}
}
