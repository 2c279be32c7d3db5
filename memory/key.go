package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// AllBanks is the Bank of a key that may use every bank. It is not a valid
// bank name (ValidateBankName refuses it), so it never names a real bank;
// an empty Bank is invalid rather than "all", so that a forgotten field
// never grants more than was meant.
const AllBanks = "*"

// MaxKeyName is the longest key name (label), in bytes.
const MaxKeyName = 200

// Scope is what a key may do. Each scope includes the ones below it:
// admin ⊇ write ⊇ read.
type Scope string

const (
	// ScopeRead may read a bank: recall, about, list facts, stats.
	ScopeRead Scope = "read"
	// ScopeWrite may also change a bank's contents: retain, forget,
	// blocks, import.
	ScopeWrite Scope = "write"
	// ScopeAdmin may also create, configure and delete banks.
	ScopeAdmin Scope = "admin"
)

// rank orders the scopes; 0 is not a scope.
func (s Scope) rank() int {
	switch s {
	case ScopeRead:
		return 1
	case ScopeWrite:
		return 2
	case ScopeAdmin:
		return 3
	}
	return 0
}

// ParseScope returns the scope named s (read, write or admin), or an
// EINVALID *Error.
func ParseScope(s string) (Scope, error) {
	if sc := Scope(s); sc.rank() > 0 {
		return sc, nil
	}
	return "", Errorf(EINVALID, "scope %q: want read, write or admin", s)
}

// Includes reports whether a key of scope s may do what needs scope need.
// An unknown scope includes nothing and is included by nothing.
func (s Scope) Includes(need Scope) bool {
	return s.rank() > 0 && need.rank() > 0 && s.rank() >= need.rank()
}

// Key is an API key: the right to use one bank (or every bank, AllBanks)
// at a scope. The secret itself is never stored, only its KeyHash. Keys
// are not bank data: they are never exported, and a key outlives the bank
// it names (deleting a bank revokes its keys, which stay listed).
type Key struct {
	// ID is the key's public name ("key_…"): safe to show and log; it is
	// how a key is revoked.
	ID string
	// Hash is KeyHash of the secret: the only trace of it the store keeps.
	Hash string
	// Bank is the bank the key may use, or AllBanks.
	Bank  string
	Scope Scope
	// Name is a label for people ("ci", "claude desktop"); may be empty.
	Name      string
	CreatedAt time.Time
	// ExpiresAt, when set, is when the key stops working.
	ExpiresAt time.Time
	// RevokedAt, when set, is when the key was revoked; it works no more.
	RevokedAt time.Time
}

// KeyHash is the hex SHA-256 of a key's secret, the form stores keep and
// look keys up by. A plain hash is enough: secrets are 32 random bytes,
// far beyond any guessing, so the slow, salted hashes passwords need
// would add cost and nothing else.
func KeyHash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// Usable reports whether k authenticates at time now: not revoked and not
// expired (an expiry at or before now has passed).
func (k *Key) Usable(now time.Time) bool {
	return k != nil && k.RevokedAt.IsZero() && (k.ExpiresAt.IsZero() || k.ExpiresAt.After(now))
}

// Validate checks a key before it is stored: an ID, a 64-hex-digit Hash, a
// Bank that is AllBanks or a valid bank name, a known Scope, a Name of at
// most MaxKeyName bytes of printable UTF-8, and a CreatedAt. It returns nil
// or an EINVALID *Error.
func (k *Key) Validate() error {
	if k.ID == "" {
		return Errorf(EINVALID, "key: id is required")
	}
	if len(k.Hash) != 2*sha256.Size || strings.Trim(k.Hash, "0123456789abcdef") != "" {
		return Errorf(EINVALID, "key %s: hash must be 64 lower-case hex digits", k.ID)
	}
	if err := ValidateKeyBank(k.Bank); err != nil {
		return err
	}
	if k.Scope.rank() == 0 {
		return Errorf(EINVALID, "key %s: scope %q: want read, write or admin", k.ID, k.Scope)
	}
	if err := ValidateKeyName(k.Name); err != nil {
		return err
	}
	if k.CreatedAt.IsZero() {
		return Errorf(EINVALID, "key %s: created_at is required", k.ID)
	}
	return nil
}

// ValidateKeyBank reports whether bank can be a key's Bank: AllBanks or a
// valid bank name. It returns nil or an EINVALID *Error.
func ValidateKeyBank(bank string) error {
	if bank == AllBanks {
		return nil
	}
	if bank == "" {
		return Errorf(EINVALID, "key: a bank is required (a bank name, or %q for every bank)", AllBanks)
	}
	return ValidateBankName(bank)
}

// ValidateKeyName reports whether name can label a key: at most
// MaxKeyName bytes of valid UTF-8 without control characters. It returns
// nil or an EINVALID *Error.
func ValidateKeyName(name string) error {
	if len(name) > MaxKeyName {
		return Errorf(EINVALID, "key name is %d bytes long, the limit is %d", len(name), MaxKeyName)
	}
	if !utf8.ValidString(name) {
		return Errorf(EINVALID, "key name is not valid UTF-8")
	}
	if strings.ContainsFunc(name, unicode.IsControl) {
		return Errorf(EINVALID, "key name contains control characters")
	}
	return nil
}

// ErrBadKey is the one error every failed authentication returns: an
// unknown, malformed, revoked or expired key all look the same, so a
// caller learns nothing about which keys exist.
func ErrBadKey() error {
	return Errorf(EUNAUTHORIZED, "invalid API key")
}

// Authorize reports whether key may do an operation that needs scope need
// on bank. It is a pure function: the key must come from a successful
// authentication (a revoked key is refused all the same).
//
// A key for another bank gets exactly the error an unknown bank gets
// (UnknownBank: ENOTFOUND), so a key never learns whether another bank
// exists. A key whose scope does not include need gets EFORBIDDEN. An
// operation on no particular bank (bank "": create or list banks, manage
// keys) needs a key for AllBanks, else EFORBIDDEN. A nil or revoked key is
// EUNAUTHORIZED (ErrBadKey); an unknown need is EINVALID.
func Authorize(key *Key, bank string, need Scope) error {
	if key == nil || !key.RevokedAt.IsZero() {
		return ErrBadKey()
	}
	if need.rank() == 0 {
		return Errorf(EINVALID, "authorize: scope %q: want read, write or admin", need)
	}
	if bank == "" {
		if key.Bank != AllBanks {
			return Errorf(EFORBIDDEN, "this key is for one bank; the operation needs a key for every bank")
		}
	} else if key.Bank != AllBanks && key.Bank != bank {
		return UnknownBank(bank)
	}
	if !key.Scope.Includes(need) {
		return Errorf(EFORBIDDEN, "this key's scope is %s; the operation needs %s", key.Scope, need)
	}
	return nil
}

// Keys stores API keys: hashes only, never secrets. Keys live beside the
// banks, not in them: deleting a bank deletes none, and no export holds
// them.
type Keys interface {
	// CreateKey stores k, which must pass Key.Validate (else EINVALID);
	// ECONFLICT if a key with its ID or its Hash exists. The bank need
	// not exist.
	CreateKey(ctx context.Context, k *Key) error
	// KeyByHash returns the key whose Hash is hash, revoked and expired
	// keys included (Key.Usable tells), or ENOTFOUND.
	KeyByHash(ctx context.Context, hash string) (*Key, error)
	// Keys lists the keys whose Bank is bank (AllBanks lists the keys for
	// every bank), or every key when bank is "", revoked ones included,
	// ordered by CreatedAt then ID.
	Keys(ctx context.Context, bank string) ([]*Key, error)
	// RevokeKey sets the RevokedAt of key id to at and returns the key; a
	// key already revoked keeps its first RevokedAt. ENOTFOUND if no key
	// has that id.
	RevokeKey(ctx context.Context, id string, at time.Time) (*Key, error)
}
