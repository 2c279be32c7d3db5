package mcpserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/server/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds an Authorization header to every request.
type bearer struct {
	key  string
	next http.RoundTripper
}

// RoundTrip sends r with the key.
func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.next.RoundTrip(r)
}

// serveHTTP serves the engine's MCP handler behind a bearer check that
// knows three keys: "key-a", bound to bank a, "key-a-read", the same
// with read scope only, and "key-all", bound to none.
func serveHTTP(t *testing.T) *httptest.Server {
	t.Helper()
	eng := openEngine(t)
	for _, b := range []string{"a", "b"} {
		if _, err := eng.CreateBank(t.Context(), b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := eng.Retain(t.Context(), mnemoRetain("b", "The vault code of bank b is 4711.")); err != nil {
		t.Fatal(err)
	}
	verify := func(_ context.Context, key string, _ *http.Request) (*auth.TokenInfo, error) {
		exp := time.Now().Add(time.Hour)
		switch key {
		case "key-a":
			return &auth.TokenInfo{UserID: key, Expiration: exp, Scopes: []string{mcpserver.ScopeWrite}, Extra: map[string]any{mcpserver.BankClaim: "a"}}, nil
		case "key-a-read":
			return &auth.TokenInfo{UserID: key, Expiration: exp, Scopes: []string{"read"}, Extra: map[string]any{mcpserver.BankClaim: "a"}}, nil
		case "key-all":
			return &auth.TokenInfo{UserID: key, Expiration: exp, Scopes: []string{mcpserver.ScopeAdmin}}, nil
		}
		return nil, auth.ErrInvalidToken
	}
	h := auth.RequireBearerToken(verify, nil)(mcpserver.Handler(eng, mcpserver.Options{}))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// connectHTTP connects an SDK client to srv with key.
func connectHTTP(t *testing.T, srv *httptest.Server, key string) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{key, http.DefaultTransport}}}
	cs, err := c.Connect(t.Context(), tr, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func TestHandler(t *testing.T) {
	srv := serveHTTP(t)
	t.Run("OK", func(t *testing.T) {
		cs, err := connectHTTP(t, srv, "key-a")
		if err != nil {
			t.Fatal(err)
		}
		tools, err := cs.ListTools(t.Context(), nil)
		if err != nil || len(tools.Tools) < 3 {
			t.Fatalf("list tools: %v, %v", tools, err)
		}
		if out := retain(t, cs, map[string]any{"text": "Frank plays the cello on Sundays."}); !out.Stored || out.Bank != "a" {
			t.Fatalf("retain over HTTP = %+v, want stored in bank a", out)
		}
		res, page := recall(t, cs, map[string]any{"query": "What does Frank play?"})
		if len(page.Results) == 0 || !strings.Contains(text(res), "cello") {
			t.Errorf("recall over HTTP = %q", text(res))
		}
	})
	t.Run("KeyBank", func(t *testing.T) {
		cs, err := connectHTTP(t, srv, "key-a")
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range []string{"retain", "remember", "recall"} {
			res := call(t, cs, tool, toolArgs(tool, "b"))
			if !res.IsError || !strings.Contains(text(res), `unknown bank "b"`) || strings.Contains(text(res), "4711") {
				t.Errorf("%s in bank b with the key for a: %q", tool, text(res))
			}
		}
		_, page := recall(t, cs, map[string]any{"query": "vault code"})
		for _, r := range page.Results {
			if strings.Contains(r.Text, "4711") {
				t.Errorf("the key for a recalled %q", r.Text)
			}
		}
	})
	t.Run("KeyForAll", func(t *testing.T) {
		cs, err := connectHTTP(t, srv, "key-all")
		if err != nil {
			t.Fatal(err)
		}
		res, _ := recall(t, cs, map[string]any{"query": "vault code", "bank": "b"})
		if !strings.Contains(text(res), "4711") {
			t.Errorf("a key for every bank cannot read bank b: %q", text(res))
		}
	})
	t.Run("ErrReadOnlyKey", func(t *testing.T) {
		cs, err := connectHTTP(t, srv, "key-a-read")
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range []string{"retain", "remember", "block_write", "forget"} {
			res := call(t, cs, tool, toolArgs(tool, ""))
			if !res.IsError || !strings.Contains(text(res), "forbidden") {
				t.Errorf("%s with a read-only key: %q", tool, text(res))
			}
		}
		if _, page := recall(t, cs, map[string]any{"query": "Oslo"}); len(page.Results) != 0 {
			t.Errorf("a read-only key's retain landed: %+v", page.Results)
		}
	})
	t.Run("ErrWrongKey", func(t *testing.T) {
		if _, err := connectHTTP(t, srv, "key-wrong"); err == nil {
			t.Error("a wrong key connected")
		}
	})
}
