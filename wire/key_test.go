package wire_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
)

// No key shape shows a key's hash, and only CreatedKey shows its secret,
// once, under "key".
func TestKey_NoSecret(t *testing.T) {
	secret := "mnemo_" + strings.Repeat("s", 43)
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	k := &memory.Key{ID: "key_1", Hash: memory.KeyHash(secret), Bank: "a", Scope: memory.ScopeRead, Name: "ci", CreatedAt: at, RevokedAt: at}
	for name, v := range map[string]any{"Key": wire.NewKey(k), "KeyList": wire.NewKeyList([]*memory.Key{k}), "CreatedKey": wire.NewCreatedKey(secret, k)} {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		s := string(raw)
		if strings.Contains(s, k.Hash) {
			t.Errorf("%s shows the hash: %s", name, s)
		}
		want := 0
		if name == "CreatedKey" {
			want = 1
			if !strings.HasPrefix(s, `{"key":"`+secret+`"`) {
				t.Errorf("CreatedKey does not start with the secret under \"key\": %s", s)
			}
		}
		if got := strings.Count(s, secret); got != want {
			t.Errorf("%s shows the secret %d times, want %d: %s", name, got, want, s)
		}
	}
	raw, _ := json.Marshal(wire.NewKey(&memory.Key{ID: "key_2", Bank: "*", Scope: memory.ScopeAdmin, CreatedAt: at}))
	if s := string(raw); strings.Contains(s, "expires_at") || strings.Contains(s, "revoked_at") || strings.Contains(s, "null") {
		t.Errorf("unset times are not left out: %s", s)
	}
}
