package memory

import (
	"fmt"
	"strings"
	"time"
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
	b.WriteString("- ")
	if t := f.EventTime(); !t.IsZero() {
		fmt.Fprintf(&b, "[%s] ", t.Format("2006-01-02"))
	}
	if f.Speaker != "" {
		b.WriteString(f.Speaker)
		b.WriteString(": ")
	}
	b.WriteString(oneLine(f.Text))
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
// trims them at both ends. Text that needs no folding (most of it: ASCII
// words with single spaces between them) comes back as it is, without a
// copy: recall renders every fact it returns.
func oneLine(s string) string {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ':
			if i == 0 || i == len(s)-1 || s[i+1] == ' ' {
				return strings.Join(strings.Fields(s), " ")
			}
		case c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c >= utf8.RuneSelf:
			// Other spaces, and non-ASCII text that may hold Unicode ones.
			return strings.Join(strings.Fields(s), " ")
		}
	}
	return s
}
