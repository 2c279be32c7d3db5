package memory

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ShortTermMark ends the line of a short-term fact (FormatFact): a
// reader, or a model given the context, sees that it is a memory with a
// time to live.
const ShortTermMark = "(short-term)"

// FormatFact renders one fact as a context line:
// "- [2023-05-08] Caroline: I went to a support group." The date is the
// fact's EventTime; whitespace runs (newlines included) fold to single
// spaces; a short-term fact's line ends with " " + ShortTermMark.
// Adapters and recall's context packing share it.
func FormatFact(f *Fact) string {
	var b strings.Builder
	b.Grow(len("- [2006-01-02] ") + len(f.Speaker) + 2 + len(f.Text) + 1 + len(ShortTermMark))
	b.WriteString("- ")
	if t := f.EventTime(); !t.IsZero() {
		var day [len("2006-01-02")]byte
		b.WriteByte('[')
		b.Write(t.AppendFormat(day[:0], "2006-01-02"))
		b.WriteString("] ")
	}
	if f.Speaker != "" {
		b.WriteString(f.Speaker)
		b.WriteString(": ")
	}
	writeOneLine(&b, f.Text)
	if f.ShortTerm() {
		b.WriteString(" " + ShortTermMark)
	}
	return b.String()
}

// FormatPrevious renders a fact a result superseded, as a history line
// under it: "previously: Tom loves Nike shoes (changed 2024-05-15)". The
// date is [Fact.ChangedAt]; without one the line has no date.
func FormatPrevious(f *Fact) string {
	var b strings.Builder
	b.WriteString("previously: ")
	if f.Speaker != "" {
		b.WriteString(f.Speaker)
		b.WriteString(": ")
	}
	b.WriteString(oneLine(f.Text))
	if changed := f.ChangedAt(); !changed.IsZero() {
		fmt.Fprintf(&b, " (changed %s)", changed.Format("2006-01-02"))
	}
	return b.String()
}

// ChangedAt is when a superseded fact stopped being true (ValidTo), else
// when mnemo learned it did (ExpiredAt); zero for a fact that neither
// says.
func (f *Fact) ChangedAt() time.Time {
	if !f.ValidTo.IsZero() {
		return f.ValidTo
	}
	return f.ExpiredAt
}

// oneLine folds whitespace runs (newlines included) to single spaces and
// trims them at both ends, as strings.Join(strings.Fields(s), " ") does.
// Text that needs no folding (most of it: ASCII words with single spaces
// between them) comes back as it is, without a copy: recall renders every
// fact it returns.
func oneLine(s string) string {
	if plainLine(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	writeOneLine(&b, s)
	return b.String()
}

// plainLine reports whether oneLine(s) is s: ASCII with no whitespace
// but single spaces between other bytes.
func plainLine(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ':
			if i == 0 || i == len(s)-1 || s[i+1] == ' ' {
				return false
			}
		case c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c >= utf8.RuneSelf:
			// Other spaces, and non-ASCII text that may hold Unicode ones.
			return false
		}
	}
	return true
}

// writeOneLine writes oneLine(s) to b without a copy of its own: the
// runs of unicode.IsSpace between words become one space, and bytes that
// are not UTF-8 are written as they are (strings.Fields keeps them in
// its words).
func writeOneLine(b *strings.Builder, s string) {
	if plainLine(s) {
		b.WriteString(s)
		return
	}
	space, words := false, false
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		if unicode.IsSpace(r) {
			space = true
		} else {
			if space && words {
				b.WriteByte(' ')
			}
			b.WriteString(s[i : i+n])
			space, words = false, true
		}
		i += n
	}
}
