package extract

import (
	"strconv"
	"strings"
	"time"
)

// ruleDate returns the period named by the first date expression of text
// (tokenised as toks) relative to ref, by rules looser than fastDate's:
// findDate's way (slowDate) for the texts whose first date phrase fastDate
// does not resolve, in the default build.
//
// It reads the words in order and the first phrase it resolves wins: a
// deictic one, a decade, a numeric date (numericDate), or, at a trigger
// word, looseDate's forms. Unlike fastDate it does not ask whether
// go-dateparser would read the words around a phrase otherwise: "in
// March 2021 in 3 hours" is March 2021, "on Friday a friend came" the
// last Friday.
func ruleDate(text string, toks []token, ref time.Time) (timeRange, bool) {
	numeric := numericDates(text)
	nextNum := 0
	future := futureTense(toks)
	skip := -1 // toks[:skip+1] belong to a phrase that named no valid date
	for i := range toks {
		if i <= skip {
			continue
		}
		if tr, ok := deictic(toks, i, ref); ok {
			return tr, true
		}
		if tr, ok := decade(toks[i].key, ref.Location()); ok {
			return tr, true
		}
		for nextNum < len(numeric) && numeric[nextNum][0] < toks[i].start {
			nextNum++
		}
		if nextNum < len(numeric) && numeric[nextNum][0] == toks[i].start {
			m := numeric[nextNum]
			if tr, ok := numericDate(text[m[0]:m[1]], ref); ok {
				return tr, true
			}
			continue
		}
		if !isTrigger(toks, i) && toks[i].key != "ago" {
			continue
		}
		if tr, ok := looseDate(toks, i, ref, future); ok {
			return tr, true
		}
		if ph, ok := matchPhrase(toks, i); ok {
			skip = ph.last // "on 31 February 2022" is no date, not 2022
		}
	}
	return timeRange{}, false
}

// looseDate resolves the date phrase around the trigger word toks[i]:
// fastDate's forms in any context, and
//
//   - a month after a preposition ("in late May", "since March"): the
//     month, this year's when it is not after ref's month (next year's
//     when it is not before it, for the future);
//   - a weekday ("Friday was great"): the last one before ref's day, or
//     the first one after it for the future; a weekday before a date
//     ("Monday 12 May 2022") leaves the day to the date;
//   - "N units ago" with any count up to 999 or a number word up to
//     thirty ("twenty days ago");
//   - "in N units" ("in two weeks"): the day, week, month or year that
//     many units after ref.
//
// A year next to another year or a range word ("between 2019 and 2021",
// "2019-2021") or after a currency sign ("$2000") is no date.
func looseDate(toks []token, i int, ref time.Time, future bool) (timeRange, bool) {
	k := toks[i].key
	switch {
	case k == "ago":
		return agoDate(toks, i, ref)
	case unitWords[k]:
		return inUnitsDate(toks, i, ref)
	}
	if _, ok := yearOf(k); ok {
		if yearRange(toks, i) || strings.HasSuffix(toks[i].before, "$") || strings.HasSuffix(toks[i].before, "€") || strings.HasSuffix(toks[i].before, "£") {
			return timeRange{}, false
		}
		if ph, ok := matchPhrase(toks, i); ok {
			return ph.resolve(ref, future)
		}
		return timeRange{}, false
	}
	if wd, ok := weekdayNames[k]; ok {
		if i+1 < len(toks) && (dayOf(toks[i+1].key) > 0 || yearOrMonth(toks[i+1].key)) {
			return timeRange{}, false // "Monday 12 May 2022", "Friday May 5"
		}
		return datePhrase{weekday: wd, isWeekday: true}.resolve(ref, future)
	}
	m, ok := monthOf(k)
	if !ok {
		return timeRange{}, false
	}
	if ph, ok := matchPhrase(toks, i); ok && (ph.day > 0 || ph.year > 0) {
		return ph.resolve(ref, future)
	}
	if !afterPreposition(toks, i) && !(i >= 1 && toks[i-1].key == "in") {
		return timeRange{}, false
	}
	today := dayStart(ref)
	y, cur, _ := today.Date()
	switch {
	case !future && m > cur:
		y--
	case future && m <= cur:
		y++
	}
	s := time.Date(y, m, 1, 0, 0, 0, 0, today.Location())
	return timeRange{s, s.AddDate(0, 1, 0)}, y >= MinYear && y <= MaxYear
}

// yearOrMonth reports whether k names a year or a month.
func yearOrMonth(k string) bool {
	if _, ok := yearOf(k); ok {
		return true
	}
	_, ok := monthOf(k)
	return ok
}

// yearRange reports whether the year toks[i] is one end of a range:
// glued to another number by a dash or slash, or within two words of
// between, from, to or and with another year.
func yearRange(toks []token, i int) bool {
	if b := toks[i].before; i >= 1 && (b == "-" || b == "–" || b == "/") && isDigits(toks[i-1].key) {
		return true
	}
	if i+1 < len(toks) {
		if b := toks[i+1].before; (b == "-" || b == "–") && isDigits(toks[i+1].key) {
			return true
		}
	}
	for k := max(i-3, 0); k < i; k++ {
		if toks[k].key == "between" {
			return true
		}
	}
	return false
}

// countWords are the counts looseDate reads in "N units ago" and "in N
// units".
var countWords = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
	"thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
	"eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
}

// countOf returns the count a word names: a number word of countWords or
// 1–999 in digits.
func countOf(k string) (int, bool) {
	if n, ok := countWords[k]; ok {
		return n, true
	}
	if len(k) > 3 || !isDigits(k) || k[0] == '0' {
		return 0, false
	}
	n, _ := strconv.Atoi(k)
	return n, true
}

// agoDate resolves "N units ago" ending at toks[i].
func agoDate(toks []token, i int, ref time.Time) (timeRange, bool) {
	if i < 2 {
		return timeRange{}, false
	}
	unit, ok := agoUnits[toks[i-1].key]
	if !ok {
		return timeRange{}, false
	}
	n, ok := countOf(toks[i-2].key)
	if !ok {
		return timeRange{}, false
	}
	return datePhrase{ago: n, unit: unit}.resolve(ref, false)
}

// inUnitsDate resolves "in N units" ending at the unit toks[i].
func inUnitsDate(toks []token, i int, ref time.Time) (timeRange, bool) {
	if i < 2 || toks[i-2].key != "in" || i+1 < len(toks) && toks[i+1].key == "ago" {
		return timeRange{}, false // "I moved in two years ago" is ago
	}
	n, ok := countOf(toks[i-1].key)
	if !ok {
		return timeRange{}, false
	}
	today := dayStart(ref)
	y, m, _ := today.Date()
	loc := today.Location()
	var tr timeRange
	switch agoUnits[toks[i].key] {
	case "day":
		s := today.AddDate(0, 0, n)
		tr = timeRange{s, s.AddDate(0, 0, 1)}
	case "week":
		s := weekStart(today.AddDate(0, 0, 7*n))
		tr = timeRange{s, s.AddDate(0, 0, 7)}
	case "month":
		s := time.Date(y, m+time.Month(n), 1, 0, 0, 0, 0, loc)
		tr = timeRange{s, s.AddDate(0, 1, 0)}
	case "year":
		s := time.Date(y+n, time.January, 1, 0, 0, 0, 0, loc)
		tr = timeRange{s, s.AddDate(1, 0, 0)}
	default:
		return timeRange{}, false
	}
	return tr, tr.start.Year() >= MinYear && tr.start.Year() <= MaxYear
}

// numericDate resolves a numeric date as numericDateRE finds it: year
// first (2023-05-08, 2023/5: the day, or the month), month first with
// slashes or dashes as in the United States (12/05/2023 is 5 December;
// 25/12/2023, with no 25th month, 25 December), day first with dots
// (08.05.2023 is 8 May). A two-digit year is 19xx from 70 on, else 20xx.
func numericDate(s string, ref time.Time) (timeRange, bool) {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '/' || r == '.' })
	if len(parts) < 2 || len(parts) > 3 {
		return timeRange{}, false
	}
	n := make([]int, len(parts))
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil {
			return timeRange{}, false
		}
		n[i] = v
	}
	var y, mo, d int
	switch {
	case len(parts[0]) == 4:
		y, mo = n[0], n[1]
		if len(n) == 3 {
			d = n[2]
		}
	case len(n) != 3:
		return timeRange{}, false
	case strings.Contains(s, "."):
		d, mo, y = n[0], n[1], n[2]
	default:
		mo, d, y = n[0], n[1], n[2]
		if mo > 12 && d <= 12 {
			mo, d = d, mo
		}
	}
	if len(parts[len(parts)-1]) == 2 && len(parts[0]) != 4 {
		if y >= 70 {
			y += 1900
		} else {
			y += 2000
		}
	}
	if y < MinYear || y > MaxYear || mo < 1 || mo > 12 {
		return timeRange{}, false
	}
	loc := ref.Location()
	if d == 0 {
		s := time.Date(y, time.Month(mo), 1, 0, 0, 0, 0, loc)
		return timeRange{s, s.AddDate(0, 1, 0)}, true
	}
	if d < 1 || d > daysIn(y, time.Month(mo)) {
		return timeRange{}, false
	}
	start := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, loc)
	return timeRange{start, start.AddDate(0, 0, 1)}, true
}
