package storetest

import (
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// The Keys group checks memory.Keys: API keys stored by hash, found by
// hash, listed by bank, revoked; keys live beside the banks (a key may
// name a bank that does not exist, and deleting a bank deletes no key).

// testKey is a valid key named id for bank at scope, whose secret is
// "secret-"+id.
func testKey(id, bank string, scope memory.Scope, created time.Time) *memory.Key {
	return &memory.Key{ID: id, Hash: memory.KeyHash("secret-" + id), Bank: bank, Scope: scope, Name: "label " + id, CreatedAt: created}
}

func (e *env) createKey(k *memory.Key) {
	e.t.Helper()
	c := *k
	if err := e.s.CreateKey(e.ctx, &c); err != nil {
		e.t.Fatalf("CreateKey(%s): %v", k.ID, err)
	}
}

func (e *env) keys(bank string) []*memory.Key {
	e.t.Helper()
	ks, err := e.s.Keys(e.ctx, bank)
	if err != nil {
		e.t.Fatalf("Keys(%q): %v", bank, err)
	}
	noNil(e.t, "Keys", ks)
	return ks
}

func keyIDs(ks []*memory.Key) []string {
	var ids []string
	for _, k := range ks {
		ids = append(ids, k.ID)
	}
	return ids
}

// testKeysCreateGet: a key reads back by hash as it was stored, every
// field; an expiry is kept; an unknown hash is ENOTFOUND.
func testKeysCreateGet(e *env) {
	k := testKey("key_a", "a", memory.ScopeWrite, testTime)
	k.ExpiresAt = testTime.Add(30 * 24 * time.Hour)
	e.createKey(k)
	got, err := e.s.KeyByHash(e.ctx, k.Hash)
	if err != nil {
		e.t.Fatalf("KeyByHash: %v", err)
	}
	for _, d := range diff(got, k) {
		e.t.Errorf("KeyByHash: %s", d)
	}
	all := testKey("key_all", memory.AllBanks, memory.ScopeAdmin, testTime.Add(time.Second))
	all.Name = ""
	e.createKey(all)
	got, err = e.s.KeyByHash(e.ctx, all.Hash)
	if err != nil {
		e.t.Fatalf("KeyByHash(all banks): %v", err)
	}
	for _, d := range diff(got, all) {
		e.t.Errorf("KeyByHash(all banks): %s", d)
	}
	_, err = e.s.KeyByHash(e.ctx, memory.KeyHash("no such secret"))
	wantCode(e.t, "KeyByHash(unknown)", err, memory.ENOTFOUND)
}

// testKeysList: Keys lists by bank (AllBanks: the keys for every bank;
// "": all keys), oldest first, ties by id; revoked keys are listed.
func testKeysList(e *env) {
	if ks := e.keys(""); len(ks) != 0 {
		e.t.Fatalf("Keys of an empty store: got %v, want none", keyIDs(ks))
	}
	e.createKey(testKey("key_3", "a", memory.ScopeRead, testTime.Add(2*time.Second)))
	e.createKey(testKey("key_2", "b", memory.ScopeRead, testTime.Add(time.Second)))
	e.createKey(testKey("key_1", "a", memory.ScopeAdmin, testTime.Add(time.Second)))
	e.createKey(testKey("key_0", memory.AllBanks, memory.ScopeAdmin, testTime))
	if _, err := e.s.RevokeKey(e.ctx, "key_3", testTime.Add(time.Hour)); err != nil {
		e.t.Fatalf("RevokeKey: %v", err)
	}
	for _, c := range []struct {
		bank string
		want []string
	}{
		{"", []string{"key_0", "key_1", "key_2", "key_3"}},
		{"a", []string{"key_1", "key_3"}},
		{"b", []string{"key_2"}},
		{memory.AllBanks, []string{"key_0"}},
		{"c", nil},
	} {
		if got := keyIDs(e.keys(c.bank)); !slices.Equal(got, c.want) {
			e.t.Errorf("Keys(%q) = %v, want %v", c.bank, got, c.want)
		}
	}
	ks := e.keys("a")
	if len(ks) == 2 && (ks[1].RevokedAt.IsZero() || !ks[0].RevokedAt.IsZero()) {
		e.t.Errorf("Keys(a): RevokedAt %v, %v: want only key_3 revoked", ks[0].RevokedAt, ks[1].RevokedAt)
	}
}

// testKeysRevoke: a revoked key still reads back, with RevokedAt set, and
// is not usable; revoking again keeps the first time; an unknown id is
// ENOTFOUND.
func testKeysRevoke(e *env) {
	k := testKey("key_r", "a", memory.ScopeWrite, testTime)
	e.createKey(k)
	other := testKey("key_o", "a", memory.ScopeWrite, testTime)
	e.createKey(other)
	at := testTime.Add(time.Hour)
	got, err := e.s.RevokeKey(e.ctx, k.ID, at)
	if err != nil {
		e.t.Fatalf("RevokeKey: %v", err)
	}
	if got == nil || got.ID != k.ID || !got.RevokedAt.Equal(at) {
		e.t.Fatalf("RevokeKey returned %+v, want key_r revoked at %v", got, at)
	}
	got, err = e.s.KeyByHash(e.ctx, k.Hash)
	if err != nil {
		e.t.Fatalf("KeyByHash(revoked): %v", err)
	}
	if !got.RevokedAt.Equal(at) {
		e.t.Errorf("KeyByHash(revoked).RevokedAt = %v, want %v", got.RevokedAt, at)
	}
	if got.Usable(testTime) {
		e.t.Errorf("a revoked key is usable")
	}
	again, err := e.s.RevokeKey(e.ctx, k.ID, at.Add(time.Hour))
	if err != nil {
		e.t.Fatalf("RevokeKey again: %v", err)
	}
	if !again.RevokedAt.Equal(at) {
		e.t.Errorf("revoked again: RevokedAt = %v, want the first %v", again.RevokedAt, at)
	}
	o, err := e.s.KeyByHash(e.ctx, other.Hash)
	if err != nil {
		e.t.Fatalf("KeyByHash(other): %v", err)
	}
	if !o.RevokedAt.IsZero() {
		e.t.Errorf("revoking key_r revoked key_o too")
	}
	_, err = e.s.RevokeKey(e.ctx, "key_none", at)
	wantCode(e.t, "RevokeKey(unknown)", err, memory.ENOTFOUND)
}

// testKeysErrConflict: a second key with an existing id or hash is
// ECONFLICT and changes nothing.
func testKeysErrConflict(e *env) {
	k := testKey("key_a", "a", memory.ScopeRead, testTime)
	e.createKey(k)
	sameID := testKey("key_a", "b", memory.ScopeAdmin, testTime)
	wantCode(e.t, "CreateKey(same id)", e.s.CreateKey(e.ctx, sameID), memory.ECONFLICT)
	sameHash := testKey("key_b", "b", memory.ScopeAdmin, testTime)
	sameHash.Hash = k.Hash
	wantCode(e.t, "CreateKey(same hash)", e.s.CreateKey(e.ctx, sameHash), memory.ECONFLICT)
	if got := keyIDs(e.keys("")); !slices.Equal(got, []string{"key_a"}) {
		e.t.Errorf("after conflicts: Keys = %v, want [key_a]", got)
	}
	got, err := e.s.KeyByHash(e.ctx, k.Hash)
	if err != nil {
		e.t.Fatalf("KeyByHash: %v", err)
	}
	for _, d := range diff(got, k) {
		e.t.Errorf("after conflicts: %s", d)
	}
}

// testKeysErrInvalid: a key that fails Key.Validate is EINVALID and is
// not stored.
func testKeysErrInvalid(e *env) {
	for name, change := range map[string]func(k *memory.Key){
		"no id":      func(k *memory.Key) { k.ID = "" },
		"bad hash":   func(k *memory.Key) { k.Hash = "secret" },
		"no bank":    func(k *memory.Key) { k.Bank = "" },
		"bad scope":  func(k *memory.Key) { k.Scope = "root" },
		"no created": func(k *memory.Key) { k.CreatedAt = time.Time{} },
	} {
		k := testKey("key_x", "a", memory.ScopeRead, testTime)
		change(k)
		wantCode(e.t, "CreateKey("+name+")", e.s.CreateKey(e.ctx, k), memory.EINVALID)
	}
	if got := e.keys(""); len(got) != 0 {
		e.t.Errorf("after invalid keys: Keys = %v, want none", keyIDs(got))
	}
}

// testKeysOutliveBank: keys are not bank data: deleting a bank deletes
// none of its keys.
func testKeysOutliveBank(e *env) {
	e.newBank("a")
	e.createKey(testKey("key_a", "a", memory.ScopeRead, testTime))
	if err := e.s.DeleteBank(e.ctx, "a"); err != nil {
		e.t.Fatalf("DeleteBank: %v", err)
	}
	if got := keyIDs(e.keys("a")); !slices.Equal(got, []string{"key_a"}) {
		e.t.Errorf("after DeleteBank(a): Keys(a) = %v, want [key_a]", got)
	}
}
