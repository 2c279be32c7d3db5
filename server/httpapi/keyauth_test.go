package httpapi_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
	"github.com/mnemo-ai/mnemo/server/mcpserver"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// newKeyEnv is a real server over a real engine whose keys are real
// (httpapi.NewKeyAuth), with MCP mounted, the engine on clk.
func newKeyEnv(t *testing.T, clk *clock) *env {
	t.Helper()
	eng, err := mnemo.Open(t.Context(), mnemo.Config{DB: filepath.Join(t.TempDir(), "mnemo.db"), JobPoll: -1, SessionIdle: -1, Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	e := &env{t: t, eng: eng, log: &bytes.Buffer{}}
	e.srv = httptest.NewServer(httpapi.New(eng, httpapi.Options{
		Auth: httpapi.NewKeyAuth(eng), Logger: slogTo(e.log), MCP: mcpserver.Handler(eng, mcpserver.Options{Logger: slogTo(e.log)}),
	}))
	t.Cleanup(e.srv.Close)
	return e
}

// key creates a key through the engine and returns its secret.
func (e *env) key(bank string, scope memory.Scope, expires time.Time) (string, *memory.Key) {
	e.t.Helper()
	secret, k, err := e.eng.CreateKey(e.t.Context(), mnemo.KeyRequest{Bank: bank, Scope: scope, ExpiresAt: expires})
	if err != nil {
		e.t.Fatal(err)
	}
	return secret, k
}

func TestKeyAuth(t *testing.T) {
	clk := &clock{t: time.Now().UTC()}
	e := newKeyEnv(t, clk)
	for _, b := range []string{"a", "b"} {
		if _, err := e.eng.CreateBank(t.Context(), b); err != nil {
			t.Fatal(err)
		}
	}
	root, _ := e.key(memory.AllBanks, memory.ScopeAdmin, time.Time{})
	readAll, _ := e.key(memory.AllBanks, memory.ScopeRead, time.Time{})
	aRead, _ := e.key("a", memory.ScopeRead, time.Time{})
	aWrite, _ := e.key("a", memory.ScopeWrite, time.Time{})
	aAdmin, _ := e.key("a", memory.ScopeAdmin, time.Time{})
	revoked, rk := e.key("a", memory.ScopeAdmin, time.Time{})
	if _, err := e.eng.RevokeKey(t.Context(), rk.ID); err != nil {
		t.Fatal(err)
	}
	expiring, _ := e.key("a", memory.ScopeAdmin, clk.now().Add(time.Hour))
	e.must(http.StatusOK, expiring, "GET", "/v1/banks/a", nil, nil)
	clk.add(2 * time.Hour)
	e.must(http.StatusOK, root, "POST", "/v1/banks/b/memories", wire.Retain{Text: "The vault code of bank b is 4711."}, nil)

	t.Run("ErrBadKeys", func(t *testing.T) {
		unknown := e.fails("unknown key", http.StatusUnauthorized, memory.EUNAUTHORIZED, mnemo.KeyPrefix+strings.Repeat("x", 43), "GET", "/v1/banks/a", nil)
		for name, k := range map[string]string{"revoked": revoked, "expired": expiring, "garbage": "nope"} {
			body := e.fails(name, http.StatusUnauthorized, memory.EUNAUTHORIZED, k, "GET", "/v1/banks/a", nil)
			if !bytes.Equal(body, unknown) {
				t.Errorf("%s key answers %s, an unknown key %s", name, body, unknown)
			}
		}
	})
	t.Run("Scopes", func(t *testing.T) {
		e.must(http.StatusOK, aRead, "GET", "/v1/banks/a/stats", nil, nil)
		e.fails("read key retains", http.StatusForbidden, memory.EFORBIDDEN, aRead, "POST", "/v1/banks/a/memories", `{"text":"Mallory"}`)
		e.must(http.StatusOK, aWrite, "POST", "/v1/banks/a/memories", wire.Retain{Text: "Alice likes green tea."}, nil)
		e.fails("write key deletes", http.StatusForbidden, memory.EFORBIDDEN, aWrite, "DELETE", "/v1/banks/a", nil)
		e.must(http.StatusOK, aAdmin, "PATCH", "/v1/banks/a", `{"empathy":3}`, nil)
		e.must(http.StatusOK, readAll, "GET", "/v1/banks/b/stats", nil, nil)
		e.fails("read-all key retains", http.StatusForbidden, memory.EFORBIDDEN, readAll, "POST", "/v1/banks/b/memories", `{"text":"Mallory"}`)
		e.fails("bank-a admin creates a bank", http.StatusForbidden, memory.EFORBIDDEN, aAdmin, "POST", "/v1/banks", `{"name":"c"}`)
		for _, k := range []string{aRead, aWrite, aAdmin} {
			_, unknown := e.do(k, "GET", "/v1/banks/zz/stats", nil)
			body := e.fails("a's key on b", http.StatusNotFound, memory.ENOTFOUND, k, "GET", "/v1/banks/b/stats", nil)
			if string(body) != strings.ReplaceAll(string(unknown), "zz", "b") {
				t.Errorf("bank b answers %s, an unknown bank %s", body, unknown)
			}
		}
		var list wire.BankList
		e.must(http.StatusOK, aRead, "GET", "/v1/banks", nil, &list)
		if len(list.Banks) != 1 || list.Banks[0].Name != "a" {
			t.Errorf("a's key lists %+v, want only a", list.Banks)
		}
	})
	t.Run("KeysOverHTTP", func(t *testing.T) {
		for _, k := range []string{aAdmin, readAll} {
			e.fails("keys by a non-root key", http.StatusForbidden, memory.EFORBIDDEN, k, "GET", "/v1/keys", nil)
			e.fails("key created by a non-root key", http.StatusForbidden, memory.EFORBIDDEN, k, "POST", "/v1/keys", `{"bank":"a","scope":"read"}`)
		}
		var ck wire.CreatedKey
		e.must(http.StatusCreated, root, "POST", "/v1/keys", `{"bank":"a","scope":"read","name":"ci"}`, &ck)
		if !strings.HasPrefix(ck.Key, mnemo.KeyPrefix) || ck.Bank != "a" || ck.Scope != memory.ScopeRead || ck.Name != "ci" {
			t.Fatalf("created %+v", ck)
		}
		e.must(http.StatusOK, ck.Key, "GET", "/v1/banks/a/stats", nil, nil)
		e.fails("new key on b", http.StatusNotFound, memory.ENOTFOUND, ck.Key, "GET", "/v1/banks/b/stats", nil)
		_, body := e.do(root, "GET", "/v1/keys", nil)
		if bytes.Contains(body, []byte(ck.Key)) || !bytes.Contains(body, []byte(ck.ID)) {
			t.Errorf("key list must name %s and never its secret: %s", ck.ID, body)
		}
		var kl wire.KeyList
		e.must(http.StatusOK, root, "GET", "/v1/keys?bank=a", nil, &kl)
		for _, k := range kl.Keys {
			if k.Bank != "a" {
				t.Errorf("?bank=a lists %+v", k)
			}
		}
		e.fails("key for an unknown bank", http.StatusNotFound, memory.ENOTFOUND, root, "POST", "/v1/keys", `{"bank":"zz","scope":"read"}`)
		e.fails("bad scope", http.StatusUnprocessableEntity, memory.EINVALID, root, "POST", "/v1/keys", `{"bank":"a","scope":"god"}`)
		e.fails("expiry in the past", http.StatusBadRequest, memory.EINVALID, root, "POST", "/v1/keys", `{"bank":"a","scope":"read","expires_at":"2001-01-01"}`)
		var rev wire.Key
		e.must(http.StatusOK, root, "DELETE", "/v1/keys/"+ck.ID, nil, &rev)
		if rev.ID != ck.ID || rev.RevokedAt == nil {
			t.Errorf("revoke answered %+v", rev)
		}
		e.fails("revoked key", http.StatusUnauthorized, memory.EUNAUTHORIZED, ck.Key, "GET", "/v1/banks/a/stats", nil)
		e.fails("unknown key id", http.StatusNotFound, memory.ENOTFOUND, root, "DELETE", "/v1/keys/key_nope", nil)
	})
}

// engStats is bank's counts, from the engine.
func (e *env) engStats(bank string) *memory.Stats {
	e.t.Helper()
	st, err := e.eng.Stats(e.t.Context(), bank)
	if err != nil {
		e.t.Fatal(err)
	}
	return st
}

// bearer adds an Authorization header to every request.
type bearer struct {
	key  string
	next http.RoundTripper
}

// RoundTrip sends r with the key.
func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.key != "" {
		r.Header.Set("Authorization", "Bearer "+b.key)
	}
	return b.next.RoundTrip(r)
}

// connectMCP connects the SDK's streamable client to e's /mcp with key.
func (e *env) connectMCP(key string) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: e.srv.URL + httpapi.MCPPath, HTTPClient: &http.Client{Transport: bearer{key, http.DefaultTransport}}}
	cs, err := c.Connect(e.t.Context(), tr, nil)
	if err == nil {
		e.t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// callText calls tool and returns whether it failed and its text.
func callText(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (bool, string) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return res.IsError, b.String()
}

func TestServer_MCP(t *testing.T) {
	clk := &clock{t: time.Now().UTC()}
	e := newKeyEnv(t, clk)
	for _, b := range []string{"a", "b"} {
		if _, err := e.eng.CreateBank(t.Context(), b); err != nil {
			t.Fatal(err)
		}
	}
	root, _ := e.key(memory.AllBanks, memory.ScopeAdmin, time.Time{})
	aWrite, _ := e.key("a", memory.ScopeWrite, time.Time{})
	aRead, _ := e.key("a", memory.ScopeRead, time.Time{})
	revoked, rk := e.key("a", memory.ScopeWrite, time.Time{})
	if _, err := e.eng.RevokeKey(t.Context(), rk.ID); err != nil {
		t.Fatal(err)
	}
	e.must(http.StatusOK, root, "POST", "/v1/banks/b/memories", wire.Retain{Text: "The vault code of bank b is 4711."}, nil)

	t.Run("OK", func(t *testing.T) {
		cs, err := e.connectMCP(aWrite)
		if err != nil {
			t.Fatal(err)
		}
		tools, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, tl := range tools.Tools {
			names[tl.Name] = true
		}
		for _, want := range []string{"retain", "recall", "forget", "block_read", "block_write"} {
			if !names[want] {
				t.Errorf("tools %v lack %s", names, want)
			}
		}
		if bad, out := callText(t, cs, "retain", map[string]any{"text": "Frank plays the cello on Sundays."}); bad {
			t.Fatalf("retain: %s", out)
		}
		if bad, out := callText(t, cs, "recall", map[string]any{"query": "What does Frank play?"}); bad || !strings.Contains(out, "cello") {
			t.Errorf("recall = %v %q, want the cello", bad, out)
		}
		if st := e.engStats("a"); st.Documents != 1 {
			t.Errorf("bank a after an MCP retain: %+v", st)
		}
	})
	t.Run("ErrOtherBank", func(t *testing.T) {
		cs, err := e.connectMCP(aWrite)
		if err != nil {
			t.Fatal(err)
		}
		for tool, args := range map[string]map[string]any{
			"recall": {"query": "vault code", "bank": "b"},
			"retain": {"text": "Mallory was here", "bank": "b"},
		} {
			bad, out := callText(t, cs, tool, args)
			if !bad || !strings.Contains(out, `unknown bank "b"`) || strings.Contains(out, "4711") {
				t.Errorf("%s in bank b with a's key: %v %q", tool, bad, out)
			}
		}
		if st := e.engStats("b"); st.Documents != 1 {
			t.Errorf("bank b changed: %+v", st)
		}
	})
	t.Run("ErrReadKeyWrites", func(t *testing.T) {
		cs, err := e.connectMCP(aRead)
		if err != nil {
			t.Fatal(err)
		}
		if bad, out := callText(t, cs, "retain", map[string]any{"text": "Oslo is cold."}); !bad {
			t.Errorf("a read key retained: %q", out)
		}
		if bad, out := callText(t, cs, "recall", map[string]any{"query": "cello"}); bad {
			t.Errorf("a read key cannot recall: %q", out)
		}
	})
	t.Run("KeyForAll", func(t *testing.T) {
		cs, err := e.connectMCP(root)
		if err != nil {
			t.Fatal(err)
		}
		if bad, out := callText(t, cs, "recall", map[string]any{"query": "vault code", "bank": "b"}); bad || !strings.Contains(out, "4711") {
			t.Errorf("a key for every bank recalls in b: %v %q", bad, out)
		}
	})
	t.Run("ErrBadKey", func(t *testing.T) {
		for name, k := range map[string]string{"none": "", "revoked": revoked, "unknown": "nope"} {
			if _, err := e.connectMCP(k); err == nil {
				t.Errorf("%s key connected", name)
			}
			status, body := e.do(k, "POST", httpapi.MCPPath, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			e.wantError(name+" key on /mcp", status, body, http.StatusUnauthorized, memory.EUNAUTHORIZED)
		}
	})
}
