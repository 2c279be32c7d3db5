package httpapi

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/mnemo-ai/mnemo/memory"
)

func TestUTF8Reader(t *testing.T) {
	for _, c := range []struct {
		name, in string
		ok       bool
	}{
		{"ASCII", "hello\n", true},
		{"multibyte", "Zoë in Kraków 🌍\n", true},
		{"invalid byte", "Zo\xff\n", false},
		{"truncated at the end", "Kraków \xf0\x9f", false},
		{"overlong", "\xc0\xaf", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			// One byte per read: every character is split across reads.
			got, err := io.ReadAll(&utf8Reader{r: iotest.OneByteReader(strings.NewReader(c.in))})
			if c.ok {
				if err != nil || string(got) != c.in {
					t.Errorf("got %q, %v; want %q", got, err, c.in)
				}
				return
			}
			if memory.ErrorCode(err) != memory.EINVALID {
				t.Errorf("err = %v, want EINVALID", err)
			}
		})
	}
}
