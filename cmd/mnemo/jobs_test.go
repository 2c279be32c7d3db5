package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// jobOut is a job as `mnemo jobs --json` prints it.
type jobOut struct {
	ID        string          `json:"id"`
	Bank      string          `json:"bank"`
	Kind      string          `json:"kind"`
	Status    string          `json:"status"`
	Attempts  int             `json:"attempts"`
	Error     string          `json:"error"`
	Result    json.RawMessage `json:"result"`
	CreatedAt string          `json:"created_at"`
	UpdatedAt string          `json:"updated_at"`
}

func jobsList(t *testing.T, db string, args ...string) []jobOut {
	t.Helper()
	// An object, as every list --json prints: {"jobs": [...]}.
	var js struct {
		Jobs []jobOut `json:"jobs"`
	}
	decodeStrict(t, mustRun(t, db, append([]string{"--json", "jobs"}, args...)...), &js)
	return js.Jobs
}

func TestRetain_Async(t *testing.T) {
	db := newDB(t)
	out := mustRun(t, db, "retain", "--async", "Caroline moved to Lisbon in May.")
	id := strings.TrimSpace(out)
	if !strings.HasPrefix(id, "job_") || strings.Contains(id, "\n") {
		t.Fatalf("retain --async printed %q, want one job id", out)
	}
	// Queued, not retained yet: it waits for a worker.
	js := jobsList(t, db)
	if len(js) != 1 || js[0].ID != id || js[0].Status != "queued" || js[0].Bank != "default" || js[0].Kind != "retain" || js[0].Attempts != 0 {
		t.Fatalf("jobs: %+v, want the queued job %s", js, id)
	}
	if st := stats(t, db, "default"); st.Documents != 0 {
		t.Fatalf("documents before the job ran: %d", st.Documents)
	}

	// --json prints the job.
	raw := mustRun(t, db, "--json", "retain", "--async", "--tags", "pets", "Melanie adopted a dog named Oscar.")
	var j jobOut
	decodeStrict(t, raw, &j)
	if j.Status != "queued" || j.ID == id || !slices.Equal(keys(t, []byte(raw)), []string{"attempts", "bank", "created_at", "id", "kind", "status", "updated_at"}) {
		t.Errorf("retain --async --json: %s", raw)
	}

	if got := mustRun(t, db, "jobs", "run"); got != "ran 2 jobs; extracted 0 idle sessions\n" {
		t.Errorf("jobs run: %q", got)
	}
	var show jobOut
	decodeStrict(t, mustRun(t, db, "--json", "jobs", "show", id), &show)
	var res struct {
		DocumentID string `json:"document_id"`
		Facts      int    `json:"facts"`
	}
	if err := json.Unmarshal(show.Result, &res); show.Status != "done" || show.Attempts != 1 || err != nil || res.Facts == 0 || res.DocumentID == "" {
		t.Errorf("jobs show %s: %+v (result %s), want done with facts", id, show, show.Result)
	}
	if st := stats(t, db, "default"); st.Documents != 2 {
		t.Errorf("documents after jobs run: %d, want 2", st.Documents)
	}
	if got := mustRun(t, db, "recall", "Where did Caroline move?"); !strings.Contains(got, "Lisbon") {
		t.Errorf("recall after the job: %q", got)
	}
	list := mustRun(t, db, "jobs")
	if !strings.Contains(list, id) || strings.Count(list, "done") != 2 || !strings.Contains(list, "facts") {
		t.Errorf("jobs:\n%s", list)
	}
	if got := mustRun(t, db, "jobs", "show", id); !strings.HasPrefix(got, id+": done after 1 attempts: ") {
		t.Errorf("jobs show: %q", got)
	}
	if got := jobsList(t, db, "--limit", "1"); len(got) != 1 || got[0].ID != j.ID {
		t.Errorf("jobs --limit 1: %+v, want the newest job %s", got, j.ID)
	}
	var ran map[string]int
	decodeStrict(t, mustRun(t, db, "--json", "jobs", "run"), &ran)
	if ran["jobs"] != 0 || ran["sessions"] != 0 {
		t.Errorf("jobs run again: %v, want nothing to do", ran)
	}
}

// The job is queued by one process and run by another.
func TestRetain_AsyncProcesses(t *testing.T) {
	db := newDB(t)
	r := exe(t, db, "retain", "--async", "Caroline goes to a support group on Tuesdays.")
	if r.code != exitOK {
		t.Fatalf("retain --async: %v", r)
	}
	id := strings.TrimSpace(r.stdout)
	if r := exe(t, db, "jobs", "run"); r.code != exitOK || !strings.HasPrefix(r.stdout, "ran 1 jobs") {
		t.Fatalf("jobs run: %v", r)
	}
	if r := exe(t, db, "jobs", "show", id); r.code != exitOK || !strings.Contains(r.stdout, "done") {
		t.Errorf("jobs show: %v", r)
	}
}

func TestRetain_AsyncBadInput(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "bank", "create", "b")
	wantFailure(t, mnemoIn(t, db, strings.NewReader("caf\xe9"), "--bank", "b", "retain", "--async", "-"), exitInvalid, "UTF-8")
	wantFailure(t, mnemoRun(t, db, "--bank", "nope", "retain", "--async", "x"), exitNotFound, "nope")
	if js := jobsList(t, db, "--bank", "b"); len(js) != 0 {
		t.Errorf("refused retains queued jobs: %+v", js)
	}
	wantFailure(t, mnemoRun(t, db, "--bank", "b", "jobs", "show", "job_nope"), exitNotFound, "job_nope")
	wantFailure(t, mnemoRun(t, db, "jobs", "show"), exitInvalid)
	wantFailure(t, mnemoRun(t, db, "jobs", "run", "extra"), exitInvalid)
}

// sessionOut is `mnemo retain --session --json`'s output.
type sessionOut struct {
	Session      string `json:"session"`
	Messages     int    `json:"messages"`
	UserMessages int    `json:"user_messages"`
	FirstSeq     int64  `json:"first_seq"`
	LastSeq      int64  `json:"last_seq"`
	LastAt       string `json:"last_at"`
	Retained     []struct {
		DocumentID string          `json:"document_id"`
		Duplicate  bool            `json:"duplicate"`
		Facts      int             `json:"facts"`
		Entities   int             `json:"entities"`
		Links      int             `json:"links"`
		Outcomes   json.RawMessage `json:"outcomes"`
	} `json:"retained"`
	Dropped      int    `json:"dropped"`
	ExtractError string `json:"extract_error"`
}

func TestRetain_Session(t *testing.T) {
	db := newDB(t)
	for i := 1; i < 10; i++ {
		out := mustRun(t, db, "retain", "--session", "s1", "--speaker", "Caroline", fmt.Sprintf("Caroline visited museum number %d.", i))
		if want := fmt.Sprintf("session s1: %d messages buffered (%d from the user)\n", 2*i-1, i); out != want {
			t.Fatalf("message %d: got %q, want %q", i, out, want)
		}
		mustRun(t, db, "retain", "--session", "s1", "--role", "assistant", fmt.Sprintf("What did you like in museum %d?", i))
	}
	if st := stats(t, db, "default"); st.Documents != 0 {
		t.Fatalf("documents before the 10th user message: %d", st.Documents)
	}
	var s sessionOut
	decodeStrict(t, mustRun(t, db, "--json", "retain", "--session", "s1", "--speaker", "Caroline", "--at", "2024-03-04 18:00", "Caroline loved the Rodin museum."), &s)
	if s.Session != "s1" || s.Messages != 0 || len(s.Retained) != 1 || s.Retained[0].Facts == 0 || s.ExtractError != "" {
		t.Fatalf("10th user message: %+v, want the buffer extracted into one document", s)
	}
	if st := stats(t, db, "default"); st.Documents != 1 {
		t.Errorf("documents after extraction: %d, want 1", st.Documents)
	}
	if got := mustRun(t, db, "recall", "Which museum did Caroline love?"); !strings.Contains(got, "Rodin") {
		t.Errorf("recall after extraction: %q, want the session's facts", got)
	}
	s = sessionOut{}
	decodeStrict(t, mustRun(t, db, "--json", "retain", "--session", "s1", "One more."), &s)
	if s.Messages != 1 || s.FirstSeq != 20 || s.LastSeq != 20 || s.LastAt == "" || len(s.Retained) != 0 {
		t.Errorf("next message: %+v, want seq 20 buffered alone", s)
	}

	wantFailure(t, mnemoRun(t, db, "retain", "--role", "user", "x"), exitInvalid, "--role needs --session")
	wantFailure(t, mnemoRun(t, db, "retain", "--session", "s1", "--async", "x"), exitInvalid, "--async")
	wantFailure(t, mnemoRun(t, db, "retain", "--session", "s1", "--tags", "a", "x"), exitInvalid, "--tags")
	wantFailure(t, mnemoRun(t, db, "retain", "--session", "s1", "--role", "tool", "x"), exitInvalid, "role")
	wantFailure(t, mnemoRun(t, db, "--bank", "nope", "retain", "--session", "s1", "x"), exitNotFound, "nope")
}
