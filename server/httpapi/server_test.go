package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
	"github.com/mnemo-ai/mnemo/wire"
)

// fakeAuth is a test Authenticator: secrets map to principals; a
// principal with a Bank reaches only that bank; scopes nest read ⊂ write
// ⊂ admin.
type fakeAuth map[string]httpapi.Principal

func (f fakeAuth) Authenticate(_ context.Context, secret string) (httpapi.Principal, error) {
	p, ok := f[secret]
	if !ok {
		return httpapi.Principal{}, memory.Errorf(memory.EUNAUTHORIZED, "unknown key")
	}
	return p, nil
}

var scopeRank = map[httpapi.Scope]int{httpapi.ScopeRead: 1, httpapi.ScopeWrite: 2, httpapi.ScopeAdmin: 3}

func (f fakeAuth) Authorize(p httpapi.Principal, bank string, need httpapi.Scope) error {
	if p.Bank != "" && p.Bank != bank {
		return errors.New("other bank")
	}
	if scopeRank[p.Scope] < scopeRank[need] {
		return errors.New("scope")
	}
	return nil
}

// Keys of the tests' fakeAuth.
const (
	keyRoot   = "root-secret"    // every bank, admin
	keyAAdmin = "a-admin-secret" // bank a, admin
	keyARead  = "a-read-secret"  // bank a, read
)

var testAuth = fakeAuth{
	keyRoot:   {KeyID: "root", Scope: httpapi.ScopeAdmin},
	keyAAdmin: {KeyID: "a-admin", Bank: "a", Scope: httpapi.ScopeAdmin},
	keyARead:  {KeyID: "a-read", Bank: "a", Scope: httpapi.ScopeRead},
}

// env is a real server over a real engine on a temp SQLite file.
type env struct {
	t   *testing.T
	eng *mnemo.Engine
	srv *httptest.Server
	log *bytes.Buffer
}

func newEnv(t *testing.T, opts httpapi.Options) *env {
	t.Helper()
	eng, err := mnemo.Open(t.Context(), mnemo.Config{DB: filepath.Join(t.TempDir(), "mnemo.db"), JobPoll: -1, SessionIdle: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if opts.Auth == nil {
		opts.Auth = testAuth
	}
	e := &env{t: t, eng: eng, log: &bytes.Buffer{}}
	opts.Logger = slogTo(e.log)
	e.srv = httptest.NewServer(httpapi.New(eng, opts))
	t.Cleanup(e.srv.Close)
	return e
}

// do sends body (a string is sent as is, anything else as JSON) with key
// (none when empty) and returns the status and body.
func (e *env) do(key, method, path string, body any) (int, []byte) {
	e.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(e.t.Context(), method, e.srv.URL+path, r)
	if err != nil {
		e.t.Fatal(err)
	}
	if r != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return res.StatusCode, out
}

// must sends the request and decodes the answer into out (if not nil),
// failing unless the status is want.
func (e *env) must(want int, key, method, path string, body, out any) {
	e.t.Helper()
	got, b := e.do(key, method, path, body)
	if got != want {
		e.t.Fatalf("%s %s: status %d, want %d: %s", method, path, got, want, b)
	}
	if out != nil {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(out); err != nil {
			e.t.Fatalf("%s %s: decode %T: %v: %s", method, path, out, err, b)
		}
	}
}

// wantError checks an answer is the API's error shape with code.
func (e *env) wantError(what string, status int, body []byte, wantStatus int, wantCode string) {
	e.t.Helper()
	if status != wantStatus {
		e.t.Errorf("%s: status %d, want %d: %s", what, status, wantStatus, body)
	}
	var we wire.Error
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&we); err != nil {
		e.t.Errorf("%s: not the error shape: %v: %s", what, err, body)
		return
	}
	if we.Error.Code != wantCode || we.Error.Message == "" {
		e.t.Errorf("%s: error %+v, want code %q and a message", what, we.Error, wantCode)
	}
}

func (e *env) stats(bank string) wire.Stats {
	e.t.Helper()
	var st wire.Stats
	e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/"+bank+"/stats", nil, &st)
	return st
}

func TestServer_EndToEnd(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	var b wire.Bank
	e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks", wire.CreateBank{Name: "alice"}, &b)
	if b.Name != "alice" {
		t.Errorf("created bank %q, want alice", b.Name)
	}
	e.fails("create again", http.StatusConflict, memory.ECONFLICT, keyRoot, "POST", "/v1/banks", wire.CreateBank{Name: "alice"})

	var list wire.BankList
	e.must(http.StatusOK, keyRoot, "GET", "/v1/banks", nil, &list)
	if len(list.Banks) != 1 || list.Banks[0].Name != "alice" {
		t.Errorf("banks = %+v, want alice", list.Banks)
	}

	t.Run("Settings", func(t *testing.T) {
		e.must(http.StatusOK, keyRoot, "PATCH", "/v1/banks/alice", `{"skepticism":4,"mission":"remember trips"}`, &b)
		e.must(http.StatusOK, keyRoot, "PATCH", "/v1/banks/alice", `{"empathy":2}`, &b)
		want := wire.BankSettings{Skepticism: 4, Empathy: 2, Mission: "remember trips"}
		if !reflect.DeepEqual(b.Settings, want) {
			t.Errorf("PATCH answer settings = %+v, want %+v", b.Settings, want)
		}
		e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice", nil, &b)
		if !reflect.DeepEqual(b.Settings, want) {
			t.Errorf("GET settings = %+v, want %+v", b.Settings, want)
		}
		e.fails("empathy 9", http.StatusUnprocessableEntity, memory.EINVALID, keyRoot, "PATCH", "/v1/banks/alice", `{"empathy":9}`)
		e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice", nil, &b)
		if !reflect.DeepEqual(b.Settings, want) {
			t.Errorf("settings after a refused PATCH = %+v, want %+v", b.Settings, want)
		}
	})

	var res wire.RetainResult
	e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/alice/memories", wire.Retain{
		Text: "Alice moved to Lisbon in May 2024.", Speaker: "Alice", OccurredAt: "2024-06-01", Source: "note", ItemID: "note-1", Tags: []string{"move"},
	}, &res)
	if res.Facts == 0 || res.Duplicate {
		t.Fatalf("sync retain = %+v, want facts stored", res)
	}

	var job wire.Job
	e.must(http.StatusAccepted, keyRoot, "POST", "/v1/banks/alice/memories", wire.Retain{Text: "Alice adopted a cat named Miso.", ItemID: "note-2", Async: true}, &job)
	if job.ID == "" || job.Status != memory.JobQueued || job.Bank != "alice" {
		t.Fatalf("async retain = %+v, want a queued job of alice", job)
	}
	if n, err := e.eng.RunJobs(t.Context()); err != nil || n != 1 {
		t.Fatalf("RunJobs = %d, %v; want 1 job run", n, err)
	}
	e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice/jobs/"+job.ID, nil, &job)
	if job.Status != memory.JobDone || len(job.Result) == 0 {
		t.Errorf("job after running = %+v, want done with a result", job)
	}
	var jobs wire.JobList
	e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice/jobs", nil, &jobs)
	if len(jobs.Jobs) != 1 || jobs.Jobs[0].ID != job.ID {
		t.Errorf("jobs = %+v, want the one job %s", jobs.Jobs, job.ID)
	}
	e.fails("unknown job", http.StatusNotFound, memory.ENOTFOUND, keyRoot, "GET", "/v1/banks/alice/jobs/nope", nil)

	t.Run("Recall", func(t *testing.T) {
		var rec wire.Recall
		e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/alice/recall", wire.RecallRequest{Query: "Where does Alice live?", Explain: true, Limit: 5}, &rec)
		if len(rec.Results) == 0 || !strings.Contains(rec.Results[0].Text, "Lisbon") {
			t.Fatalf("recall results = %+v, want Lisbon first", rec.Results)
		}
		if rec.Results[0].Explain == nil {
			t.Errorf("explain asked, result has none: %+v", rec.Results[0])
		}
		if !strings.Contains(rec.Context, "Lisbon") {
			t.Errorf("context %q does not hold Lisbon", rec.Context)
		}
		// A filter that excludes the fact: a tag nothing has.
		e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/alice/recall", wire.RecallRequest{Query: "Where does Alice live?", Tags: []string{"nothing-has-this"}}, &rec)
		for _, r := range rec.Results {
			if strings.Contains(r.Text, "Lisbon") {
				t.Errorf("tag filter kept %q", r.Text)
			}
		}
		// As of before anything was retained: nothing known.
		e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/alice/recall", wire.RecallRequest{Query: "Where does Alice live?", AsOf: "2000-01-01"}, &rec)
		if len(rec.Results) != 0 {
			t.Errorf("as_of 2000 results = %+v, want none", rec.Results)
		}
	})

	t.Run("Document", func(t *testing.T) {
		var d wire.Document
		e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice/documents/note/note-1", nil, &d)
		if d.ItemID != "note-1" || d.Source != "note" || !strings.Contains(d.Content, "Lisbon") || len(d.Chunks) == 0 {
			t.Errorf("document = %+v, want note-1 with its chunks", d)
		}
		e.fails("unknown item", http.StatusNotFound, memory.ENOTFOUND, keyRoot, "GET", "/v1/banks/alice/documents/note/nope", nil)
	})

	st := e.stats("alice")
	if st.Documents != 2 || st.Facts == 0 || st.Bank != "alice" {
		t.Errorf("stats = %+v, want 2 documents and facts", st)
	}

	t.Run("ExportImport", func(t *testing.T) {
		code, body := e.do(keyRoot, "GET", "/v1/banks/alice/export", nil)
		if code != http.StatusOK {
			t.Fatalf("export: %d %s", code, body)
		}
		sc := bufio.NewScanner(bytes.NewReader(body))
		lines := 0
		for sc.Scan() {
			if !json.Valid(sc.Bytes()) {
				t.Fatalf("export line %d is not JSON: %s", lines+1, sc.Bytes())
			}
			lines++
		}
		if lines < 3 {
			t.Fatalf("export has %d lines, want a header and records", lines)
		}
		var rep wire.ImportBank
		e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks/alice2/import", body, &rep)
		if rep.Bank != "alice2" || rep.Records != lines-2 { // but the header and the trailer
			t.Errorf("import = %+v, want bank alice2 with %d records", rep, lines-2)
		}
		got := e.stats("alice2")
		got.Bank = "alice"
		if got != st {
			t.Errorf("imported stats = %+v, want %+v", got, st)
		}
		e.fails("import over a bank", http.StatusConflict, memory.ECONFLICT, keyRoot, "POST", "/v1/banks/alice2/import", body)
		e.fails("import garbage", http.StatusBadRequest, memory.EINVALID, keyRoot, "POST", "/v1/banks/alice3/import", "not an export\n")
		e.fails("no bank left behind", http.StatusNotFound, memory.ENOTFOUND, keyRoot, "GET", "/v1/banks/alice3", nil)
	})

	var del wire.Deleted
	e.must(http.StatusOK, keyRoot, "DELETE", "/v1/banks/alice2", nil, &del)
	if del.Deleted != "alice2" {
		t.Errorf("deleted = %+v", del)
	}
	e.fails("deleted bank", http.StatusNotFound, memory.ENOTFOUND, keyRoot, "GET", "/v1/banks/alice2", nil)

	if !strings.Contains(e.log.String(), `"key_id":"root"`) || strings.Contains(e.log.String(), keyRoot) {
		t.Errorf("access log must name the key id and never the secret:\n%s", e.log.String())
	}
}

// fails sends a request that must fail with wantStatus and wantCode in
// the API's error shape, and returns the body.
func (e *env) fails(what string, wantStatus int, wantCode, key, method, path string, body any) []byte {
	e.t.Helper()
	status, b := e.do(key, method, path, body)
	e.wantError(what, status, b, wantStatus, wantCode)
	return b
}
