package memory_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

func TestAuthorize(t *testing.T) {
	key := func(bank string, scope memory.Scope) *memory.Key {
		return &memory.Key{ID: "key_1", Bank: bank, Scope: scope}
	}
	revoked := key("a", memory.ScopeAdmin)
	revoked.RevokedAt = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		key  *memory.Key
		bank string
		need memory.Scope
		code string // "" for allowed
	}{
		{"ReadOwnBank", key("a", memory.ScopeRead), "a", memory.ScopeRead, ""},
		{"WriteIncludesRead", key("a", memory.ScopeWrite), "a", memory.ScopeRead, ""},
		{"AdminIncludesWrite", key("a", memory.ScopeAdmin), "a", memory.ScopeWrite, ""},
		{"AdminIncludesAdmin", key("a", memory.ScopeAdmin), "a", memory.ScopeAdmin, ""},
		{"ReadCannotWrite", key("a", memory.ScopeRead), "a", memory.ScopeWrite, memory.EFORBIDDEN},
		{"ReadCannotAdmin", key("a", memory.ScopeRead), "a", memory.ScopeAdmin, memory.EFORBIDDEN},
		{"WriteCannotAdmin", key("a", memory.ScopeWrite), "a", memory.ScopeAdmin, memory.EFORBIDDEN},
		{"OtherBank", key("a", memory.ScopeAdmin), "b", memory.ScopeRead, memory.ENOTFOUND},
		{"OtherBankTooSmallScope", key("a", memory.ScopeRead), "b", memory.ScopeAdmin, memory.ENOTFOUND},
		{"AllBanksAnyBank", key(memory.AllBanks, memory.ScopeRead), "b", memory.ScopeRead, ""},
		{"AllBanksScopeStillApplies", key(memory.AllBanks, memory.ScopeRead), "b", memory.ScopeWrite, memory.EFORBIDDEN},
		{"GlobalNeedsAllBanks", key("a", memory.ScopeAdmin), "", memory.ScopeAdmin, memory.EFORBIDDEN},
		{"GlobalAllBanks", key(memory.AllBanks, memory.ScopeAdmin), "", memory.ScopeAdmin, ""},
		{"GlobalAllBanksTooSmall", key(memory.AllBanks, memory.ScopeWrite), "", memory.ScopeAdmin, memory.EFORBIDDEN},
		{"NilKey", nil, "a", memory.ScopeRead, memory.EUNAUTHORIZED},
		{"Revoked", revoked, "a", memory.ScopeRead, memory.EUNAUTHORIZED},
		{"UnknownNeed", key("a", memory.ScopeAdmin), "a", "root", memory.EINVALID},
		{"UnknownKeyScope", key("a", "root"), "a", memory.ScopeRead, memory.EFORBIDDEN},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := memory.Authorize(c.key, c.bank, c.need)
			if got := memory.ErrorCode(err); got != c.code {
				t.Fatalf("Authorize(%+v, %q, %q) = %v, want code %q", c.key, c.bank, c.need, err, c.code)
			}
		})
	}
}

// A key for bank a asking about bank b gets the very error an unknown
// bank gets: it cannot tell whether b exists.
func TestAuthorize_OtherBankIsUnknownBank(t *testing.T) {
	err := memory.Authorize(&memory.Key{ID: "k", Bank: "a", Scope: memory.ScopeAdmin}, "b", memory.ScopeRead)
	if got, want := err.Error(), memory.UnknownBank("b").Error(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestParseScope(t *testing.T) {
	for _, s := range []string{"read", "write", "admin"} {
		got, err := memory.ParseScope(s)
		if err != nil || string(got) != s {
			t.Errorf("ParseScope(%q) = %q, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "Read", "root", "read "} {
		if _, err := memory.ParseScope(s); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("ParseScope(%q) = %v, want EINVALID", s, err)
		}
	}
}

func TestKey_Usable(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		key  *memory.Key
		want bool
	}{
		{"Plain", &memory.Key{}, true},
		{"Nil", nil, false},
		{"FutureExpiry", &memory.Key{ExpiresAt: now.Add(time.Second)}, true},
		{"ExpiresNow", &memory.Key{ExpiresAt: now}, false},
		{"Expired", &memory.Key{ExpiresAt: now.Add(-time.Hour)}, false},
		{"Revoked", &memory.Key{RevokedAt: now.Add(-time.Hour)}, false},
	} {
		if got := c.key.Usable(now); got != c.want {
			t.Errorf("%s: Usable = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestKey_Validate(t *testing.T) {
	good := func() *memory.Key {
		return &memory.Key{ID: "key_1", Hash: memory.KeyHash("s"), Bank: "a", Scope: memory.ScopeRead, CreatedAt: time.Unix(1, 0)}
	}
	if err := good().Validate(); err != nil {
		t.Fatalf("valid key: %v", err)
	}
	all := good()
	all.Bank = memory.AllBanks
	if err := all.Validate(); err != nil {
		t.Fatalf("key for every bank: %v", err)
	}
	for name, change := range map[string]func(k *memory.Key){
		"NoID":        func(k *memory.Key) { k.ID = "" },
		"ShortHash":   func(k *memory.Key) { k.Hash = "abc" },
		"UpperHash":   func(k *memory.Key) { k.Hash = strings.ToUpper(k.Hash) },
		"NoBank":      func(k *memory.Key) { k.Bank = "" },
		"BadBank":     func(k *memory.Key) { k.Bank = "a b" },
		"BadScope":    func(k *memory.Key) { k.Scope = "root" },
		"LongName":    func(k *memory.Key) { k.Name = strings.Repeat("x", memory.MaxKeyName+1) },
		"ControlName": func(k *memory.Key) { k.Name = "a\x00b" },
		"BadUTF8Name": func(k *memory.Key) { k.Name = "a\xffb" },
		"NoCreatedAt": func(k *memory.Key) { k.CreatedAt = time.Time{} },
	} {
		k := good()
		change(k)
		if err := k.Validate(); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("%s: Validate = %v, want EINVALID", name, err)
		}
	}
}

func TestKeyHash(t *testing.T) {
	// SHA-256 of "abc" (FIPS 180-2 test vector).
	if got, want := memory.KeyHash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; got != want {
		t.Errorf("KeyHash(abc) = %s, want %s", got, want)
	}
}
