//go:build dateparser

package extract

import (
	"slices"
	"strings"
	"sync"
	"time"

	dps "github.com/markusmobius/go-dateparser"
	"github.com/markusmobius/go-dateparser/date"
)

// Built with -tags dateparser, findDate hands the texts its fixed rules
// cannot resolve to go-dateparser (parserDate) instead of the rules of
// ruleDate. go-dateparser builds the data of every language it knows in
// its package init (about 0.3 s and 95 MB per process), so the default
// build does not link it; this build keeps it for comparing the fixed
// rules with it (TestFindDate_MatchesParser).
func init() { slowDate = parserDate }

// parserDate returns the period named by the first date expression of
// text (tokenised as toks) relative to ref, handing the trigger words to
// go-dateparser: findDate's path for what the fixed rules do not know.
func parserDate(text string, toks []token, ref time.Time) (timeRange, bool) {
	// The first phrase the fixed rules resolve.
	var own timeRange
	ownAt := -1
	for i := range toks {
		if tr, ok := deictic(toks, i, ref); ok {
			own, ownAt = tr, toks[i].start
			break
		}
	}
	// Trigger words for go-dateparser before it; the words of the own
	// phrase are not triggers.
	var trig []int // token indexes
	limit := len(text)
	if ownAt >= 0 {
		limit = ownAt
	}
	for i := range toks {
		if toks[i].start >= limit {
			break
		}
		if isTrigger(toks, i) {
			trig = append(trig, i)
		}
	}
	var numeric [][]int
	if strings.ContainsAny(text[:limit], "-/.") && strings.ContainsAny(text[:limit], "0123456789") {
		numeric = numericDateRE.FindAllStringIndex(text[:limit], -1)
	}
	if len(trig) == 0 && len(numeric) == 0 {
		return own, ownAt >= 0
	}
	// Search windows around the triggers, earliest first.
	starts := make([]int, 0, len(trig)+len(numeric))
	for _, i := range trig {
		starts = append(starts, toks[i].start)
	}
	for _, m := range numeric {
		starts = append(starts, m[0])
	}
	future := futureTense(toks)
	searched := 0
	covered := -1 // text[:covered] has been searched
	slices.Sort(starts)
	for _, at := range starts {
		if at < covered {
			continue
		}
		if searched == maxDateSearches {
			break
		}
		searched++
		ws, we := window(text, toks, at)
		covered = we
		tr, ok := searchWindow(text, ws, we, toks, trig, numeric, ref, future, ownAt)
		if ok {
			return tr, true
		}
	}
	return own, ownAt >= 0
}

// window returns the byte range of text around offset at handed to
// go-dateparser: dateWindow words on each side.
func window(text string, toks []token, at int) (int, int) {
	if len(toks) == 0 {
		return 0, len(text)
	}
	k := 0
	for k < len(toks) && toks[k].end <= at {
		k++
	}
	lo, hi := max(k-dateWindow, 0), min(k+dateWindow, len(toks)-1)
	ws, we := toks[lo].start, toks[hi].end
	if at < ws {
		ws = at
	}
	// Take a numeric date's punctuation along.
	for we < len(text) && strings.IndexByte("/-.", text[we]) >= 0 && we+1 < len(text) && text[we+1] >= '0' && text[we+1] <= '9' {
		we++
		for we < len(text) && text[we] >= '0' && text[we] <= '9' {
			we++
		}
	}
	return ws, we
}

// parsers are the go-dateparser parsers in use: a Parser serialises its
// calls with a mutex, so each goroutine borrows its own.
var parsers = sync.Pool{New: func() any { return &dps.Parser{} }}

// searchWindow runs go-dateparser over text[ws:we] and returns the period
// of its first match that holds a trigger (a token of trig, or a numeric
// date) and starts before the phrase the fixed rules resolved (at byte
// ownAt, -1 if none).
func searchWindow(text string, ws, we int, toks []token, trig []int, numeric [][]int, ref time.Time, future bool, ownAt int) (timeRange, bool) {
	results := search(text[ws:we], ref, future)
	cursor := 0
	for _, r := range results {
		if r.Text == "" || r.Date.IsZero() {
			continue
		}
		idx := strings.Index(text[ws+cursor:we], r.Text)
		if idx < 0 {
			continue
		}
		a := ws + cursor + idx
		b := a + len(r.Text)
		cursor += idx + len(r.Text)
		if ownAt >= 0 && a >= ownAt {
			break
		}
		if !holdsTrigger(a, b, toks, trig, numeric) {
			continue
		}
		if tr, ok := period(r.Date, r.Text, ref); ok {
			return tr, true
		}
	}
	return timeRange{}, false
}

func holdsTrigger(a, b int, toks []token, trig []int, numeric [][]int) bool {
	for _, i := range trig {
		if toks[i].start >= a && toks[i].end <= b {
			return true
		}
	}
	for _, m := range numeric {
		if m[0] < b && m[1] > a {
			return true
		}
	}
	return false
}

// search calls go-dateparser, turning its panics into no result.
func search(text string, ref time.Time, future bool) (res []dps.SearchResult) {
	p := parsers.Get().(*dps.Parser)
	defer func() {
		if recover() != nil {
			res = nil
			return // do not reuse a parser that panicked
		}
		parsers.Put(p)
	}()
	cfg := &dps.Configuration{
		Languages:            []string{"en"},
		CurrentTime:          ref,
		PreferredDateSource:  dps.Past,
		PreferredDayOfMonth:  dps.First,
		PreferredMonthOfYear: dps.FirstMonth,
	}
	if future {
		cfg.PreferredDateSource = dps.Future
	}
	_, res, err := p.Search(cfg, text)
	if err != nil {
		return nil
	}
	return res
}

// period turns a go-dateparser date into the period it names, from its
// precision: a year, a month, or a day (a week when the phrase counts
// weeks: "two weeks ago").
func period(d date.Date, phrase string, ref time.Time) (timeRange, bool) {
	t := d.Time.In(ref.Location())
	if t.Year() < MinYear || t.Year() > MaxYear {
		return timeRange{}, false
	}
	loc := ref.Location()
	switch d.Period {
	case date.Year:
		s := time.Date(t.Year(), time.January, 1, 0, 0, 0, 0, loc)
		return timeRange{s, s.AddDate(1, 0, 0)}, true
	case date.Month:
		s := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, loc)
		return timeRange{s, s.AddDate(0, 1, 0)}, true
	case date.Day, date.Hour, date.Minute, date.Second:
		s := dayStart(t)
		if strings.Contains(strings.ToLower(phrase), "week") {
			s = weekStart(s)
			return timeRange{s, s.AddDate(0, 0, 7)}, true
		}
		return timeRange{s, s.AddDate(0, 0, 1)}, true
	}
	return timeRange{}, false
}
