package memory

import (
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
