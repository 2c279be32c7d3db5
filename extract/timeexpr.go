package extract

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Years outside [MinYear, MaxYear] are never taken for dates: a bare
// number is a date trigger only in this range, and go-dateparser results
// outside it are dropped.
const (
	MinYear = 1900
	MaxYear = 2099
)

// maxDateSearches bounds the go-dateparser calls per text: each costs
// 0.1–1 ms, and a text rarely holds more than one or two date phrases.
const maxDateSearches = 3

// dateWindow is the number of words kept on each side of a trigger word
// in the text handed to go-dateparser: enough for "on the 5th of June,
// 2021" or "three weeks ago", and a short window keeps the parser fast
// and its false positives away. The fixed rules for absolute dates look
// as far around a phrase for words that could change go-dateparser's
// reading of it.
const dateWindow = 6

// ResolveTimeRange finds the first date expression in text and returns the
// period it names, resolved against ref: start is its first instant and
// end the first instant after it (the range is half-open, [start, end)),
// both in ref's location. A zero ref means now. ok is false when text
// names no date.
//
// The period is as precise as the expression: "last year" is the whole
// previous calendar year, "May 2023" the month, "last Saturday" and
// "yesterday" one day, "last week" a Monday-to-Sunday week, "two weeks
// ago" the week that holds the day 14 days before ref. ResolveTimeRange is
// what recall uses on queries ("what did Caroline do last June?"); the
// extractor uses it for each fact's OccurredStart and OccurredEnd.
//
// Deictic phrases are resolved by fixed rules: yesterday, today, tonight,
// tomorrow, "the day before yesterday", and last/past/this/next/coming
// followed by week, weekend, month, year, night, morning, afternoon,
// evening, a season, a weekday or a month. "last" is the most recent one
// strictly before ref's day (or week, month…), "next" the first one
// strictly after, "this" the one in ref's week, month or year. Seasons are
// the meteorological ones of the northern hemisphere. A decade ("the
// 2010s", "the 1990's") is its ten years; "the 1900s" and "the 2000s",
// which may be centuries, are no date.
//
// Absolute dates and the other relative ones are go-dateparser's semantics:
// it prefers past dates unless the text speaks of the future (will, 'll,
// gonna, going to, planning…, or a planned "I'm moving"). Its commonest
// forms are resolved by fixed rules that give what it gives, without
// calling it (0.1–1 ms a call): "March 2021", "12 May 2022", "May 12,
// 2022", "2022-05-12", "May 12th" and "12 May" (the latest such day not
// after ref's, or the first one after it for the future), "in May" (this
// year's when not after ref's month, else last year's; next year's when not
// before it, for the future), "2021" and "in 2021", "on Friday" (the last
// one before ref's day, or the next one for the future), "two weeks ago";
// and only when no number, date word, range word or time of day near the
// phrase may make go-dateparser read it otherwise. One difference is kept:
// go-dateparser finds no date a few words from a word starting with z ("on
// 12 May 2022 and Zoe has tickets"); the fixed rules do. Everything else
// ("June 5 at noon", "12/05/2023", "in two weeks", "the 5th of June" among
// numbers) goes to go-dateparser itself, as the whole text: what it finds
// first wins. To keep it fast and precise, go-dateparser only sees texts
// that hold a trigger word (a month, a weekday, a year MinYear–MaxYear,
// "ago", a numeric date, "in N days"), and only its matches that contain a
// trigger are kept: "I may go", "we sat down" and "she is 25" hold no date.
//
// ResolveTimeRange is safe for concurrent use.
func ResolveTimeRange(text string, ref time.Time) (start, end time.Time, ok bool) {
	if ref.IsZero() {
		ref = time.Now()
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, " ")
	}
	tr, ok := findDate(text, tokenize(text), ref)
	return tr.start, tr.end, ok
}

// timeRange is a half-open period [start, end).
type timeRange struct{ start, end time.Time }

var monthNames = map[string]time.Month{
	"january": time.January, "february": time.February, "march": time.March,
	"april": time.April, "may": time.May, "june": time.June, "july": time.July,
	"august": time.August, "september": time.September, "october": time.October,
	"november": time.November, "december": time.December,
}

// monthAbbrevs are taken for months only next to a number ("Jan 5",
// "5 Aug 2022") or, capitalised, after a preposition ("in Sept").
var monthAbbrevs = map[string]time.Month{
	"jan": time.January, "feb": time.February, "mar": time.March, "apr": time.April,
	"jun": time.June, "jul": time.July, "aug": time.August, "sep": time.September,
	"sept": time.September, "oct": time.October, "nov": time.November, "dec": time.December,
}

var weekdayNames = map[string]time.Weekday{
	"monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
	"sunday": time.Sunday,
}

// seasonStart is the first month of each (meteorological, northern
// hemisphere) season; every season lasts three months.
var seasonStart = map[string]time.Month{
	"spring": time.March, "summer": time.June, "fall": time.September,
	"autumn": time.September, "winter": time.December,
}

// datePrepositions make an ambiguous month word ("may", "march", "jan")
// a month when they precede it.
var datePrepositions = map[string]bool{
	"in": true, "since": true, "until": true, "till": true, "during": true,
	"early": true, "late": true, "mid": true, "of": true, "before": true,
	"after": true, "from": true, "by": true, "through": true, "throughout": true,
	"last": true, "next": true, "this": true, "on": true,
}

var numberWords = map[string]bool{
	"a": true, "an": true, "one": true, "two": true, "three": true, "four": true,
	"five": true, "six": true, "seven": true, "eight": true, "nine": true, "ten": true,
	"eleven": true, "twelve": true, "twenty": true, "thirty": true,
}

var unitWords = map[string]bool{
	"day": true, "days": true, "week": true, "weeks": true, "month": true,
	"months": true, "year": true, "years": true,
}

// numericDateRE finds numeric dates: 2023-05-08, 2023/5, 5/8/2023, 08.05.2023.
var numericDateRE = regexp.MustCompile(`\b(?:(?:19|20)\d\d[-/.]\d{1,2}(?:[-/.]\d{1,2})?|\d{1,2}[-/]\d{1,2}[-/](?:\d\d|(?:19|20)\d\d)|\d{1,2}\.\d{1,2}\.(?:19|20)\d\d)\b`)

// deictic resolves a phrase the fixed rules know starting at toks[i].
func deictic(toks []token, i int, ref time.Time) (timeRange, bool) {
	switch toks[i].key {
	case "yesterday", "today", "tonight", "tomorrow", "day", "last", "past", "this", "next", "coming":
	default:
		return timeRange{}, false // most words: no need to work out the day
	}
	today := dayStart(ref)
	day := func(offset int) timeRange {
		d := today.AddDate(0, 0, offset)
		return timeRange{d, d.AddDate(0, 0, 1)}
	}
	next := func(k int) (token, bool) {
		if k+1 < len(toks) && onlySpace(between(toks, k)) {
			return toks[k+1], true
		}
		return token{}, false
	}
	switch toks[i].key {
	case "yesterday":
		return day(-1), true
	case "today", "tonight":
		return day(0), true
	case "tomorrow":
		return day(1), true
	case "day": // the day before yesterday, the day after tomorrow
		b, ok1 := next(i)
		c, ok2 := next(i + 1)
		if ok1 && ok2 {
			switch {
			case b.key == "before" && c.key == "yesterday":
				return day(-2), true
			case b.key == "after" && c.key == "tomorrow":
				return day(2), true
			}
		}
		return timeRange{}, false
	case "last", "past", "this", "next", "coming":
	default:
		return timeRange{}, false
	}
	mod := toks[i].key
	w, ok := next(i)
	if !ok {
		return timeRange{}, false
	}
	if mod == "this" && (w.key == "past" || w.key == "coming") {
		// "this past weekend", "this coming Friday"
		mod = w.key
		if w, ok = next(i + 1); !ok {
			return timeRange{}, false
		}
	}
	dir := 0 // -1 last/past, 0 this, +1 next/coming
	switch mod {
	case "last", "past":
		dir = -1
	case "next", "coming":
		dir = 1
	}
	ws := weekStart(today)
	y, m, _ := today.Date()
	loc := today.Location()
	switch w.key {
	case "night":
		if mod == "last" {
			return day(-1), true
		}
		if mod == "this" {
			return day(0), true
		}
	case "morning", "afternoon", "evening":
		if mod == "this" {
			return day(0), true
		}
	case "week":
		switch {
		case mod == "past":
			return timeRange{today.AddDate(0, 0, -7), today.AddDate(0, 0, 1)}, true
		default:
			s := ws.AddDate(0, 0, 7*dir)
			return timeRange{s, s.AddDate(0, 0, 7)}, true
		}
	case "weekend":
		sat := ws.AddDate(0, 0, 5)
		switch {
		case dir < 0:
			sat = sat.AddDate(0, 0, -7)
		case mod == "next":
			sat = sat.AddDate(0, 0, 7)
		case mod == "coming" && !today.Before(sat):
			sat = sat.AddDate(0, 0, 7)
		}
		return timeRange{sat, sat.AddDate(0, 0, 2)}, true
	case "month":
		if mod == "past" {
			return timeRange{today.AddDate(0, -1, 0), today.AddDate(0, 0, 1)}, true
		}
		s := time.Date(y, m+time.Month(dir), 1, 0, 0, 0, 0, loc)
		return timeRange{s, s.AddDate(0, 1, 0)}, true
	case "year":
		if mod == "past" {
			return timeRange{today.AddDate(-1, 0, 0), today.AddDate(0, 0, 1)}, true
		}
		s := time.Date(y+dir, time.January, 1, 0, 0, 0, 0, loc)
		return timeRange{s, s.AddDate(1, 0, 0)}, true
	}
	if wd, ok := weekdayNames[w.key]; ok {
		off := int(wd) - int(today.Weekday())
		switch dir {
		case -1: // most recent strictly before today
			if off >= 0 {
				off -= 7
			}
		case 1: // first strictly after today
			if off <= 0 {
				off += 7
			}
		default: // in today's Monday-to-Sunday week
			off = (int(wd)+6)%7 - (int(today.Weekday())+6)%7
		}
		return day(off), true
	}
	if mon, ok := monthNames[w.key]; ok {
		if (w.key == "may" || w.key == "march") && mod == "this" && !isCapitalised(w.text) {
			return timeRange{}, false // "this may be"
		}
		year := y
		switch {
		case dir < 0 && mon >= m:
			year--
		case dir > 0 && mon <= m:
			year++
		}
		s := time.Date(year, mon, 1, 0, 0, 0, 0, loc)
		return timeRange{s, s.AddDate(0, 1, 0)}, true
	}
	if sm, ok := seasonStart[w.key]; ok {
		return season(today, sm, dir), true
	}
	return timeRange{}, false
}

// season returns the season starting in month sm that is the last (dir
// -1), this (0) or next (+1) one relative to the day today.
func season(today time.Time, sm time.Month, dir int) timeRange {
	loc := today.Location()
	y := today.Year()
	at := func(year int) timeRange {
		s := time.Date(year, sm, 1, 0, 0, 0, 0, loc)
		return timeRange{s, s.AddDate(0, 3, 0)}
	}
	switch dir {
	case -1: // the latest one over before today
		for year := y; ; year-- {
			if r := at(year); !r.end.After(today) {
				return r
			}
		}
	case 1: // the first one starting after today
		for year := y - 1; ; year++ {
			if r := at(year); r.start.After(today) {
				return r
			}
		}
	}
	// The one under way, else the one of today's year.
	if r := at(y - 1); !today.Before(r.start) && today.Before(r.end) {
		return r
	}
	return at(y)
}

// Kinds of trigger words, in dateWords.
const (
	wordAgo = iota + 1
	wordWeekday
	wordMonth
	wordVerbMonth // "may", "march": also verbs
	wordMonthAbbrev
	wordUnit
)

// dateWords maps the words isTrigger looks at to their kind, so that the
// common case, a word that is none of them, costs one lookup.
var dateWords = func() map[string]int {
	m := map[string]int{"ago": wordAgo}
	for w := range weekdayNames {
		m[w] = wordWeekday
	}
	for w := range monthNames {
		m[w] = wordMonth
	}
	m["may"], m["march"] = wordVerbMonth, wordVerbMonth
	for w := range monthAbbrevs {
		m[w] = wordMonthAbbrev
	}
	for w := range unitWords {
		m[w] = wordUnit
	}
	return m
}()

// isTrigger reports whether toks[i] makes go-dateparser worth calling.
func isTrigger(toks []token, i int) bool {
	t := toks[i]
	k := t.key
	if len(k) == 4 && isDigits(k) {
		y, _ := strconv.Atoi(k)
		return y >= MinYear && y <= MaxYear
	}
	kind := dateWords[k]
	if kind == 0 {
		return false
	}
	if i >= 1 && (toks[i-1].key == "every" || toks[i-1].key == "each") {
		return false // habits have no date: "every Sunday"
	}
	switch kind {
	case wordAgo: // "two weeks ago", "a month ago"; not "a few years ago"
		return i >= 2 && unitWords[toks[i-1].key] && (numberWords[toks[i-2].key] || isDigits(toks[i-2].key))
	case wordWeekday, wordMonth:
		return true
	case wordVerbMonth: // "in May", "May 5", "since March"; not "I may go", "this may be"
		return nearNumber(toks, i) ||
			afterPreposition(toks, i) && (k == "march" || isCapitalised(t.text) || toks[i-1].key != "this") ||
			isCapitalised(t.text) && !t.initial
	case wordMonthAbbrev: // "Jan 5", "in Sept"
		return nearNumber(toks, i) || isCapitalised(t.text) && afterPreposition(toks, i)
	case wordUnit: // "in 2 weeks", "in three days"
		return i >= 2 && toks[i-2].key == "in" && (numberWords[toks[i-1].key] || isDigits(toks[i-1].key))
	}
	return false
}

// nearNumber reports whether toks[i] is next to a day of the month or a
// year ("May 5", "5th of May", "May 2023").
func nearNumber(toks []token, i int) bool {
	if i+1 < len(toks) && !strings.ContainsAny(between(toks, i), ".!?\n") && dayOrYear(toks[i+1].key) {
		return true
	}
	if i >= 1 && !strings.ContainsAny(between(toks, i-1), ".!?\n") && dayOrYear(toks[i-1].key) {
		return true
	}
	// "the 5th of May"
	return i >= 2 && toks[i-1].key == "of" && dayOrYear(toks[i-2].key)
}

func afterPreposition(toks []token, i int) bool {
	return i >= 1 && onlySpace(between(toks, i-1)) && datePrepositions[toks[i-1].key]
}

// dayOrYear reports whether k is a day of the month (5, 05, 5th, 22nd) or
// a year MinYear–MaxYear.
func dayOrYear(k string) bool {
	digits := strings.TrimRight(k, "stndrh")
	if digits == "" || !isDigits(digits) || len(k)-len(digits) > 2 {
		return false
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return false
	}
	return n >= 1 && n <= 31 || len(digits) == 4 && n >= MinYear && n <= MaxYear
}

// futureTense reports whether the words speak of the future, so that
// go-dateparser prefers a future date for "Friday" or "in June": a future
// auxiliary (will, 'll, gonna, "going to") or plan word, or the present
// progressive of an arrangement ("I'm moving in April", "we're starting
// in June"; see progressiveFuture).
func futureTense(toks []token) bool {
	for i, t := range toks {
		switch t.lower {
		case "will", "gonna", "upcoming", "planning", "plan", "plans", "soon":
			return true
		case "going":
			if i+1 < len(toks) && toks[i+1].key == "to" && i >= 1 && beForms[toks[i-1].lower] {
				return true
			}
		}
		if strings.HasSuffix(t.lower, "'ll") {
			return true
		}
		if progressiveFuture(toks, i) {
			return true
		}
	}
	return false
}

// beForms are the present forms of "be" (with their subject when
// contracted) that make a present progressive.
var beForms = map[string]bool{
	"i'm": true, "im": true, "am": true, "are": true, "we're": true, "you're": true,
	"they're": true, "is": true, "she's": true, "he's": true, "it's": true,
}

// arrangementVerbs are the -ing forms English puts in the present
// progressive to speak of a planned future: "I'm moving in April" is next
// April, never the last one, for the present progressive cannot point
// back in time. Only verbs of arrangements are listed: "it's amazing"
// is an adjective, and "I'm having fun since March" no plan.
var arrangementVerbs = map[string]bool{
	"moving": true, "starting": true, "leaving": true, "flying": true, "traveling": true,
	"travelling": true, "visiting": true, "heading": true, "graduating": true, "relocating": true,
	"retiring": true, "launching": true, "joining": true, "attending": true, "hosting": true,
	"returning": true, "beginning": true,
}

// progressiveAdverbs may stand between the form of "be" and the verb of a
// progressive future: "I'm finally moving", "we're not leaving".
var progressiveAdverbs = map[string]bool{
	"finally": true, "also": true, "actually": true, "officially": true, "probably": true,
	"definitely": true, "really": true, "just": true, "still": true, "not": true,
}

// progressiveFuture reports whether toks[i] is a present form of "be"
// followed by an arrangement verb, with at most one adverb between:
// "I'm moving", "we are finally starting".
func progressiveFuture(toks []token, i int) bool {
	if !beForms[toks[i].lower] {
		return false
	}
	j := i + 1
	if j < len(toks) && progressiveAdverbs[toks[j].key] {
		j++
	}
	return j < len(toks) && arrangementVerbs[toks[j].key]
}

func dayStart(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}

// weekStart returns the Monday of the week of the day d.
func weekStart(d time.Time) time.Time {
	return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
