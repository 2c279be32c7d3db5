package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/wire"
)

// TestServe_Keys runs `mnemo serve` without --insecure-local: keys made
// by `mnemo keys create --json` open their bank at their scope, nothing
// else, and /mcp answers behind the same check.
func TestServe_Keys(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "bank", "create", "alice")
	mustRun(t, db, "bank", "create", "bob")
	var write, read wire.CreatedKey
	decodeStrict(t, mustRun(t, db, "--json", "keys", "create", "--bank", "alice", "--scope", "write"), &write)
	decodeStrict(t, mustRun(t, db, "--json", "keys", "create", "--bank", "alice", "--scope", "read"), &read)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"--db", db, "--json", "serve", "--addr", "127.0.0.1:0"}, strings.NewReader(""), &stdout, &stderr)
	}()
	waitFor(t, "serve address", &stdout, "\n", 1)
	var started struct{ Addr string }
	if err := json.Unmarshal([]byte(stdout.String()), &started); err != nil || started.Addr == "" {
		t.Fatalf("serve printed %q: %v", stdout.String(), err)
	}
	do := func(key, method, path, body string, want int) {
		t.Helper()
		req, _ := http.NewRequest(method, "http://"+started.Addr+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != want {
			t.Errorf("%s %s: %d, want %d: %s", method, path, res.StatusCode, want, b)
		}
	}
	do(write.Key, "POST", "/v1/banks/alice/memories", `{"text":"Alice moved to Lisbon."}`, http.StatusOK)
	do(read.Key, "POST", "/v1/banks/alice/recall", `{"query":"Where does Alice live?"}`, http.StatusOK)
	do(read.Key, "POST", "/v1/banks/alice/memories", `{"text":"Mallory was here."}`, http.StatusForbidden)
	do(write.Key, "GET", "/v1/banks/bob", "", http.StatusNotFound)
	do("", "GET", "/v1/banks/alice", "", http.StatusUnauthorized)
	do("mnemo_wrong", "GET", "/v1/banks/alice", "", http.StatusUnauthorized)
	do(write.Key, "GET", "/v1/keys", "", http.StatusForbidden)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	do(write.Key, "POST", "/mcp", initialize, http.StatusOK)
	do("", "POST", "/mcp", initialize, http.StatusUnauthorized)

	cancel()
	select {
	case c := <-code:
		if c != exitOK {
			t.Fatalf("serve exited %d: %s", c, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	if st := stats(t, db, "alice"); st.Documents != 1 {
		t.Errorf("alice after serve: %+v, want the one retained document", st)
	}
}
