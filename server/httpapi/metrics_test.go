package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
	"github.com/mnemo-ai/mnemo/wire"
)

// TestServer_Metrics checks /metrics counts what was asked: requests by
// route and status, retains and recalls, errors by code, the job queue.
func TestServer_Metrics(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks", wire.CreateBank{Name: "a"}, nil)
	e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/a/memories", wire.Retain{Text: "Alice likes tea"}, nil)
	e.must(http.StatusAccepted, keyRoot, "POST", "/v1/banks/a/memories", wire.Retain{Text: "Alice likes jazz", Async: true}, nil)
	e.must(http.StatusAccepted, keyRoot, "POST", "/v1/banks/a/memories", wire.Retain{Text: "Alice likes rain", Async: true}, nil)
	for range 3 {
		e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/a/recall", wire.RecallRequest{Query: "tea"}, nil)
	}
	e.do(keyRoot, "GET", "/v1/banks/nope/stats", nil)
	e.do("", "GET", "/v1/banks", nil)

	code, body := e.do("", "GET", "/metrics", nil)
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	text := string(body)
	for _, want := range []string{
		`mnemo_http_request_duration_seconds_count{route="POST /v1/banks/{bank}/recall",status="200"} 3`,
		`mnemo_http_request_duration_seconds_count{route="POST /v1/banks/{bank}/memories",status="202"} 2`,
		`mnemo_http_request_duration_seconds_count{route="GET /v1/banks/{bank}/stats",status="404"} 1`,
		`mnemo_retain_duration_seconds_count{mode="sync",outcome="ok"} 1`,
		`mnemo_retain_duration_seconds_count{mode="async",outcome="ok"} 2`,
		`mnemo_recall_duration_seconds_count{outcome="ok"} 3`,
		`mnemo_http_errors_total{code="not_found"} 1`,
		`mnemo_http_errors_total{code="unauthorized"} 1`,
		`mnemo_jobs{status="queued"} 2`,
		`mnemo_jobs{status="done"} 0`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", grep(text, "mnemo_"))
	}
}

// grep keeps the lines of s that contain sub.
func grep(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestServer_OpenAPI checks the OpenAPI document is served, is JSON of
// version 3.1, and lists the contract's paths; and that the docs page and
// the health checks answer without a key.
func TestServer_OpenAPI(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	code, body := e.do("", "GET", "/openapi.json", nil)
	if code != http.StatusOK {
		t.Fatalf("/openapi.json: %d", code)
	}
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("/openapi.json is not JSON: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Errorf("openapi = %q, want 3.1", doc.OpenAPI)
	}
	for path, methods := range map[string]string{
		"/v1/banks":                                  "get post",
		"/v1/banks/{bank}":                           "get patch delete",
		"/v1/banks/{bank}/memories":                  "post",
		"/v1/banks/{bank}/recall":                    "post",
		"/v1/banks/{bank}/jobs":                      "get",
		"/v1/banks/{bank}/jobs/{id}":                 "get",
		"/v1/banks/{bank}/documents/{source}/{item}": "get",
		"/v1/banks/{bank}/stats":                     "get",
		"/v1/banks/{bank}/export":                    "get",
		"/v1/banks/{bank}/import":                    "post",
		"/healthz":                                   "get",
		"/readyz":                                    "get",
	} {
		for _, m := range strings.Fields(methods) {
			if _, ok := doc.Paths[path][m]; !ok {
				t.Errorf("OpenAPI lacks %s %s", m, path)
			}
		}
	}
	var full struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]struct {
					Schema struct {
						Ref string `json:"$ref"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	json.Unmarshal(body, &full)
	for status, want := range map[string]string{"200": "#/components/schemas/RetainResult", "202": "#/components/schemas/Job"} {
		if got := full.Paths["/v1/banks/{bank}/memories"]["post"].Responses[status].Content["application/json"].Schema.Ref; got != want {
			t.Errorf("retain %s schema = %q, want %q", status, got, want)
		}
	}
	if code, body := e.do("", "GET", "/docs", nil); code != http.StatusOK || !strings.Contains(string(body), "<html") {
		t.Errorf("/docs: %d", code)
	}
	var h wire.Health
	e.must(http.StatusOK, "", "GET", "/healthz", nil, &h)
	e.must(http.StatusOK, "", "GET", "/readyz", nil, &h)
	if h.Status != "ready" {
		t.Errorf("/readyz = %+v", h)
	}
}

// TestServer_Mount serves an extra handler behind the key check, with the
// principal in its context.
func TestServer_Mount(t *testing.T) {
	var seen string
	var srv *httpapi.Server
	var errA, errB, errWrite error
	extra := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := httpapi.PrincipalFrom(r.Context())
		seen = p.KeyID
		errA = srv.Authorize(r.Context(), "a", httpapi.ScopeRead)
		errB = srv.Authorize(r.Context(), "b", httpapi.ScopeRead)
		errWrite = srv.Authorize(r.Context(), "a", httpapi.ScopeWrite)
		w.WriteHeader(http.StatusNoContent)
	})
	e := newEnv(t, httpapi.Options{})
	srv = httpapi.New(e.eng, httpapi.Options{Auth: testAuth, Logger: slogTo(e.log), Extra: map[string]http.Handler{"/mcp": extra}})
	e.srv.Config.Handler = srv
	e.fails("extra without key", http.StatusUnauthorized, "unauthorized", "", "POST", "/mcp", "{}")
	if seen != "" {
		t.Fatalf("extra handler ran without a key")
	}
	if code, _ := e.do(keyARead, "POST", "/mcp", "{}"); code != http.StatusNoContent || seen != "a-read" {
		t.Errorf("extra with key: %d, principal %q", code, seen)
	}
	if errA != nil || memory.ErrorCode(errB) != memory.ENOTFOUND || memory.ErrorCode(errWrite) != memory.EFORBIDDEN {
		t.Errorf("Authorize(a read, b read, a write) = %v, %v, %v; want nil, not_found, forbidden", errA, errB, errWrite)
	}
}
