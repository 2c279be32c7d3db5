// Package id makes mnemo's row identifiers: short strings of a prefix and
// 26 lower-case base32 characters. Derived ids are deterministic (the same
// parts give the same id), so retaining the same content twice produces
// the same rows and ties between rows break the same way in every run.
package id

import (
	"crypto/sha256"
	"encoding/base32"
)

var enc = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// Derive returns prefix + "_" + the first 128 bits of the SHA-256 of the
// parts (each followed by a NUL byte) in Crockford's lower-case base32.
func Derive(prefix string, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	sum := h.Sum(nil)
	return prefix + "_" + enc.EncodeToString(sum[:16])
}
