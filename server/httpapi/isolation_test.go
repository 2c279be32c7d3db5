package httpapi_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
	"github.com/mnemo-ai/mnemo/wire"
)

// TestServer_Isolation drives every bank route with keys of bank a
// against bank b, which exists and holds data: each answer is exactly the
// answer for a bank that does not exist (404, same body), holds none of
// b's data, and b is unchanged afterwards. A key of bank a lists only a.
func TestServer_Isolation(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	for _, b := range []string{"a", "b"} {
		e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks", wire.CreateBank{Name: b}, nil)
	}
	const secret = "Bob keeps the spare key under the blue flowerpot"
	var res wire.RetainResult
	e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/b/memories", wire.Retain{Text: secret, Source: "note", ItemID: "n1"}, &res)
	var job wire.Job
	e.must(http.StatusAccepted, keyRoot, "POST", "/v1/banks/b/memories", wire.Retain{Text: "Bob likes jazz", Async: true}, &job)
	bob, err := e.eng.UpsertEntity(t.Context(), "b", mnemo.EntityInput{Name: "Bob", Type: "person"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.eng.WriteBlock(t.Context(), "b", "persona", "Bob hides keys under the flowerpot", mnemo.BlockOptions{}); err != nil {
		t.Fatal(err)
	}
	facts, err := e.eng.Facts(t.Context(), "b", memory.FactQuery{})
	if err != nil || len(facts.Facts) == 0 {
		t.Fatalf("facts of b: %v, %v", facts, err)
	}
	fact := facts.Facts[0].ID
	before := e.stats("b")
	_, export := e.do(keyRoot, "GET", "/v1/banks/b/export", nil)

	routes := []struct {
		method, path string // %s is the bank
		body         any
	}{
		{"GET", "/v1/banks/%s", nil},
		{"PATCH", "/v1/banks/%s", `{"empathy":1}`},
		{"DELETE", "/v1/banks/%s", nil},
		{"POST", "/v1/banks/%s/memories", `{"text":"Mallory was here"}`},
		{"POST", "/v1/banks/%s/memories", `{"text":"Mallory was here","async":true}`},
		{"POST", "/v1/banks/%s/recall", `{"query":"where is the spare key","history":true,"archived":true}`},
		{"GET", "/v1/banks/%s/jobs", nil},
		{"GET", "/v1/banks/%s/jobs/" + job.ID, nil},
		{"GET", "/v1/banks/%s/documents/note/n1", nil},
		{"GET", "/v1/banks/%s/stats", nil},
		{"GET", "/v1/banks/%s/export", nil},
		{"POST", "/v1/banks/%s/import", export},
		{"POST", "/v1/banks/%s/forget", `{"ids":["` + fact + `"]}`},
		{"POST", "/v1/banks/%s/forget", `{"query":"spare key","dry_run":true}`},
		{"GET", "/v1/banks/%s/forget/log", nil},
		{"GET", "/v1/banks/%s/facts", nil},
		{"GET", "/v1/banks/%s/facts/" + fact, nil},
		{"POST", "/v1/banks/%s/facts/invalidate", `{"ids":["` + fact + `"]}`},
		{"POST", "/v1/banks/%s/facts/restore", `{"ids":["` + fact + `"]}`},
		{"GET", "/v1/banks/%s/about/Bob", nil},
		{"GET", "/v1/banks/%s/entities", nil},
		{"GET", "/v1/banks/%s/entities/" + bob.ID, nil},
		{"POST", "/v1/banks/%s/entities", `{"name":"Mallory"}`},
		{"GET", "/v1/banks/%s/relations", nil},
		{"POST", "/v1/banks/%s/relations", `{"subject":"Bob","predicate":"knows","object":"Bob"}`},
		{"GET", "/v1/banks/%s/blocks", nil},
		{"GET", "/v1/banks/%s/blocks/persona", nil},
		{"PUT", "/v1/banks/%s/blocks/persona", `{"value":"Mallory"}`},
		{"POST", "/v1/banks/%s/blocks/persona/append", `{"text":"Mallory"}`},
		{"POST", "/v1/banks/%s/blocks/persona/replace", `{"old":"Bob","new":"Mallory"}`},
		{"DELETE", "/v1/banks/%s/blocks/persona", nil},
		{"POST", "/v1/banks/%s/consolidate", `{"pass":"lifecycle"}`},
		{"POST", "/v1/banks/%s/consolidate", `{"pass":"nope"}`},
		{"GET", "/v1/banks/%s/runs", nil},
		{"GET", "/v1/banks/%s/tiers", nil},
		{"GET", "/v1/banks/%s/observations", nil},
		{"GET", "/v1/banks/%s/dreams", nil},
		{"POST", "/v1/banks/%s/observations/restore", `{"ids":["o1"]}`},
	}
	for _, key := range []string{keyAAdmin, keyARead} {
		for _, r := range routes {
			name := key + " " + r.method + " " + r.path
			t.Run(name, func(t *testing.T) {
				status, body := e.do(key, r.method, strings.ReplaceAll(r.path, "%s", "b"), r.body)
				e.wantError(name, status, body, http.StatusNotFound, memory.ENOTFOUND)
				_, unknown := e.do(key, r.method, strings.ReplaceAll(r.path, "%s", "zz"), r.body)
				want := bytes.ReplaceAll(unknown, []byte(`"zz"`), []byte(`"b"`))
				want = bytes.ReplaceAll(want, []byte(`\"zz\"`), []byte(`\"b\"`))
				if !bytes.Equal(body, want) {
					t.Errorf("bank b answers\n%s\nbut an unknown bank answers\n%s", body, unknown)
				}
				for _, leak := range []string{"flowerpot", "jazz", res.DocumentID, fact, bob.ID} {
					if bytes.Contains(body, []byte(leak)) {
						t.Errorf("answer leaks %q: %s", leak, body)
					}
				}
			})
		}
	}
	if after := e.stats("b"); after != before {
		t.Errorf("bank b changed: %+v → %+v", before, after)
	}
	if blk, err := e.eng.Blocks(t.Context(), "b"); err != nil || blk[0].Value != "Bob hides keys under the flowerpot" {
		t.Errorf("bank b's persona changed: %+v, %v", blk, err)
	}
	if log, err := e.eng.ForgetLog(t.Context(), "b", 0); err != nil || len(log) != 0 {
		t.Errorf("bank b has forget records %+v, %v", log, err)
	}
	if rs, _ := e.eng.Runs(t.Context(), "b", 0); len(rs) != 0 {
		t.Errorf("bank b has %d consolidation runs, want none", len(rs))
	}
	if jobs, _ := e.eng.Jobs(t.Context(), "b", 0); len(jobs) != 1 {
		t.Errorf("bank b has %d jobs, want its 1", len(jobs))
	}
	var list wire.BankList
	e.must(http.StatusOK, keyARead, "GET", "/v1/banks", nil, &list)
	if len(list.Banks) != 1 || list.Banks[0].Name != "a" {
		t.Errorf("a's key lists %+v, want only a", list.Banks)
	}
	e.fails("a's key creates b2", http.StatusForbidden, "forbidden", keyAAdmin, "POST", "/v1/banks", `{"name":"b2"}`)
	e.fails("a's key creates b (exists)", http.StatusForbidden, "forbidden", keyAAdmin, "POST", "/v1/banks", `{"name":"b"}`)
	// Its own bank works.
	e.must(http.StatusOK, keyARead, "GET", "/v1/banks/a/stats", nil, nil)
}
