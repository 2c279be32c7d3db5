package extract

import (
	"strconv"
	"strings"
	"time"
)

// findDate returns the period named by the first date expression of text
// (tokenised as toks) relative to ref.
//
// It reads the words in order, and the first phrase the fixed rules
// resolve wins: a deictic one (deictic), a decade ("the 2010s"), or, at a
// trigger word (isTrigger, or the start of a numeric date), one of the
// common absolute forms (fastDate). At the first trigger word the fixed
// rules cannot resolve, it hands the text to slowDate: ruleDate, the
// looser rules of the default build, or go-dateparser in a build with
// -tags dateparser (parserDate). A text reaches slowDate only when its
// first date phrase is none of the forms the fixed rules know.
func findDate(text string, toks []token, ref time.Time) (timeRange, bool) {
	numeric := numericDates(text)
	nextNum := 0
	future, futureKnown := false, false
	for i := range toks {
		if tr, ok := deictic(toks, i, ref); ok {
			return tr, true
		}
		if tr, ok := decade(toks[i].key, ref.Location()); ok {
			return tr, true
		}
		// A numeric date starts at a digit, so inside a word: this one
		// when it has not started in an earlier one.
		numStart := false
		for nextNum < len(numeric) && numeric[nextNum][0] < toks[i].end {
			numStart = true
			nextNum++
		}
		if !numStart && !isTrigger(toks, i) {
			continue
		}
		if !futureKnown {
			future, futureKnown = futureTense(toks), true
		}
		if tr, ok := fastDate(toks, i, ref, future); ok {
			return tr, true
		}
		return slowDate(text, toks, ref)
	}
	return timeRange{}, false
}

// slowDate is findDate's way for the texts fastDate cannot resolve:
// ruleDate, or go-dateparser (parserDate) in a build with -tags
// dateparser. Tests replace it to see which texts reach it.
var slowDate = ruleDate

// numericDates returns the byte ranges of the numeric dates of text
// (numericDateRE), as numericDateRE.FindAllStringIndex(text, -1) does. The
// regular expression runs only on the white-space separated fields where a
// separator stands between two digits: a match is digits and separators,
// so it never spans white space, and white space is no word character, so
// \b finds the same boundaries at a field's ends as in the whole text. A
// long text with a few dates (or version numbers) costs one scan.
func numericDates(text string) [][]int {
	var out [][]int
	for i := 1; i+1 < len(text); i++ {
		if c := text[i]; (c == '-' || c == '/' || c == '.') && isDigit(text[i-1]) && isDigit(text[i+1]) {
			start := strings.LastIndexAny(text[:i], " \t\n\r\f\v") + 1
			end := len(text)
			if e := strings.IndexAny(text[i:], " \t\n\r\f\v"); e >= 0 {
				end = i + e
			}
			for _, m := range numericDateRE.FindAllStringIndex(text[start:end], -1) {
				out = append(out, []int{start + m[0], start + m[1]})
			}
			i = end
		}
	}
	return out
}

// decade resolves a decade written "2010s" (or "2010's"): the ten years
// from 2010. "the 1900s" and "the 2000s" may be centuries: they are no
// date.
func decade(key string, loc *time.Location) (timeRange, bool) {
	if len(key) != 5 || key[4] != 's' || key[3] != '0' || key[2] == '0' || !isDigits(key[:4]) {
		return timeRange{}, false
	}
	y, _ := strconv.Atoi(key[:4])
	if y < MinYear || y+9 > MaxYear {
		return timeRange{}, false
	}
	s := time.Date(y, time.January, 1, 0, 0, 0, 0, loc)
	return timeRange{s, s.AddDate(10, 0, 0)}, true
}

// datePhrase is an absolute (or "N units ago") date phrase found by
// matchPhrase: the tokens first..last, and the parts it names.
type datePhrase struct {
	first, last int
	year        int        // 0 when not named
	month       time.Month // 0 when not named
	day         int        // 0 when not named
	ago         int        // "two weeks ago": 2, with unit "week"
	unit        string     // day, week, month or year; "" unless ago
	weekday     time.Weekday
	isWeekday   bool // "on Friday"
}

// fastDate resolves by fixed rules the date phrase holding the trigger
// word toks[i], when it is one of the common forms whose meaning
// go-dateparser is known to agree with:
//
//   - "March 2021", "March, 2021", "March of 2021": the month;
//   - "12 May 2022", "12th of May, 2022", "May 12, 2022", "May 12th 2022",
//     "2022-05-12": the day;
//   - "May 12", "12th of May", "12 May" without a year: the day in the
//     latest year where it is not after ref's day, or, when the text speaks
//     of the future, the first year where it is after it;
//   - "in May": the month, this year's when it is not after ref's month
//     (next year's when it is not before it, for the future);
//   - "2021", "in 2021": the year;
//   - "two days ago", "a week ago", "3 months ago", "one year ago": the
//     day, week (Monday to Sunday), month or year that many units before
//     ref;
//   - "on Friday", "on Friday evening": the last Friday before ref's day,
//     or the first one after it when the text speaks of the future;
//
// month names may be abbreviated ("Sept 2021", "Jan 5"). ok is false for
// anything else, and when the words around the phrase could change what
// go-dateparser makes of it (quietContext): the caller then asks
// go-dateparser.
func fastDate(toks []token, i int, ref time.Time, future bool) (timeRange, bool) {
	ph, ok := matchPhrase(toks, i)
	if !ok || !quietContext(toks, ph) {
		return timeRange{}, false
	}
	if ph.ago > 0 {
		// "I moved in two years ago", "in the 2 months ago": go-dateparser
		// reads "in two years", "in 2 months".
		for k := ph.first - 1; k >= 0 && onlySpace(toks[k+1].before); k-- {
			if toks[k].key == "in" {
				return timeRange{}, false
			}
			if !joinWords[toks[k].key] {
				break
			}
		}
	}
	return ph.resolve(ref, future)
}

// matchPhrase finds the date phrase around the trigger word toks[i].
func matchPhrase(toks []token, i int) (datePhrase, bool) {
	k := toks[i].key
	if k == "ago" {
		return matchAgo(toks, i)
	}
	if y, ok := yearOf(k); ok {
		ph := datePhrase{first: i, last: i, year: y}
		if i+1 >= len(toks) || len(toks[i+1].before) != 1 || !strings.Contains("-/.", toks[i+1].before) || !isDigit(toks[i+1].key[0]) {
			return ph, true
		}
		// 2022-05-12; other numeric forms are go-dateparser's.
		if i+2 < len(toks) && toks[i+1].before == "-" && toks[i+2].before == "-" {
			m, okm := smallNumber(toks[i+1].key, 12)
			d, okd := smallNumber(toks[i+2].key, 31)
			if okm && okd {
				ph.last, ph.month, ph.day = i+2, time.Month(m), d
				return ph, true
			}
		}
		return datePhrase{}, false
	}
	if wd, ok := weekdayNames[k]; ok {
		// "on Friday", "on Friday evening"
		if i < 1 || toks[i-1].key != "on" || !onlySpace(toks[i].before) {
			return datePhrase{}, false
		}
		ph := datePhrase{first: i - 1, last: i, weekday: wd, isWeekday: true}
		if i+1 < len(toks) && onlySpace(toks[i+1].before) && partsOfDay[toks[i+1].key] {
			ph.last = i + 1
		}
		return ph, true
	}
	m, ok := monthOf(k)
	if !ok {
		return datePhrase{}, false
	}
	ph := datePhrase{first: i, last: i, month: m}
	// The day before the month: "12 May", "12th of May".
	switch {
	case i >= 1 && onlySpace(toks[i].before) && dayOf(toks[i-1].key) > 0:
		ph.first, ph.day = i-1, dayOf(toks[i-1].key)
	case i >= 2 && toks[i-1].key == "of" && onlySpace(toks[i].before) && onlySpace(toks[i-1].before) && dayOf(toks[i-2].key) > 0:
		ph.first, ph.day = i-2, dayOf(toks[i-2].key)
	}
	// Or after it: "May 12", "May 12th".
	if ph.day == 0 && i+1 < len(toks) && onlySpace(toks[i+1].before) {
		if d := dayOf(toks[i+1].key); d > 0 {
			ph.last, ph.day = i+1, d
		}
	}
	// Then the year: "May 2021", "May, 2021", "May of 2021", "May 12, 2021".
	if j := ph.last + 1; j < len(toks) {
		if y, ok := yearOf(toks[j].key); ok && commaSpace(toks[j].before) {
			ph.last, ph.year = j, y
		} else if ph.day == 0 && toks[j].key == "of" && onlySpace(toks[j].before) && j+1 < len(toks) && onlySpace(toks[j+1].before) {
			if y, ok := yearOf(toks[j+1].key); ok {
				ph.last, ph.year = j+1, y
			}
		}
	}
	if ph.day == 0 && ph.year == 0 {
		// A month alone only in "in May".
		if i < 1 || toks[i-1].key != "in" || !onlySpace(toks[i].before) {
			return datePhrase{}, false
		}
		ph.first = i - 1
	}
	return ph, true
}

// partsOfDay may follow a weekday: "on Friday evening" is the Friday.
var partsOfDay = map[string]bool{
	"morning": true, "afternoon": true, "evening": true, "night": true,
}

// agoCounts are the counts go-dateparser reads in "N units ago" (it does
// not know "twenty days ago").
var agoCounts = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}

// agoUnits are the units of "N units ago", singular.
var agoUnits = map[string]string{
	"day": "day", "days": "day", "week": "week", "weeks": "week",
	"month": "month", "months": "month", "year": "year", "years": "year",
}

// matchAgo matches "two weeks ago" ending at toks[i].
func matchAgo(toks []token, i int) (datePhrase, bool) {
	if i < 2 || !onlySpace(toks[i].before) || !onlySpace(toks[i-1].before) {
		return datePhrase{}, false
	}
	unit, ok := agoUnits[toks[i-1].key]
	if !ok {
		return datePhrase{}, false
	}
	n, ok := agoCounts[toks[i-2].key]
	if !ok {
		k := toks[i-2].key
		if len(k) > 3 || !isDigits(k) || k[0] == '0' {
			return datePhrase{}, false
		}
		n, _ = strconv.Atoi(k)
	}
	if n > 1 && unit == toks[i-1].key {
		return datePhrase{}, false // "2 year ago we went" is no date to go-dateparser
	}
	return datePhrase{first: i - 2, last: i, ago: n, unit: unit}, true
}

// resolve returns the period ph names relative to ref; ok is false when
// it names no valid day or falls outside [MinYear, MaxYear].
func (ph datePhrase) resolve(ref time.Time, future bool) (timeRange, bool) {
	today := dayStart(ref)
	loc := today.Location()
	y, m, _ := today.Date()
	var tr timeRange
	switch {
	case ph.isWeekday:
		// Strictly before today, or strictly after it for the future.
		off := int(ph.weekday) - int(today.Weekday())
		if future {
			if off <= 0 {
				off += 7
			}
		} else if off >= 0 {
			off -= 7
		}
		s := today.AddDate(0, 0, off)
		tr = timeRange{s, s.AddDate(0, 0, 1)}
	case ph.ago > 0:
		switch ph.unit {
		case "day":
			s := today.AddDate(0, 0, -ph.ago)
			tr = timeRange{s, s.AddDate(0, 0, 1)}
		case "week":
			s := weekStart(today.AddDate(0, 0, -7*ph.ago))
			tr = timeRange{s, s.AddDate(0, 0, 7)}
		case "month":
			s := time.Date(y, m-time.Month(ph.ago), 1, 0, 0, 0, 0, loc)
			tr = timeRange{s, s.AddDate(0, 1, 0)}
		case "year":
			s := time.Date(y-ph.ago, time.January, 1, 0, 0, 0, 0, loc)
			tr = timeRange{s, s.AddDate(1, 0, 0)}
		}
	case ph.day > 0:
		year := ph.year
		if year == 0 {
			// The latest such day not after today, or the first after it.
			var ok bool
			if year, ok = nearestYear(today, ph.month, ph.day, future); !ok {
				return timeRange{}, false
			}
		}
		if ph.day > daysIn(year, ph.month) {
			return timeRange{}, false
		}
		s := time.Date(year, ph.month, ph.day, 0, 0, 0, 0, loc)
		tr = timeRange{s, s.AddDate(0, 0, 1)}
	case ph.month > 0:
		year := ph.year
		if year == 0 {
			if ph.month == time.February && today.Day() >= 29 {
				// go-dateparser tries ref's day in February: from 30
				// January 2024 or 29 August 2022, "in February" is
				// February 2020.
				return timeRange{}, false
			}
			year = y
			switch {
			case !future && ph.month > m:
				year--
			case future && ph.month <= m:
				year++
			}
		}
		s := time.Date(year, ph.month, 1, 0, 0, 0, 0, loc)
		tr = timeRange{s, s.AddDate(0, 1, 0)}
	default:
		s := time.Date(ph.year, time.January, 1, 0, 0, 0, 0, loc)
		tr = timeRange{s, s.AddDate(1, 0, 0)}
	}
	if tr.start.Year() < MinYear || tr.start.Year() > MaxYear {
		return timeRange{}, false
	}
	return tr, true
}

// nearestYear returns the year of the latest day month/day not after
// today, or, for the future, of the first one after it. Days that no year
// has (April 31) have none.
func nearestYear(today time.Time, month time.Month, day int, future bool) (int, bool) {
	if day > daysIn(2000, month) { // 2000 is a leap year
		return 0, false
	}
	y, step := today.Year(), -1
	if future {
		step = 1
	}
	for n := 0; n < 9; n, y = n+1, y+step { // 29 February recurs within 8 years
		if day > daysIn(y, month) {
			continue
		}
		d := time.Date(y, month, day, 0, 0, 0, 0, today.Location())
		if future == d.After(today) {
			return y, true
		}
	}
	return 0, false
}

// daysIn returns the number of days of month in year.
func daysIn(year int, month time.Month) int {
	return time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// quietContext reports whether the words around the phrase ph cannot
// change what go-dateparser makes of it, which holds when
//
//   - it is not glued to other numbers or punctuation ("3-May",
//     "2019-2021", "$2000", "May 5:30");
//   - no word next to it joins it to something else ("a 13 Jul" is the
//     1st, "Sep of 2011" a year, "2000 hours" a time), and no number word
//     stands next to it or past joining words (and, the, of…): "on Friday
//     a friend came" is January; nor, for a weekday or "N units ago", a
//     weekday abbreviation: "on Monday we went" is no date;
//   - no number, date word, deictic word or range word stands within
//     dateWindow words of it: go-dateparser reads "2 in 2020" as February,
//     "in 2002 in 3 hours" as today, "before we left in 2021" as no date
//     (a race time ending the sentence after "in <Month> <Year>" is
//     harmless: see raceTime);
//   - when the phrase leaves the year to ref, no time of day stands near
//     it either: on 3 March at 00:00, "In March at noon" is last year's.
func quietContext(toks []token, ph datePhrase) bool {
	p, q := ph.first, ph.last
	dayish := ph.isWeekday || ph.ago > 0
	if p > 0 {
		gap := toks[p].before
		if gap == "" {
			return false
		}
		switch c := gap[len(gap)-1]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '(' || c == '"':
		case strings.HasSuffix(gap, "“"):
		default:
			return false
		}
		prev := toks[p-1].key
		if stickyWords[prev] {
			return false
		}
		// "in in 2009", "in In May", "in and in 2020": a stutter
		// go-dateparser trips on.
		if prev == "in" || toks[p].key == "in" {
			start := p - 1
			if toks[p].key != "in" {
				start = p - 2
			}
			for k := start; k >= max(start-2, 0) && joinWords[toks[k].key]; k-- {
				if toks[k].key == "in" {
					return false
				}
			}
		}
		// "a from 12 of December" is the 1st.
		for k := p - 1; k >= max(p-3, 0); k-- {
			if key := toks[k].key; numberWords[key] || dayish && dayAbbrevs[key] {
				return false
			} else if !joinWords[key] {
				break
			}
		}
	}
	if q+1 < len(toks) {
		gap, next := toks[q+1].before, toks[q+1].key
		if gap == "" || strings.ContainsAny(gap[:1], "-/:'") || strings.HasPrefix(gap, "’") {
			return false
		}
		if stickyWords[next] {
			return false
		}
		// "on Friday a friend came" is January, "on Saturday and we went"
		// no date: go-dateparser reads a, one, two… as numbers, and we,
		// sat, sun… as weekdays, next to the phrase or past a joining
		// word.
		for k := q + 1; k < min(q+4, len(toks)); k++ {
			if key := toks[k].key; numberWords[key] || dayish && dayAbbrevs[key] {
				return false
			} else if !joinWords[key] {
				break
			}
		}
	}
	inferred := ph.year == 0
	skip := q // the phrase, and a race time after it
	if ph.month > 0 && ph.year > 0 && ph.day == 0 && q == p+1 && onlySpace(toks[q].before) && p > 0 && toks[p-1].key == "in" {
		skip = max(q, raceTime(toks, q+1))
	}
	for k := max(p-dateWindow, 0); k < min(q+1+dateWindow, len(toks)); k++ {
		if k == p {
			k = skip
			continue
		}
		key := toks[k].key
		if hasDigit(key) || dateWords[key] != 0 || deicticWords[key] || rangeWords[key] || inferred && timeWords[key] {
			return false
		}
	}
	return true
}

// raceTime returns the last token of "in 4 hours" or "in 3 hours 25
// minutes" starting at toks[i] and ending a sentence, or -1. Right after
// "in <Month> <Year>" go-dateparser keeps it apart ("ran the Lisbon
// marathon in March 2021 in 3 hours 25 minutes." is March 2021); after
// other forms ("March, 2021", "12 May 2022", "in 2021", "the July 2007")
// or before more words it does not.
func raceTime(toks []token, i int) int {
	if i+2 >= len(toks) || toks[i].key != "in" || !onlySpace(toks[i].before) {
		return -1
	}
	end := -1
	for k := i + 1; k+1 < len(toks) && k <= i+3; k += 2 {
		if !onlySpace(toks[k].before) || !onlySpace(toks[k+1].before) || len(toks[k].key) > 2 || !isDigits(toks[k].key) {
			break
		}
		unit := toks[k+1].key
		if k == i+1 && (unit == "hour" || unit == "hours") || k == i+3 && (unit == "minute" || unit == "minutes") {
			end = k + 1
		} else {
			break
		}
	}
	if end < 0 || end+1 < len(toks) && !strings.ContainsAny(toks[end+1].before, ".!?") {
		return -1
	}
	return end
}

// stickyWords, next to a date phrase, may make go-dateparser read it
// otherwise.
var stickyWords = map[string]bool{
	"a": true, "an": true, "of": true, "by": true, "early": true, "late": true,
	"mid": true, "st": true, "nd": true, "rd": true, "th": true,
	"hour": true, "hours": true, "minute": true, "minutes": true,
	"second": true, "seconds": true, "am": true, "pm": true, "noon": true,
	"midnight": true, "oclock": true, "morning": true, "afternoon": true,
	"evening": true, "night": true, "mo": true, "mos": true, "wk": true,
	"wks": true, "yr": true, "yrs": true, "hr": true, "hrs": true, "min": true,
	"mins": true, "sec": true, "secs": true,
}

// joinWords let go-dateparser read the words on either side of them
// together.
var joinWords = map[string]bool{
	"from": true, "on": true, "by": true, "of": true, "in": true, "the": true,
	"at": true, "since": true, "and": true, "or": true, "about": true, "around": true,
}

// dayAbbrevs are what go-dateparser may take for a weekday: "on Monday
// we went" holds two days, so no date.
var dayAbbrevs = map[string]bool{
	"mo": true, "tu": true, "we": true, "th": true, "fr": true, "sa": true, "su": true,
	"mon": true, "tue": true, "tues": true, "wed": true, "thu": true, "thur": true,
	"thurs": true, "fri": true, "sat": true, "sun": true,
}

// rangeWords make go-dateparser drop a date phrase a few words away:
// "before we left in 2021" is no date.
var rangeWords = map[string]bool{
	"before": true, "after": true, "until": true, "till": true, "between": true,
	"within": true,
}

// timeWords name a time of day, which go-dateparser compares with ref's
// when it picks the year.
var timeWords = map[string]bool{
	"hour": true, "hours": true, "minute": true, "minutes": true,
	"second": true, "seconds": true, "am": true, "pm": true, "noon": true,
	"midnight": true, "morning": true, "afternoon": true, "evening": true,
	"night": true, "tonight": true, "oclock": true,
}

// deicticWords start or make the phrases deictic resolves.
var deicticWords = map[string]bool{
	"last": true, "next": true, "this": true, "past": true, "coming": true,
	"yesterday": true, "today": true, "tonight": true, "tomorrow": true,
}

// yearOf returns the year a 4-digit word names, in [MinYear, MaxYear].
func yearOf(k string) (int, bool) {
	if len(k) != 4 || !isDigits(k) {
		return 0, false
	}
	y, _ := strconv.Atoi(k)
	return y, y >= MinYear && y <= MaxYear
}

// monthOf returns the month a word names, abbreviations included.
func monthOf(k string) (time.Month, bool) {
	if m, ok := monthNames[k]; ok {
		return m, true
	}
	m, ok := monthAbbrevs[k]
	return m, ok
}

// dayOf returns the day of the month a word names (5, 05, 5th, 22nd), or
// 0.
func dayOf(k string) int {
	digits := k
	if n := len(k); n >= 3 && !isDigit(k[n-1]) {
		digits = k[:n-2]
		if !isDigits(digits) {
			return 0
		}
		d, _ := strconv.Atoi(digits)
		if d < 1 || d > 31 || k[n-2:] != ordinalSuffix(d) {
			return 0
		}
		return d
	}
	d, ok := smallNumber(digits, 31)
	if !ok {
		return 0
	}
	return d
}

// ordinalSuffix returns the English ordinal suffix of n: st, nd, rd, th.
func ordinalSuffix(n int) string {
	if n%100 >= 11 && n%100 <= 13 {
		return "th"
	}
	switch n % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}

// smallNumber returns the number of one or two digits k, when in [1, max].
func smallNumber(k string, max int) (int, bool) {
	if len(k) == 0 || len(k) > 2 || !isDigits(k) {
		return 0, false
	}
	n, _ := strconv.Atoi(k)
	return n, n >= 1 && n <= max
}

// commaSpace reports whether gap is spaces, optionally after a comma.
func commaSpace(gap string) bool {
	return onlySpace(strings.TrimPrefix(gap, ","))
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			return true
		}
	}
	return false
}
