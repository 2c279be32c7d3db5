// Package id makes mnemo's row identifiers: short strings of a prefix and
// 26 lower-case base32 characters. Ids are deterministic (the same parts
// give the same id), so retaining the same content twice produces the
// same rows and ties between rows break the same way in every run; and
// they start with a time, so rows made in time order are inserted at the
// end of the store's indexes instead of all over them. The rows of one
// sequence (a document's facts) are numbered (Nth), so they are also
// inserted in order next to each other: a large document's facts, written
// in several transactions, append to the indexes keyed by fact id instead
// of touching a page per fact in each of them.
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
	b := timed(t, parts)
	return prefix + "_" + enc.EncodeToString(b[:])
}

// Nth returns the id of the n-th row of a sequence: prefix + "_" + 128
// bits, 48 bits of t in milliseconds (as Derive), 48 bits of the SHA-256
// of the parts, then n in 32 bits. The rows of one sequence (the facts of
// one document) share their first 96 bits and sort by n, so a store
// inserts them next to each other, in order, at the end of its indexes.
func Nth(prefix string, t time.Time, n uint32, parts ...string) string {
	b := timed(t, parts)
	binary.BigEndian.PutUint32(b[12:], n)
	return prefix + "_" + enc.EncodeToString(b[:])
}

// timed returns 48 bits of t in milliseconds since the epoch, then the
// first 80 bits of the SHA-256 of the parts, each followed by a NUL byte.
func timed(t time.Time, parts []string) [16]byte {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(t.UnixMilli())<<16)
	copy(b[6:], h.Sum(nil)[:10])
	return b
}
