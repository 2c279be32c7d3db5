package extract

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one word of a text as the extractor sees it: a maximal run of
// letters and digits, with apostrophes between two of them kept inside
// ("Mel's", "don’t"). Everything else, invalid UTF-8 included, separates.
type token struct {
	text       string // as written
	lower      string // lower-cased, ’ folded to '
	key        string // lower-cased, apostrophes dropped (as lex.Words)
	start, end int    // byte offsets in the tokenised text
	before     string // the separator text before the word
	// initial is true for the first word of a sentence: the first word of
	// the text, or one after . ! ? … a newline or an opening quote.
	initial bool
	// code is true for a word inside Markdown code (a fenced block or an
	// inline `span`), label for one in a Markdown heading or in the bold
	// label that opens a line ("1. **Obtain Certificates**:"); see
	// markMarkdown.
	code, label bool
}

// titles are abbreviations whose period does not end a sentence and that
// announce a person's name.
var titles = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "miss": true, "dr": true, "prof": true,
}

// tokenize splits s into tokens. It never panics on invalid UTF-8.
func tokenize(s string) []token {
	toks := make([]token, 0, len(s)/5+1)
	start := -1
	hasUpper, hasApos, ascii := false, false, true
	emit := func(end int) {
		if start < 0 {
			return
		}
		t := token{text: s[start:end], start: start, end: end}
		switch {
		case ascii && !hasUpper && !hasApos:
			t.lower, t.key = t.text, t.text
		default:
			t.lower = strings.ToLower(t.text)
			if hasApos {
				t.lower = strings.ReplaceAll(t.lower, "’", "'")
				t.key = strings.ReplaceAll(t.lower, "'", "")
			} else {
				t.key = t.lower
			}
		}
		if len(toks) == 0 {
			t.before, t.initial = s[:start], true
		} else {
			prev := &toks[len(toks)-1]
			t.before = s[prev.end:start]
			t.initial = sentenceGap(t.before, prev.lower)
		}
		toks = append(toks, t)
		start, hasUpper, hasApos, ascii = -1, false, false, true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
				if start < 0 {
					start = i
				}
			case 'A' <= c && c <= 'Z':
				if start < 0 {
					start = i
				}
				hasUpper = true
			case c == '\'' && start >= 0 && i+1 < len(s) && wordStart(s[i+1:]):
				hasApos = true
			default:
				emit(i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			emit(i)
		case r == '’' && start >= 0 && i+size < len(s) && wordStart(s[i+size:]):
			hasApos, ascii = true, false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if start < 0 {
				start = i
			}
			ascii = false
			if unicode.IsUpper(r) || unicode.IsTitle(r) {
				hasUpper = true
			}
		default:
			emit(i)
		}
		i += size
	}
	emit(len(s))
	return toks
}

// sentenceGap reports whether the separator gap between a word (whose
// lower-cased text is prev) and the next one ends a sentence.
func sentenceGap(gap, prev string) bool {
	if strings.HasPrefix(gap, ".") && (titles[prev] || utf8.RuneCountInString(prev) == 1 && !isDigits(prev)) {
		return false // "Dr. Lee", "J. K. Rowling"
	}
	return strings.ContainsAny(gap, ".!?\n\"“…")
}

// wordStart reports whether s begins with a letter or digit.
func wordStart(s string) bool {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && size <= 1 {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// onlySpace reports whether gap is made of spaces and tabs only (so two
// words separated by it belong to one phrase).
func onlySpace(gap string) bool {
	if gap == "" {
		return false
	}
	for i := 0; i < len(gap); i++ {
		if gap[i] != ' ' && gap[i] != '\t' {
			return false
		}
	}
	return true
}

// between returns the separator text between toks[k] and toks[k+1].
func between(toks []token, k int) string { return toks[k+1].before }

// isCapitalised reports whether s starts with an upper-case letter.
func isCapitalised(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) || unicode.IsTitle(r)
}

// markMarkdown marks the tokens of s (tokenize's) that stand in Markdown
// code or labels. Code is a fenced block (a line opening with ``` or ~~~,
// up to the line that closes it, or the end) or an inline `span` on one
// line. A label is a heading (a line opening with one to six # and a
// space), a table row (a line opening with |), a [bracketed] span (a
// placeholder such as "[Your Name]", or a link's text) or a bold **span**
// (or __span__) that opens a line, after an optional list marker ("- ",
// "* ", "1. "). Text with none of ` # * _ ~ | [ costs one scan.
func markMarkdown(s string, toks []token) {
	if len(toks) == 0 || !strings.ContainsAny(s, "`#*_~|[") {
		return
	}
	mark := func(start, end int, code bool) {
		k, _ := slices.BinarySearchFunc(toks, start, func(t token, at int) int { return cmp.Compare(t.end, at+1) })
		for i := k; i < len(toks) && toks[i].start < end; i++ {
			if code {
				toks[i].code = true
			} else {
				toks[i].label = true
			}
		}
	}
	fence := ""
	for off := 0; off < len(s); {
		end := strings.IndexByte(s[off:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += off
		}
		line := s[off:end]
		body := strings.TrimLeft(line, " \t")
		switch {
		case fence != "":
			mark(off, end, true)
			if strings.HasPrefix(body, fence) {
				fence = ""
			}
		case strings.HasPrefix(body, "```") || strings.HasPrefix(body, "~~~"):
			fence = body[:3]
			mark(off, end, true)
		default:
			lineMarks(line, off, mark)
		}
		off = end + 1
	}
}

// lineMarks marks the inline code spans, heading and opening bold label
// of one line outside a fence; off is the line's offset in its text.
func lineMarks(line string, off int, mark func(start, end int, code bool)) {
	body := strings.TrimLeft(line, " \t")
	at := off + len(line) - len(body)
	if h := len(body) - len(strings.TrimLeft(body, "#")); h >= 1 && h <= 6 && strings.HasPrefix(body[h:], " ") || strings.HasPrefix(body, "|") {
		// A heading, or a table row.
		mark(at, off+len(line), false)
	} else {
		rest := body
		if m := listMarker(rest); m > 0 {
			rest = rest[m:]
			at += m
		}
		for _, b := range []string{"**", "__"} {
			if strings.HasPrefix(rest, b) {
				if e := strings.Index(rest[2:], b); e > 0 {
					mark(at, at+2+e, false)
				}
				break
			}
		}
	}
	// Placeholders and link texts: "[Your Name]", "[Flask docs](…)".
	spans(line, '[', ']', func(a, b int) { mark(off+a, off+b, false) })
	// Inline code: pairs of backticks.
	spans(line, '`', '`', func(a, b int) { mark(off+a, off+b, true) })
}

// spans calls fn with the offsets of each open…close pair of line, in
// order, pairs not nested: "[a] [b]" gives (0, 2) and (4, 6).
func spans(line string, open, close byte, fn func(a, b int)) {
	for i := 0; ; {
		a := strings.IndexByte(line[i:], open)
		if a < 0 {
			return
		}
		a += i
		b := strings.IndexByte(line[a+1:], close)
		if b < 0 {
			return
		}
		b += a + 1
		fn(a, b)
		i = b + 1
	}
}

// listMarker returns the length of the list marker that s opens with
// ("- ", "* ", "+ ", "12. ", "3) "), or 0.
func listMarker(s string) int {
	if len(s) >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && s[1] == ' ' {
		return 2
	}
	i := 0
	for i < len(s) && i < 3 && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && s[i+1] == ' ' {
		return i + 2
	}
	return 0
}
