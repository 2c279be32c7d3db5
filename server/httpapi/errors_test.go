package httpapi_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
	"github.com/mnemo-ai/mnemo/wire"
)

// TestServer_BadInput sends every kind of bad request and checks each
// gets its status and the one error shape, and that nothing was written.
func TestServer_BadInput(t *testing.T) {
	const maxBody = 2 << 10
	e := newEnv(t, httpapi.Options{MaxBody: maxBody, MaxImport: 2 * maxBody})
	e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks", wire.CreateBank{Name: "a"}, nil)
	before := e.stats("a")
	retain := "/v1/banks/a/memories"
	for _, c := range []struct {
		name         string
		key          string
		method, path string
		body         any
		status       int
		code         string
	}{
		{"malformed JSON", keyRoot, "POST", retain, `{"text": "Alice`, http.StatusBadRequest, memory.EINVALID},
		{"not an object", keyRoot, "POST", retain, `["Alice"]`, http.StatusUnprocessableEntity, memory.EINVALID},
		{"unknown field", keyRoot, "POST", retain, `{"text":"Alice likes tea","colour":"red"}`, http.StatusUnprocessableEntity, memory.EINVALID},
		{"missing text", keyRoot, "POST", retain, `{"speaker":"Alice"}`, http.StatusUnprocessableEntity, memory.EINVALID},
		{"empty text", keyRoot, "POST", retain, `{"text":"  "}`, http.StatusBadRequest, memory.EINVALID},
		{"huge body", keyRoot, "POST", retain, `{"text":"` + strings.Repeat("tea ", maxBody) + `"}`, http.StatusRequestEntityTooLarge, memory.EINVALID},
		{"invalid UTF-8", keyRoot, "POST", retain, "{\"text\":\"Alice likes t\xffa\"}", http.StatusBadRequest, memory.EINVALID},
		{"bad time", keyRoot, "POST", retain, `{"text":"Alice likes tea","occurred_at":"last blue moon"}`, http.StatusBadRequest, memory.EINVALID},
		{"unknown bank", keyRoot, "POST", "/v1/banks/nope/memories", `{"text":"Alice likes tea"}`, http.StatusNotFound, memory.ENOTFOUND},
		{"unknown bank async", keyRoot, "POST", "/v1/banks/nope/memories", `{"text":"Alice likes tea","async":true}`, http.StatusNotFound, memory.ENOTFOUND},
		{"missing key", "", "POST", retain, `{"text":"Alice likes tea"}`, http.StatusUnauthorized, memory.EUNAUTHORIZED},
		{"wrong key", "not-a-key", "POST", retain, `{"text":"Alice likes tea"}`, http.StatusUnauthorized, memory.EUNAUTHORIZED},
		{"read key writes", keyARead, "POST", retain, `{"text":"Alice likes tea"}`, http.StatusForbidden, memory.EFORBIDDEN},
		{"bad kind", keyRoot, "POST", "/v1/banks/a/recall", `{"query":"tea","kinds":["dream"]}`, http.StatusBadRequest, memory.EINVALID},
		{"bad category", keyRoot, "POST", "/v1/banks/a/recall", `{"query":"tea","categories":["gossip"]}`, http.StatusBadRequest, memory.EINVALID},
		{"bad format", keyRoot, "POST", "/v1/banks/a/recall", `{"query":"tea","format":"xml"}`, http.StatusUnprocessableEntity, memory.EINVALID},
		{"bad as_of", keyRoot, "POST", "/v1/banks/a/recall", `{"query":"tea","as_of":"soon"}`, http.StatusBadRequest, memory.EINVALID},
		{"to before from", keyRoot, "POST", "/v1/banks/a/recall", `{"query":"tea","from":"2024-05-01","to":"2024-01-01"}`, http.StatusBadRequest, memory.EINVALID},
		{"bad bank name", keyRoot, "POST", "/v1/banks", `{"name":"../etc"}`, http.StatusBadRequest, memory.EINVALID},
		{"unknown route", keyRoot, "GET", "/v1/nothing", nil, http.StatusNotFound, ""},
		{"unknown query parameter", keyRoot, "GET", "/v1/banks/a/jobs?limt=5", nil, http.StatusUnprocessableEntity, memory.EINVALID},
		{"negative limit", keyRoot, "GET", "/v1/banks/a/jobs?limit=-1", nil, http.StatusUnprocessableEntity, memory.EINVALID},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := e.do(c.key, c.method, c.path, c.body)
			if c.code == "" {
				if status != c.status {
					t.Errorf("status %d, want %d", status, c.status)
				}
				return
			}
			e.wantError(c.name, status, body, c.status, c.code)
		})
	}
	// Imports: a real export of a, spoiled.
	_, export := e.do(keyRoot, "GET", "/v1/banks/a/export", nil)
	head, _, _ := bytes.Cut(export, []byte("\n"))
	e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks/imp0/import", export, nil) // the unspoiled one lands
	bad := bytes.Replace(head, []byte(`"a"`), []byte("\"a\xff\""), 1)
	if bytes.Equal(bad, head) {
		t.Fatalf("export header %s does not name bank a", head)
	}
	msg := e.fails("import invalid UTF-8", http.StatusBadRequest, memory.EINVALID, keyRoot, "POST", "/v1/banks/imp1/import", append(bad, '\n'))
	if !bytes.Contains(msg, []byte("UTF-8")) {
		t.Errorf("import of invalid UTF-8 refused for another reason: %s", msg)
	}
	huge := append(append(head, '\n'), bytes.Repeat([]byte("\n"), 4*maxBody)...)
	e.fails("import too large", http.StatusRequestEntityTooLarge, memory.EINVALID, keyRoot, "POST", "/v1/banks/imp2/import", huge)
	for _, b := range []string{"imp1", "imp2"} {
		e.fails("failed import leaves no bank", http.StatusNotFound, memory.ENOTFOUND, keyRoot, "GET", "/v1/banks/"+b, nil)
	}
	e.must(http.StatusOK, keyRoot, "DELETE", "/v1/banks/imp0", nil, nil)

	if after := e.stats("a"); after != before {
		t.Errorf("bad requests changed bank a: %+v → %+v", before, after)
	}
	var list wire.BankList
	e.must(http.StatusOK, keyRoot, "GET", "/v1/banks", nil, &list)
	if len(list.Banks) != 1 {
		t.Errorf("bad requests created banks: %+v", list.Banks)
	}
	if n, _ := e.eng.Jobs(t.Context(), "a", 0); len(n) != 0 {
		t.Errorf("bad requests queued %d jobs", len(n))
	}
}

// TestServer_InsecureLocal serves requests without a key only with
// InsecureLocal and only from a loopback peer; a key sent is still
// checked.
func TestServer_InsecureLocal(t *testing.T) {
	e := newEnv(t, httpapi.Options{InsecureLocal: true})
	e.must(http.StatusCreated, "", "POST", "/v1/banks", wire.CreateBank{Name: "a"}, nil)
	e.must(http.StatusOK, "", "GET", "/v1/banks/a/stats", nil, nil)
	e.fails("wrong key under insecure-local", http.StatusUnauthorized, memory.EUNAUTHORIZED, "not-a-key", "GET", "/v1/banks/a/stats", nil)

	h := httpapi.New(e.eng, httpapi.Options{InsecureLocal: true, Auth: testAuth, Logger: slogTo(e.log)})
	req := httptest.NewRequest("GET", "/v1/banks", nil)
	req.RemoteAddr = "192.0.2.7:4000"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	e.wantError("remote peer without key", rec.Code, rec.Body.Bytes(), http.StatusUnauthorized, memory.EUNAUTHORIZED)

	off := newEnv(t, httpapi.Options{})
	off.fails("no key without insecure-local", http.StatusUnauthorized, memory.EUNAUTHORIZED, "", "GET", "/v1/banks", nil)
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:7077": true, "[::1]:80": true, "localhost:1": true, "127.1.2.3": true,
		"0.0.0.0:7077": false, ":7077": false, "192.168.1.2:80": false, "example.com:80": false,
	} {
		if got := httpapi.IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
