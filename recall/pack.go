package recall

import (
	"fmt"
	"strings"

	"github.com/mnemo-ai/mnemo/memory"
)

// CountTokens estimates the tokens of s as one token per four bytes of
// UTF-8, rounded up: the rule of thumb of BPE tokenizers on English text.
// It needs no vocabulary, is the same on every platform and errs on the
// side of more tokens for non-Latin scripts.
func CountTokens(s string) int {
	return (len(s) + 3) / 4
}

// contextHeader starts every packed context.
const contextHeader = "Relevant memories (most relevant first):\n"

// Pack formats results as a context for a system prompt, one line per
// fact with its date and speaker, best first, stopping before the line
// that would exceed budget tokens. It returns the context and its token
// count; with no result or no room it returns "" and 0.
func Pack(results []memory.Result, budget int) (string, int) {
	if len(results) == 0 || budget <= 0 {
		return "", 0
	}
	var b strings.Builder
	b.WriteString(contextHeader)
	used := CountTokens(contextHeader)
	n := 0
	for _, r := range results {
		line := FormatFact(r.Fact) + "\n"
		for _, old := range r.Previously {
			line += "  " + FormatPrevious(old) + "\n"
		}
		t := CountTokens(line)
		if used+t > budget {
			break
		}
		b.WriteString(line)
		used += t
		n++
	}
	if n == 0 {
		return "", 0
	}
	return b.String(), CountTokens(b.String())
}

// FormatFact renders one fact as a context line:
// "- [2023-05-08] Caroline: I went to a support group."
func FormatFact(f *memory.Fact) string {
	var b strings.Builder
	b.WriteString("- ")
	if t := f.EventTime(); !t.IsZero() {
		fmt.Fprintf(&b, "[%s] ", t.Format("2006-01-02"))
	}
	if f.Speaker != "" {
		b.WriteString(f.Speaker)
		b.WriteString(": ")
	}
	b.WriteString(strings.Join(strings.Fields(f.Text), " "))
	return b.String()
}

// FormatPrevious renders a fact a result superseded, as a history line
// under it: "previously: Tom loves Nike shoes (changed 2024-05-15)". The
// date is when it stopped being true (ValidTo), else when mnemo learned
// that (ExpiredAt).
func FormatPrevious(f *memory.Fact) string {
	var b strings.Builder
	b.WriteString("previously: ")
	if f.Speaker != "" {
		b.WriteString(f.Speaker)
		b.WriteString(": ")
	}
	b.WriteString(strings.Join(strings.Fields(f.Text), " "))
	changed := f.ValidTo
	if changed.IsZero() {
		changed = f.ExpiredAt
	}
	if !changed.IsZero() {
		fmt.Fprintf(&b, " (changed %s)", changed.Format("2006-01-02"))
	}
	return b.String()
}
