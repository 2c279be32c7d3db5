package httpapi_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
	"github.com/mnemo-ai/mnemo/store/sqlite"
	"github.com/mnemo-ai/mnemo/wire"
)

// newEnvWithStore is newEnv with a second store on the engine's file,
// through which a test writes what no route writes (dreams, archived
// observations), as another process would.
func newEnvWithStore(t *testing.T) (*env, *sqlite.Store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mnemo.db")
	eng, err := mnemo.Open(t.Context(), mnemo.Config{DB: path, JobPoll: -1, SessionIdle: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	e := &env{t: t, eng: eng, log: &bytes.Buffer{}}
	e.srv = httptest.NewServer(httpapi.New(eng, httpapi.Options{Auth: testAuth, Logger: slogTo(e.log)}))
	t.Cleanup(e.srv.Close)
	return e, testutil.OpenStoreAt(t, path)
}

// TestServer_Dreams lists a bank's dreams newest first (never their
// vectors), shows that recall never returns one, and restores archived
// observations.
func TestServer_Dreams(t *testing.T) {
	e, st := newEnvWithStore(t)
	ctx := t.Context()
	e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks", wire.CreateBank{Name: "a"}, nil)
	e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/a/memories", wire.Retain{Text: "Alice bakes sourdough bread every Sunday."}, nil)
	_, raw := e.do(keyARead, "GET", "/v1/banks/a/dreams", nil)
	if !bytes.Contains(raw, []byte(`"dreams":[]`)) {
		t.Errorf("dreams of a bank without any: %s, want []", raw)
	}

	at := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	const insight = "Alice proofs her marathon plan the way she proofs her dough: slowly, overnight."
	var ds []*memory.Dream
	for i, text := range []string{"Alice's gardening follows the moon.", "Alice reads thrillers before exams.", insight} {
		ds = append(ds, &memory.Dream{ID: "dream-" + string(rune('a'+i)), Bridge: "rhythm", Insight: text, SourceFactIDs: []string{"f1", "f2"},
			Embedding: []float32{1, 0, 0}, CreatedAt: at.Add(time.Duration(i) * time.Hour)})
	}
	if err := st.PutDreams(ctx, "a", ds); err != nil {
		t.Fatal(err)
	}
	var list wire.DreamList
	e.must(http.StatusOK, keyARead, "GET", "/v1/banks/a/dreams", nil, &list)
	if len(list.Dreams) != 3 || list.Dreams[0].ID != "dream-c" || list.Dreams[0].Insight != insight || list.Dreams[2].ID != "dream-a" ||
		!slices.Equal(list.Dreams[0].SourceFactIDs, []string{"f1", "f2"}) || !list.Dreams[0].CreatedAt.Equal(at.Add(2*time.Hour)) {
		t.Errorf("dreams: %+v, want c, b, a", list.Dreams)
	}
	e.must(http.StatusOK, keyARead, "GET", "/v1/banks/a/dreams?limit=1", nil, &list)
	if len(list.Dreams) != 1 || list.Dreams[0].ID != "dream-c" {
		t.Errorf("dreams?limit=1: %+v, want dream-c", list.Dreams)
	}
	if _, raw := e.do(keyARead, "GET", "/v1/banks/a/dreams", nil); bytes.Contains(raw, []byte("embedding")) {
		t.Errorf("dreams show their vectors: %s", raw)
	}

	// Dreams never enter recall: asked for the dream's own words, recall
	// answers with the fact, never the dream.
	_, raw = e.do(keyARead, "POST", "/v1/banks/a/recall", wire.RecallRequest{Query: "marathon plan proofs dough overnight", Archived: true, History: true})
	for _, leak := range []string{"dream-c", "marathon plan", "rhythm"} {
		if bytes.Contains(raw, []byte(leak)) {
			t.Errorf("recall answers with a dream (%q): %s", leak, raw)
		}
	}

	// An archived observation comes back through the restore route.
	obs := []*memory.Observation{
		{ID: "o1", Text: "Alice bakes on Sundays", Kind: memory.ObservationPattern, SourceFactIDs: []string{"f1"}, EvidenceCount: 1, Status: memory.StatusArchived, CreatedAt: at, UpdatedAt: at},
		{ID: "o2", Text: "Alice likes bread", Kind: memory.ObservationPattern, SourceFactIDs: []string{"f1"}, EvidenceCount: 1, CreatedAt: at, UpdatedAt: at},
	}
	if err := st.PutObservations(ctx, "a", obs); err != nil {
		t.Fatal(err)
	}
	e.fails("read key restores", http.StatusForbidden, memory.EFORBIDDEN, keyARead, "POST", "/v1/banks/a/observations/restore", wire.ObservationIDs{IDs: []string{"o1"}})
	e.fails("unknown observation", http.StatusNotFound, memory.ENOTFOUND, keyAAdmin, "POST", "/v1/banks/a/observations/restore", wire.ObservationIDs{IDs: []string{"o1", "nope"}})
	e.fails("no ids", http.StatusUnprocessableEntity, memory.EINVALID, keyAAdmin, "POST", "/v1/banks/a/observations/restore", `{"ids":[]}`)
	var change wire.StatusChange
	e.must(http.StatusOK, keyAAdmin, "POST", "/v1/banks/a/observations/restore", wire.ObservationIDs{IDs: []string{"o1", "o2"}}, &change)
	if !slices.Equal(change.Changed, []string{"o1"}) || change.Status != memory.StatusActive {
		t.Errorf("restore: %+v, want o1 back to active", change)
	}
	var ol wire.ObservationList
	e.must(http.StatusOK, keyARead, "GET", "/v1/banks/a/observations", nil, &ol)
	for _, o := range ol.Observations {
		if o.Status != string(memory.StatusActive) {
			t.Errorf("observation %s is %s after the restore", o.ID, o.Status)
		}
		if o.ID == "o1" && o.AccessCount != 1 {
			t.Errorf("restored o1 counts %d accesses, want 1", o.AccessCount)
		}
	}
	e.must(http.StatusOK, keyAAdmin, "POST", "/v1/banks/a/observations/restore", wire.ObservationIDs{IDs: []string{"o1"}}, &change)
	if len(change.Changed) != 0 {
		t.Errorf("restore again: %+v, want no change", change)
	}

	e.fails("unknown bank dreams", http.StatusNotFound, memory.ENOTFOUND, keyRoot, "GET", "/v1/banks/nope/dreams", nil)
	e.fails("negative limit", http.StatusUnprocessableEntity, memory.EINVALID, keyRoot, "GET", "/v1/banks/a/dreams?limit=-1", nil)
	e.fails("unknown bank restore", http.StatusNotFound, memory.ENOTFOUND, keyRoot, "POST", "/v1/banks/nope/observations/restore", wire.ObservationIDs{IDs: []string{"o1"}})
}
