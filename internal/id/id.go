// Package id makes mnemo's row identifiers: short, random, and sortable by
// creation time, so ids created later sort later.
package id

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"time"
)

var enc = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// New returns prefix + "_" + 26 characters: 48 bits of milliseconds since
// the epoch, then 80 random bits (a ULID in Crockford's lower-case
// base32). It is safe for concurrent use.
func New(prefix string, now time.Time) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixMilli())<<16)
	if _, err := rand.Read(b[6:]); err != nil {
		panic("id: crypto/rand failed: " + err.Error()) // never happens on supported platforms
	}
	return prefix + "_" + enc.EncodeToString(b[:])
}
