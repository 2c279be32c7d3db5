package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// createdKeyOut is a key as `mnemo keys create --json` prints it.
type createdKeyOut struct {
	Key       string     `json:"key"`
	ID        string     `json:"id"`
	Bank      string     `json:"bank"`
	Scope     string     `json:"scope"`
	Name      string     `json:"name"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt *time.Time `json:"expires_at"`
}

// keyOut is a key as `mnemo keys list --json` and `keys revoke --json`
// print it.
type keyOut struct {
	ID        string     `json:"id"`
	Bank      string     `json:"bank"`
	Scope     string     `json:"scope"`
	Name      string     `json:"name"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt *time.Time `json:"expires_at"`
	RevokedAt *time.Time `json:"revoked_at"`
}

func listKeys(t *testing.T, db string, args ...string) []keyOut {
	t.Helper()
	var out struct {
		Keys []keyOut `json:"keys"`
	}
	decodeStrict(t, mustRun(t, db, append([]string{"--json", "keys", "list"}, args...)...), &out)
	return out.Keys
}

func TestKeys(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "bank", "create", "a")

	// The contract: --json prints the secret under "key".
	raw := mustRun(t, db, "--json", "keys", "create", "--bank", "a", "--scope", "read", "--name", "ci", "--expires", "30d")
	var c createdKeyOut
	decodeStrict(t, raw, &c)
	if !strings.HasPrefix(c.Key, "mnemo_") || !strings.HasPrefix(c.ID, "key_") || c.Bank != "a" || c.Scope != "read" || c.Name != "ci" {
		t.Errorf("keys create --json: %s", raw)
	}
	if c.ExpiresAt == nil || c.ExpiresAt.Sub(c.CreatedAt).Round(time.Hour) != 30*24*time.Hour {
		t.Errorf("keys create --expires 30d: created %v, expires %v", c.CreatedAt, c.ExpiresAt)
	}
	if got := keys(t, []byte(raw)); !slices.Equal(got, []string{"bank", "created_at", "expires_at", "id", "key", "name", "scope"}) {
		t.Errorf("keys create --json keys: %v", got)
	}

	// Text output: the secret alone on stdout, the rest on stderr.
	r := mnemoRun(t, db, "keys", "create", "--bank", "*", "--scope", "admin")
	secret := strings.TrimSpace(r.stdout)
	if r.code != exitOK || !strings.HasPrefix(secret, "mnemo_") || strings.Contains(secret, "\n") || !strings.Contains(r.stderr, "every bank") {
		t.Errorf("keys create: %v", r)
	}

	// Listing shows no secret and no hash.
	all := listKeys(t, db)
	if len(all) != 2 || all[0].ID != c.ID || all[1].Bank != "*" || all[1].Scope != "admin" {
		t.Fatalf("keys list: %+v", all)
	}
	for _, args := range [][]string{{"keys", "list"}, {"--json", "keys", "list"}} {
		out := mustRun(t, db, args...)
		if strings.Contains(out, c.Key) || strings.Contains(out, secret) {
			t.Errorf("mnemo %v shows a secret:\n%s", args, out)
		}
	}
	if got := listKeys(t, db, "--bank", "a"); len(got) != 1 || got[0].ID != c.ID {
		t.Errorf("keys list --bank a: %+v", got)
	}
	if got := listKeys(t, db, "--bank", "b"); len(got) != 0 {
		t.Errorf("keys list --bank b: %+v, want none", got)
	}

	// Revoke.
	var rk keyOut
	decodeStrict(t, mustRun(t, db, "--json", "keys", "revoke", c.ID), &rk)
	if rk.ID != c.ID || rk.RevokedAt == nil {
		t.Errorf("keys revoke --json: %+v", rk)
	}
	if out := mustRun(t, db, "keys", "list", "--bank", "a"); !strings.Contains(out, c.ID) || !strings.Contains(out, "revoked") {
		t.Errorf("keys list after revoke:\n%s", out)
	}
}

func TestKeys_Errors(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "bank", "create", "a")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"keys", "create", "--bank", "a"}, exitInvalid, "scope"},
		{[]string{"keys", "create", "--bank", "a", "--scope", "root"}, exitInvalid, "root"},
		{[]string{"keys", "create", "--bank", "nope", "--scope", "read"}, exitNotFound, "nope"},
		{[]string{"keys", "create", "--bank", "a b", "--scope", "read"}, exitInvalid, "a b"},
		{[]string{"keys", "create", "--bank", "a", "--scope", "read", "--expires", "-1h"}, exitInvalid, "--expires"},
		{[]string{"keys", "create", "--bank", "a", "--scope", "read", "--expires", "soon"}, exitInvalid, "--expires"},
		{[]string{"keys", "revoke", "key_none"}, exitNotFound, "key_none"},
		{[]string{"keys", "revoke"}, exitInvalid, "arg"},
	} {
		wantFailure(t, mnemoRun(t, db, c.args...), c.code, c.want)
	}
	if got := listKeys(t, db); len(got) != 0 {
		t.Errorf("after failed commands: %+v, want no key", got)
	}
}

func TestParseExpiry(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "1d": 24 * time.Hour, "90m": 90 * time.Minute, "720h": 720 * time.Hour} {
		if got, err := parseExpiry(in); err != nil || got != want {
			t.Errorf("parseExpiry(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "0d", "-1d", "d", "1.5d", "soon", "99999999d"} {
		if _, err := parseExpiry(in); err == nil {
			t.Errorf("parseExpiry(%q): want an error", in)
		}
	}
}
