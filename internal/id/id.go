// Package id makes mnemo's row identifiers: short strings of a prefix and
// 26 lower-case base32 characters. Ids are deterministic (the same parts
// give the same id), so retaining the same content twice produces the
// same rows and ties between rows break the same way in every run; and
// they start with a time, so rows made in time order are inserted at the
// end of the store's indexes instead of all over them.
package id

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"time"
)

var enc = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// Derive returns prefix + "_" + 128 bits in Crockford's lower-case
// base32: 48 bits of t in milliseconds since the epoch (as a ULID), then
// 80 bits of the SHA-256 of the parts (each followed by a NUL byte).
func Derive(prefix string, t time.Time, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(t.UnixMilli())<<16)
	copy(b[6:], h.Sum(nil)[:10])
	return prefix + "_" + enc.EncodeToString(b[:])
}
