package mnemo_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
)

func openKeys(t *testing.T) (*engine, *testutil.Clock) {
	t.Helper()
	clock := testutil.NewClock(monday)
	eng := open(t, mnemo.Config{DB: filepath.Join(t.TempDir(), "mnemo.db"), Now: clock.Now})
	if _, err := eng.CreateBank(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	return eng, clock
}

func TestEngine_CreateKey(t *testing.T) {
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		eng, _ := openKeys(t)
		secret, k, err := eng.CreateKey(ctx, mnemo.KeyRequest{Bank: "a", Scope: memory.ScopeWrite, Name: "ci"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(secret, mnemo.KeyPrefix) || len(secret) != len(mnemo.KeyPrefix)+43 {
			t.Errorf("secret %q: want %s and 43 base64url characters", secret, mnemo.KeyPrefix)
		}
		if !strings.HasPrefix(k.ID, "key_") || k.Bank != "a" || k.Scope != memory.ScopeWrite || k.Name != "ci" || !k.CreatedAt.Equal(monday) {
			t.Errorf("key %+v", k)
		}
		if k.Hash != memory.KeyHash(secret) || strings.Contains(k.Hash, secret) {
			t.Errorf("key hash %q is not the secret's SHA-256", k.Hash)
		}
		secret2, k2, err := eng.CreateKey(ctx, mnemo.KeyRequest{Bank: memory.AllBanks, Scope: memory.ScopeAdmin})
		if err != nil {
			t.Fatal(err)
		}
		if secret2 == secret || k2.ID == k.ID {
			t.Errorf("two keys share a secret or an id: %s %s", k.ID, k2.ID)
		}
	})
	t.Run("Errors", func(t *testing.T) {
		eng, _ := openKeys(t)
		for _, c := range []struct {
			name string
			req  mnemo.KeyRequest
			code string
		}{
			{"NoBank", mnemo.KeyRequest{Scope: memory.ScopeRead}, memory.EINVALID},
			{"BadBank", mnemo.KeyRequest{Bank: "a b", Scope: memory.ScopeRead}, memory.EINVALID},
			{"UnknownBank", mnemo.KeyRequest{Bank: "nope", Scope: memory.ScopeRead}, memory.ENOTFOUND},
			{"NoScope", mnemo.KeyRequest{Bank: "a"}, memory.EINVALID},
			{"BadScope", mnemo.KeyRequest{Bank: "a", Scope: "root"}, memory.EINVALID},
			{"BadName", mnemo.KeyRequest{Bank: "a", Scope: memory.ScopeRead, Name: "x\ny"}, memory.EINVALID},
			{"PastExpiry", mnemo.KeyRequest{Bank: "a", Scope: memory.ScopeRead, ExpiresAt: monday.Add(-time.Second)}, memory.EINVALID},
			{"ExpiryNow", mnemo.KeyRequest{Bank: "a", Scope: memory.ScopeRead, ExpiresAt: monday}, memory.EINVALID},
		} {
			if _, _, err := eng.CreateKey(ctx, c.req); memory.ErrorCode(err) != c.code {
				t.Errorf("%s: CreateKey = %v, want code %s", c.name, err, c.code)
			}
		}
		if ks, err := eng.Keys(ctx, ""); err != nil || len(ks) != 0 {
			t.Errorf("after refused requests: Keys = %d keys, %v; want none", len(ks), err)
		}
	})
}

func TestEngine_Authenticate(t *testing.T) {
	ctx := context.Background()
	eng, clock := openKeys(t)
	secret, k, err := eng.CreateKey(ctx, mnemo.KeyRequest{Bank: "a", Scope: memory.ScopeRead, ExpiresAt: monday.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("OK", func(t *testing.T) {
		got, err := eng.Authenticate(ctx, secret)
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != k.ID || got.Bank != "a" || got.Scope != memory.ScopeRead {
			t.Errorf("Authenticate = %+v, want key %s", got, k.ID)
		}
	})
	bad := memory.ErrBadKey().Error()
	check := func(t *testing.T, what, secret string) {
		t.Helper()
		got, err := eng.Authenticate(ctx, secret)
		if got != nil || err == nil || err.Error() != bad {
			t.Errorf("Authenticate(%s) = %v, %v; want nil, %q", what, got, err, bad)
		}
	}
	t.Run("ErrUnknown", func(t *testing.T) {
		check(t, "empty", "")
		check(t, "no prefix", strings.TrimPrefix(secret, mnemo.KeyPrefix))
		check(t, "truncated", secret[:len(secret)-1])
		last := secret[len(secret)-1]
		other := byte('A')
		if last == 'A' {
			other = 'B'
		}
		check(t, "one character changed", secret[:len(secret)-1]+string(other))
	})
	t.Run("ErrExpired", func(t *testing.T) {
		clock.Set(monday.Add(time.Hour))
		defer clock.Set(monday)
		check(t, "expired", secret)
	})
	t.Run("ErrRevoked", func(t *testing.T) {
		secret2, k2, err := eng.CreateKey(ctx, mnemo.KeyRequest{Bank: "a", Scope: memory.ScopeAdmin})
		if err != nil {
			t.Fatal(err)
		}
		rk, err := eng.RevokeKey(ctx, k2.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !rk.RevokedAt.Equal(monday) {
			t.Errorf("RevokeKey: RevokedAt = %v, want %v", rk.RevokedAt, monday)
		}
		check(t, "revoked", secret2)
		if _, err := eng.Authenticate(ctx, secret); err != nil {
			t.Errorf("revoking one key broke another: %v", err)
		}
	})
}

func TestEngine_RevokeKey(t *testing.T) {
	ctx := context.Background()
	eng, _ := openKeys(t)
	if _, err := eng.RevokeKey(ctx, "key_none"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("RevokeKey(unknown) = %v, want ENOTFOUND", err)
	}
	if _, err := eng.RevokeKey(ctx, ""); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("RevokeKey(\"\") = %v, want EINVALID", err)
	}
}

// Deleting a bank revokes its keys, which stay listed: a bank created
// again under the same name does not open to them.
func TestEngine_DeleteBankRevokesKeys(t *testing.T) {
	ctx := context.Background()
	eng, _ := openKeys(t)
	secret, k, err := eng.CreateKey(ctx, mnemo.KeyRequest{Bank: "a", Scope: memory.ScopeRead})
	if err != nil {
		t.Fatal(err)
	}
	allSecret, _, err := eng.CreateKey(ctx, mnemo.KeyRequest{Bank: memory.AllBanks, Scope: memory.ScopeRead})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.DeleteBank(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.CreateBank(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Authenticate(ctx, secret); memory.ErrorCode(err) != memory.EUNAUTHORIZED {
		t.Errorf("key of a deleted bank: Authenticate = %v, want EUNAUTHORIZED", err)
	}
	if _, err := eng.Authenticate(ctx, allSecret); err != nil {
		t.Errorf("a key for every bank stopped working: %v", err)
	}
	ks, err := eng.Keys(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(ks) != 1 || ks[0].ID != k.ID || ks[0].RevokedAt.IsZero() {
		t.Errorf("Keys(a) after delete = %+v, want %s listed, revoked", ks, k.ID)
	}
}

func TestEngine_Keys(t *testing.T) {
	ctx := context.Background()
	eng, clock := openKeys(t)
	if _, err := eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, bank := range []string{"a", "b", memory.AllBanks} {
		_, k, err := eng.CreateKey(ctx, mnemo.KeyRequest{Bank: bank, Scope: memory.ScopeRead})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, k.ID)
		clock.Advance(time.Second)
	}
	for _, c := range []struct {
		bank string
		want []string
	}{{"", ids}, {"a", ids[:1]}, {"b", ids[1:2]}, {memory.AllBanks, ids[2:]}} {
		ks, err := eng.Keys(ctx, c.bank)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, k := range ks {
			got = append(got, k.ID)
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("Keys(%q) = %v, want %v", c.bank, got, c.want)
		}
	}
	if _, err := eng.Keys(ctx, "a b"); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("Keys(bad name) = %v, want EINVALID", err)
	}
}

// Keys are not bank data: a bank's export holds none of its keys.
func TestEngine_ExportHasNoKeys(t *testing.T) {
	ctx := context.Background()
	eng, _ := openKeys(t)
	if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "a", Text: "Melanie adopted a puppy named Biscuit."}); err != nil {
		t.Fatal(err)
	}
	secret, k, err := eng.CreateKey(ctx, mnemo.KeyRequest{Bank: "a", Scope: memory.ScopeRead, Name: "exported?"})
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	if err := eng.Export(ctx, "a", &buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "Biscuit") {
		t.Fatalf("export does not hold the bank's fact:\n%s", out)
	}
	for _, s := range []string{secret, k.Hash, k.ID, k.Name} {
		if strings.Contains(out, s) {
			t.Errorf("export holds %q", s)
		}
	}
}
