package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// paragraphs splits text at blank lines (lines of only white space) and
// returns the trimmed, non-empty paragraphs.
func paragraphs(text string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if p := strings.TrimSpace(cur.String()); p != "" {
			out = append(out, p)
		}
		cur.Reset()
	}
	for line := range strings.Lines(text) {
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		cur.WriteString(line)
	}
	flush()
	return out
}

// noSplitAbbrevs never end a sentence: titles before a name and Latin
// abbreviations in mid-sentence.
var noSplitAbbrevs = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "st": true,
	"mt": true, "vs": true, "e.g": true, "i.e": true, "cf": true, "approx": true,
}

// maybeAbbrevs end a sentence only when the next word is capitalised:
// "at 5 p.m. we left" is one sentence, "at 5 p.m. Then we left" two.
var maybeAbbrevs = map[string]bool{
	"etc": true, "inc": true, "ltd": true, "co": true, "corp": true, "jr": true,
	"sr": true, "a.m": true, "p.m": true, "u.s": true, "u.k": true, "dept": true,
	"est": true, "fig": true, "vol": true, "ave": true, "blvd": true,
}

// sentences splits a paragraph into trimmed sentences. A sentence ends at
// a newline, at a run of the full-width stops 。！？ (and the closing
// brackets and quotes after it), or at a run of . ! ? … followed (after closing quotes and
// brackets) by white space or the end, except after an abbreviation or a
// single initial ("J. K. Rowling"), and except when an ellipsis or a closing
// quote is followed by a lower-case word.
func sentences(p string) []string {
	var out []string
	start := 0
	emit := func(end int) {
		if s := strings.TrimSpace(p[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(p); {
		c := p[i]
		if c == '\n' {
			emit(i)
			i++
			continue
		}
		if n := cjkStop(p[i:]); n > 0 {
			// 。！？ end a sentence where they stand: CJK text puts no
			// space after them. Further stops and closing brackets or
			// quotes stay with it.
			j := i + n
			for j < len(p) {
				if n := cjkStop(p[j:]); n > 0 {
					j += n
				} else if n := cjkCloser(p[j:]); n > 0 {
					j += n
				} else {
					break
				}
			}
			emit(j)
			i = j
			continue
		}
		if c != '.' && c != '!' && c != '?' && !strings.HasPrefix(p[i:], "…") {
			i++
			continue
		}
		// The run of terminators and closers.
		j := i
		onlyDots, ellipsis := true, false
		for j < len(p) {
			switch {
			case p[j] == '.':
				j++
			case p[j] == '!' || p[j] == '?':
				onlyDots = false
				j++
			case strings.HasPrefix(p[j:], "…"):
				ellipsis = true
				j += len("…")
			default:
				goto closers
			}
		}
	closers:
		if j-i >= 2 && onlyDots {
			ellipsis = true
		}
		closed := j
		for j < len(p) && strings.IndexByte("\"')]", p[j]) >= 0 || strings.HasPrefix(p[j:], "”") || strings.HasPrefix(p[j:], "’") {
			if p[j] < utf8.RuneSelf {
				j++
			} else {
				j += 3
			}
		}
		quoted := j > closed
		if j < len(p) && p[j] != ' ' && p[j] != '\t' && p[j] != '\n' && p[j] != '\r' {
			i = j // "3.5", "e.g.", "Yahoo!com"
			continue
		}
		next := nextWord(p[j:])
		if onlyDots && !ellipsis && i == j-1 {
			prev := wordBefore(p[:i])
			lp := strings.ToLower(prev)
			switch {
			case noSplitAbbrevs[lp]:
				i = j
				continue
			case maybeAbbrevs[lp] && !isCapitalised(next):
				i = j
				continue
			case utf8.RuneCountInString(prev) == 1 && isCapitalised(prev) && isCapitalised(next):
				i = j // an initial: "J. K. Rowling"
				continue
			}
		}
		if (ellipsis || quoted) && next != "" && startsLower(next) {
			i = j // "Wait... what?", `she said "Bye!" and left`
			continue
		}
		emit(j)
		i = j
	}
	emit(len(p))
	return out
}

// cjkStop returns the length of the full-width sentence stop (。！？ or
// the half-width ｡) that s starts with, or 0.
func cjkStop(s string) int {
	for _, t := range []string{"。", "！", "？", "｡"} {
		if strings.HasPrefix(s, t) {
			return len(t)
		}
	}
	return 0
}

// cjkCloser returns the length of the closing bracket or quote that s
// starts with (」』）】〉》” ’ " ' ) ]), or 0.
func cjkCloser(s string) int {
	if s != "" && strings.IndexByte("\"')]", s[0]) >= 0 {
		return 1
	}
	for _, t := range []string{"」", "』", "）", "】", "〉", "》", "”", "’"} {
		if strings.HasPrefix(s, t) {
			return len(t)
		}
	}
	return 0
}

// wordBefore returns the word (letters, digits and inner periods, as in
// "e.g" or "U.S") that ends s.
func wordBefore(s string) string {
	i := len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if r == '.' && i-size > 0 {
			if r2, _ := utf8.DecodeLastRuneInString(s[:i-size]); unicode.IsLetter(r2) {
				i -= size
				continue
			}
		}
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		i -= size
	}
	return strings.TrimLeft(s[i:], ".")
}

// nextWord returns the first word after the white space at the start of s.
func nextWord(s string) string {
	s = strings.TrimLeft(s, " \t\r\n\"'“‘(")
	end := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if end < 0 {
		return s
	}
	return s[:end]
}

func startsLower(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r)
}

// hasWord reports whether s holds a letter or a digit.
func hasWord(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}
