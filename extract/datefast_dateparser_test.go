//go:build dateparser

package extract

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/bench"
)

// parserDateFunc is go-dateparser, which the fast path must agree with.
var parserDateFunc = parserDate

// slowCases are what go-dateparser makes of the forms or contexts
// fastDate leaves to it.
var slowCases = []dateCase{
	{text: "in May the one I love", start: "2023-05-01", end: "2023-05-02"},
	{text: "between 2019 and 2021"},
	{text: "2019-2021"},
	{text: "I paid $2000", start: "2000-01-01", end: "2001-01-01"},
	{text: "In March at noon", ref: time.Date(2023, 3, 3, 0, 0, 0, 0, time.UTC), start: "2022-03-01", end: "2022-04-01"},
	{text: "Alice ran the Lisbon marathon in March 2021 in 3 hours 5 minutes.", start: "2021-03-01", end: "2021-04-01", fast: true},
	{text: "Alice ran the Lisbon marathon in March 2021 in 4 hours! Then we ate.", start: "2021-03-01", end: "2021-04-01", fast: true},
	{text: "Alice ran the Lisbon marathon in March of 2021 in 3 hours 5 minutes."},
	{text: "Alice ran the Lisbon marathon in March 2021 in 3 hours and it was hard."},
	{text: "Alice ran the Lisbon marathon on 12 May 2022 in 3 hours 5 minutes."},
	{text: "Alice ran the Lisbon marathon in 2019 in 3 hours 5 minutes.", start: "2023-05-08", end: "2023-05-09"},
	{text: "I'm going on a trip on 12/05/2023", start: "2023-12-05", end: "2023-12-06"},
	{text: "Monday 12 May 2022", start: "2022-05-12", end: "2022-05-13"},
	{text: "on 31 February 2022"},
	{text: "in February", ref: time.Date(2024, 1, 30, 16, 0, 0, 0, time.UTC), start: "2020-02-01", end: "2020-03-01"},
	{text: "in late May", start: "2023-05-01", end: "2023-06-01"},
	{text: "twenty days ago"},
	{text: "I moved in two years ago", start: "2025-01-01", end: "2026-01-01"},
	{text: "on Monday we went"},
	{text: "on Friday a friend came", start: "2023-01-01", end: "2023-02-01"},
	{text: "before in 2021 we left"},
	{text: "I was there on 8 May, 2023 and again last Friday", start: "2023-05-08", end: "2023-05-09"},
	{text: "in 2 weeks we leave", start: "2023-05-22", end: "2023-05-29"},
}

// TestFindDate_MatchesParser checks that the fixed rules give what
// go-dateparser gives, on generated synthetic chat messages and on date
// phrases in assorted contexts, for assorted references.
func TestFindDate_MatchesParser(t *testing.T) {
	if testing.Short() {
		t.Skip("go-dateparser is slow")
	}
	type sample struct {
		text string
		ref  time.Time
	}
	var samples []sample
	for _, r := range bench.GenerateSynthetic(3000, 7) {
		for _, m := range r.Messages {
			samples = append(samples, sample{m.Text, m.Time})
		}
	}
	refs := []time.Time{
		ref,
		time.Date(2023, 5, 8, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 1, 1, 2, 0, 0, 0, time.FixedZone("P5", 5*3600)),
		time.Date(2023, 12, 31, 20, 0, 0, 0, time.FixedZone("M8", -8*3600)),
		time.Date(2024, 2, 29, 23, 0, 0, 0, time.UTC),
		time.Date(2021, 3, 31, 12, 0, 0, 0, time.UTC),
	}
	phrases := []string{
		"March 2021", "may, 2022", "Dec of 2019", "12 May 2022", "the 3rd of June, 2021", "Oct 7 2020",
		"August 31st, 2022", "2022-11-30", "2021-2-3", "May 8", "8 May", "the 31st of December", "Feb 29",
		"in May", "in December", "in January", "In Sept", "in 2021", "2019", "two weeks ago", "a month ago",
		"11 months ago", "one year ago", "3 days ago", "on Friday", "on Monday morning", "on Sunday night",
		"the 2010s",
	}
	contexts := []string{
		"%s", "I moved to Lisbon %s.", "We met %s and it was great!", "She started at Northwind %s to work with Bob.",
		"I will visit Paris %s.", "We're going to Rome %s", "Did you see it %s?", "Oh, %s, really?",
		"The fair is on %s and Ana has tickets.", "my sister and I, %s, went hiking in the Alps",
		"%s I think", "honestly %s was the best", "(%s)", "\"%s\"", "It was %s, I guess", "around %s",
	}
	for _, c := range contexts {
		for _, p := range phrases {
			for _, r := range refs {
				samples = append(samples, sample{fmt.Sprintf(c, p), r})
			}
		}
	}
	fast, diverged := 0, 0
	for _, s := range samples {
		got, ok, slow := findDateCounting(s.text, s.ref)
		if slow {
			continue // go-dateparser's own answer
		}
		fast++
		want, wok := parserDate(s.text, tokenize(s.text), s.ref)
		if ok == wok && (!ok || got.start.Equal(want.start) && got.end.Equal(want.end)) {
			continue
		}
		if ok && !wok && (zWord(s.text) || strings.Contains(s.text, "0s")) {
			diverged++ // a decade, or go-dateparser tripping on a z-word
			continue
		}
		t.Errorf("%q at %v: fixed rules [%v, %v) %v; go-dateparser [%v, %v) %v",
			s.text, s.ref, got.start, got.end, ok, want.start, want.end, wok)
	}
	t.Logf("%d samples, %d resolved by the fixed rules (%d where go-dateparser finds no date)", len(samples), fast, diverged)
}
