package httpapi

import (
	"context"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
)

// KeyAuth is the Authenticator over an engine's API keys: a secret is
// checked by Engine.Authenticate (hashed, compared in constant time;
// unknown, revoked and expired keys fail alike) and what the key may do
// is memory.Authorize's rule. It is safe for concurrent use.
type KeyAuth struct {
	eng *mnemo.Engine
}

var _ Authenticator = KeyAuth{}

// NewKeyAuth returns the Authenticator over eng's keys.
func NewKeyAuth(eng *mnemo.Engine) KeyAuth { return KeyAuth{eng: eng} }

// Authenticate implements Authenticator: the principal of the key whose
// secret this is. A key for every bank (memory.AllBanks) has an empty
// Principal.Bank.
func (a KeyAuth) Authenticate(ctx context.Context, secret string) (Principal, error) {
	k, err := a.eng.Authenticate(ctx, secret)
	if err != nil {
		return Principal{}, err
	}
	p := Principal{KeyID: k.ID, Scope: Scope(k.Scope)}
	if k.Bank != memory.AllBanks {
		p.Bank = k.Bank
	}
	return p, nil
}

// Authorize implements Authenticator with memory.Authorize: a key for
// another bank is the unknown bank's ENOTFOUND, too small a scope
// EFORBIDDEN; bank "" (keys, creating banks) needs a key for every bank.
func (a KeyAuth) Authorize(p Principal, bank string, need Scope) error {
	return memory.Authorize(keyOf(p), bank, memory.Scope(need))
}

// keyOf is the memory.Key p stands for: only its bank and scope
// matter to memory.Authorize.
func keyOf(p Principal) *memory.Key {
	k := &memory.Key{ID: p.KeyID, Bank: memory.AllBanks, Scope: memory.Scope(p.Scope)}
	if p.Bank != "" {
		k.Bank = p.Bank
	}
	return k
}
