package httpapi

import (
	"io"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/memory"
)

// utf8Reader passes a stream through and fails with EINVALID at the first
// byte that is not valid UTF-8 (for bodies too big to check whole, as an
// import's). A character split between two reads is checked once whole.
type utf8Reader struct {
	r    io.Reader
	tail []byte // the last read's incomplete character, at most 3 bytes
	off  int64  // bytes checked so far
}

// Read implements io.Reader.
func (u *utf8Reader) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	buf := append(u.tail, p[:n]...)
	cut := len(buf)
	if err == nil {
		// Keep back an incomplete character at the end: the next read
		// may complete it.
		for i := len(buf) - 1; i >= 0 && i >= len(buf)-utf8.UTFMax+1; i-- {
			if utf8.RuneStart(buf[i]) {
				if !utf8.FullRune(buf[i:]) {
					cut = i
				}
				break
			}
		}
	}
	if !utf8.Valid(buf[:cut]) {
		return 0, memory.Errorf(memory.EINVALID, "the body is not valid UTF-8 (near byte %d)", u.off)
	}
	u.off += int64(cut)
	u.tail = append(u.tail[:0:0], buf[cut:]...)
	if err == io.EOF && len(u.tail) > 0 {
		return 0, memory.Errorf(memory.EINVALID, "the body ends inside a UTF-8 character")
	}
	return n, err
}
