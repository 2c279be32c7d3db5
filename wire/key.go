package wire

import (
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Key is an API key as listed and revoked: what it may do and since when,
// never its secret or its hash. ExpiresAt and RevokedAt are absent when
// unset.
type Key struct {
	ID        string       `json:"id"`
	Bank      string       `json:"bank"` // a bank name, or "*" for every bank
	Scope     memory.Scope `json:"scope"`
	Name      string       `json:"name,omitempty"`
	CreatedAt time.Time    `json:"created_at"`
	ExpiresAt *time.Time   `json:"expires_at,omitempty"`
	RevokedAt *time.Time   `json:"revoked_at,omitempty"`
}

// NewKey is k's wire shape.
func NewKey(k *memory.Key) Key {
	return Key{ID: k.ID, Bank: k.Bank, Scope: k.Scope, Name: k.Name, CreatedAt: k.CreatedAt,
		ExpiresAt: timeOrNil(k.ExpiresAt), RevokedAt: timeOrNil(k.RevokedAt)}
}

// CreatedKey is a new API key with its secret, "key": the one shape that
// carries a secret, printed once by `mnemo keys create --json` (and served
// once by the API that creates keys). Its other keys are Key's.
type CreatedKey struct {
	Key       string       `json:"key"`
	ID        string       `json:"id"`
	Bank      string       `json:"bank"`
	Scope     memory.Scope `json:"scope"`
	Name      string       `json:"name,omitempty"`
	CreatedAt time.Time    `json:"created_at"`
	ExpiresAt *time.Time   `json:"expires_at,omitempty"`
}

// NewCreatedKey is the wire shape of a key just created with its secret.
func NewCreatedKey(secret string, k *memory.Key) CreatedKey {
	return CreatedKey{Key: secret, ID: k.ID, Bank: k.Bank, Scope: k.Scope, Name: k.Name, CreatedAt: k.CreatedAt, ExpiresAt: timeOrNil(k.ExpiresAt)}
}

// KeyList is a list of API keys.
type KeyList struct {
	Keys []Key `json:"keys"`
}

// NewKeyList is the wire shape of ks; never a null list.
func NewKeyList(ks []*memory.Key) KeyList {
	out := KeyList{Keys: make([]Key, 0, len(ks))}
	for _, k := range ks {
		out.Keys = append(out.Keys, NewKey(k))
	}
	return out
}

// timeOrNil is t, or nil for the zero time (left out of the JSON).
func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
