package mnemo

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// KeyPrefix starts every API key secret, so that a leaked secret is easy
// to recognise (secret scanners, logs) and a mistyped one is refused
// before any lookup.
const KeyPrefix = "mnemo_"

// keySecretBytes is the randomness of a secret: 32 bytes from crypto/rand.
const keySecretBytes = 32

// KeyRequest asks Engine.CreateKey for a new API key.
type KeyRequest struct {
	// Bank is the bank the key may use, or memory.AllBanks ("*") for
	// every bank. Required: empty is EINVALID, never "all".
	Bank string
	// Scope is what the key may do: read, write or admin.
	Scope memory.Scope
	// Name is an optional label (at most memory.MaxKeyName bytes).
	Name string
	// ExpiresAt, when set, is when the key stops working; it must be in
	// the future.
	ExpiresAt time.Time
}

// CreateKey makes a new API key and returns its secret with the stored
// key. The secret ("mnemo_" and 43 base64url characters: 32 random bytes)
// is shown this once: only its SHA-256 is stored (memory.KeyHash), so it
// cannot be recovered, only revoked and replaced. The bank must exist
// (ENOTFOUND), unless it is memory.AllBanks; a bad bank name, scope,
// name or expiry is EINVALID.
func (e *Engine) CreateKey(ctx context.Context, req KeyRequest) (string, *memory.Key, error) {
	if _, err := memory.ParseScope(string(req.Scope)); err != nil {
		return "", nil, err
	}
	if err := memory.ValidateKeyBank(req.Bank); err != nil {
		return "", nil, err
	}
	if err := memory.ValidateKeyName(req.Name); err != nil {
		return "", nil, err
	}
	now := memory.StoreTime(e.now())
	if !req.ExpiresAt.IsZero() && !req.ExpiresAt.After(now) {
		return "", nil, memory.Errorf(memory.EINVALID, "key expiry %s is not in the future", req.ExpiresAt.UTC().Format(time.RFC3339))
	}
	if req.Bank != memory.AllBanks {
		if _, err := e.store.Bank(ctx, req.Bank); err != nil {
			return "", nil, err
		}
	}
	var raw [keySecretBytes]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", nil, err
	}
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", nil, err
	}
	secret := KeyPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	k := &memory.Key{
		ID: "key_" + hex.EncodeToString(id[:]), Hash: memory.KeyHash(secret),
		Bank: req.Bank, Scope: req.Scope, Name: req.Name, CreatedAt: now,
	}
	if !req.ExpiresAt.IsZero() {
		k.ExpiresAt = memory.StoreTime(req.ExpiresAt)
	}
	if err := e.store.CreateKey(ctx, k); err != nil {
		return "", nil, err
	}
	return secret, k, nil
}

// Keys lists the API keys for bank (memory.AllBanks: the keys for every
// bank), or every key when bank is "", revoked and expired ones included,
// oldest first. No secret is returned: none is kept.
func (e *Engine) Keys(ctx context.Context, bank string) ([]*memory.Key, error) {
	if bank != "" {
		if err := memory.ValidateKeyBank(bank); err != nil {
			return nil, err
		}
	}
	return e.store.Keys(ctx, bank)
}

// RevokeKey revokes the API key with the given id (from CreateKey or
// Keys) and returns it: from now on it authenticates nothing. Revoking a
// revoked key changes nothing. ENOTFOUND if no key has that id.
func (e *Engine) RevokeKey(ctx context.Context, id string) (*memory.Key, error) {
	if id == "" {
		return nil, memory.Errorf(memory.EINVALID, "a key id is required")
	}
	return e.store.RevokeKey(ctx, id, memory.StoreTime(e.now()))
}

// Authenticate returns the key whose secret this is, if it may be used
// now. An unknown, malformed, revoked or expired secret all fail with
// the same EUNAUTHORIZED error (memory.ErrBadKey), so a caller learns
// nothing from the failure. The key is found by its hash and the hashes
// are then compared in constant time. What the key may do is
// memory.Authorize's question.
func (e *Engine) Authenticate(ctx context.Context, secret string) (*memory.Key, error) {
	if !strings.HasPrefix(secret, KeyPrefix) || len(secret) != len(KeyPrefix)+base64.RawURLEncoding.EncodedLen(keySecretBytes) {
		return nil, memory.ErrBadKey()
	}
	hash := memory.KeyHash(secret)
	k, err := e.store.KeyByHash(ctx, hash)
	if memory.ErrorCode(err) == memory.ENOTFOUND {
		return nil, memory.ErrBadKey()
	}
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare([]byte(k.Hash), []byte(hash)) != 1 || !k.Usable(e.now()) {
		return nil, memory.ErrBadKey()
	}
	return k, nil
}

// revokeBankKeys revokes every key for bank, once the bank is deleted: a
// bank created again under the same name is a new bank, and the old keys
// must not open it. The keys stay listed, revoked.
func (e *Engine) revokeBankKeys(ctx context.Context, bank string) error {
	ks, err := e.store.Keys(ctx, bank)
	if err != nil {
		return err
	}
	at := memory.StoreTime(e.now())
	for _, k := range ks {
		if k.RevokedAt.IsZero() {
			if _, err := e.store.RevokeKey(ctx, k.ID, at); err != nil {
				return err
			}
		}
	}
	return nil
}
