package memory

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestOneLine checks the fast path of oneLine against the rule it
// shortcuts: whitespace runs folded to one space, trimmed at both ends.
func TestOneLine(t *testing.T) {
	for _, s := range []string{
		"", " ", "a", "a b", "a  b", " a", "a ", "a\nb", "a\tb", "a\r\nb", "a \n b",
		"plain words with single spaces", "naïve café", "a\u00a0b", "a\u2003b", "x\u0085y", "\v", "end.\f",
	} {
		if got, want := oneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestOneLine_Random compares oneLine with the rule on random strings of
// words, ASCII and Unicode spaces, and bytes that are not UTF-8.
func TestOneLine_Random(t *testing.T) {
	pieces := []string{"a", "word", " ", "  ", "\n", "\t", "\r\n", "\u00a0", "\u2003", "\u0085", "é", "東京", "\xff", "\xe2\x80", "\ufffd", ".", "'"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(10) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := oneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("oneLine(%q) = %q, want %q", s, got, want)
		}
	}
}
