package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
	"github.com/mnemo-ai/mnemo/wire"
)

// obsLine is an export record holding one observation created at
// created (RFC 3339).
func obsLine(id, text, created string) string {
	return fmt.Sprintf(`{"kind":"observation","observation":{"id":%q,"text":%q,"kind":"trend","source_fact_ids":["f1"],"evidence_count":1,"status":"active","access_count":0,"created_at":%q,"updated_at":%q}}`, id, text, created, created)
}

// TestServer_Consolidate retains, runs the lifecycle pass through the
// route, lists it among the runs, counts the tiers, and lists the
// observations of a bank imported with some, newest first.
func TestServer_Consolidate(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks", wire.CreateBank{Name: "a"}, nil)
	e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/a/memories", wire.Retain{Text: "I had lunch with Alice in Lisbon."}, nil)
	st := e.stats("a")
	if st.Entities == 0 || st.Facts == 0 {
		t.Fatalf("retain stored nothing to consolidate: %+v", st)
	}

	var run wire.Run
	e.must(http.StatusOK, keyAAdmin, "POST", "/v1/banks/a/consolidate", wire.Consolidate{Pass: mnemo.PassLifecycle}, &run)
	// The lifecycle pass scores every fact and every entity once.
	if run.Bank != "a" || run.Pass != mnemo.PassLifecycle || run.Status != memory.RunOK || run.FinishedAt == nil ||
		run.Counts["facts_scored"] != st.Facts || run.Counts["entities_scored"] != st.Entities {
		t.Errorf("consolidate: %+v, want lifecycle ok scoring %d facts and %d entities", run, st.Facts, st.Entities)
	}
	var merge wire.Run
	e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/a/consolidate", `{"pass":"merge"}`, &merge)

	var runs wire.RunList
	e.must(http.StatusOK, keyARead, "GET", "/v1/banks/a/runs", nil, &runs)
	if len(runs.Runs) != 2 || runs.Runs[0].ID != merge.ID || runs.Runs[1].ID != run.ID {
		t.Errorf("runs: %+v, want the merge then the lifecycle run", runs.Runs)
	}
	e.must(http.StatusOK, keyARead, "GET", "/v1/banks/a/runs?limit=1", nil, &runs)
	if len(runs.Runs) != 1 || runs.Runs[0].ID != merge.ID {
		t.Errorf("runs?limit=1: %+v, want only the merge", runs.Runs)
	}

	// Day 0: every entity is L0 (seed 004), none promoted yet.
	var tiers wire.Tiers
	e.must(http.StatusOK, keyARead, "GET", "/v1/banks/a/tiers", nil, &tiers)
	if tiers.L0 != st.Entities || tiers.L1 != 0 || tiers.L2 != 0 {
		t.Errorf("tiers: %+v, want all %d entities in L0", tiers, st.Entities)
	}
	_, raw := e.do(keyARead, "GET", "/v1/banks/a/tiers", nil)
	for _, k := range []string{`"L0"`, `"L1"`, `"L2"`, `"low_salience"`} {
		if !bytes.Contains(raw, []byte(k)) {
			t.Errorf("tiers %s lacks %s", raw, k)
		}
	}

	var obs wire.ObservationList
	e.must(http.StatusOK, keyARead, "GET", "/v1/banks/a/observations", nil, &obs)
	if obs.Observations == nil || len(obs.Observations) != 0 {
		t.Errorf("observations of a bank without any: %+v, want []", obs)
	}
	_, export := e.do(keyRoot, "GET", "/v1/banks/a/export", nil)
	export = withRecords(t, export, obsLine("o-old", "Alice eats out on Fridays", "2024-01-01T00:00:00Z"), obsLine("o-new", "Alice moved from Porto to Lisbon", "2024-06-01T00:00:00Z"))
	e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks/b/import", export, nil)
	e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/b/observations", nil, &obs)
	if len(obs.Observations) != 2 || obs.Observations[0].ID != "o-new" || obs.Observations[1].ID != "o-old" || obs.Observations[0].Kind != "trend" {
		t.Errorf("observations: %+v, want o-new then o-old", obs.Observations)
	}
	e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/b/observations?limit=1", nil, &obs)
	if len(obs.Observations) != 1 || obs.Observations[0].ID != "o-new" {
		t.Errorf("observations?limit=1: %+v, want o-new", obs.Observations)
	}
}

// TestServer_BadInputConsolidate: an unknown pass is 400 naming the
// passes and records no run; a read key cannot consolidate; bad limits
// and unknown banks get their errors.
func TestServer_BadInputConsolidate(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks", wire.CreateBank{Name: "a"}, nil)
	e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/a/memories", wire.Retain{Text: "Alice likes green tea."}, nil)
	before := e.stats("a")
	msg := e.fails("unknown pass", http.StatusBadRequest, memory.EINVALID, keyRoot, "POST", "/v1/banks/a/consolidate", `{"pass":"nope"}`)
	for _, p := range mnemo.Passes {
		if !bytes.Contains(msg, []byte(p)) {
			t.Errorf("unknown pass: %s does not list pass %s", msg, p)
		}
	}
	const good = `{"pass":"lifecycle"}`
	e.fails("read key consolidates", http.StatusForbidden, memory.EFORBIDDEN, keyARead, "POST", "/v1/banks/a/consolidate", good)
	e.fails("malformed JSON", http.StatusBadRequest, memory.EINVALID, keyRoot, "POST", "/v1/banks/a/consolidate", good[:len(good)-2])
	e.fails("unknown field", http.StatusUnprocessableEntity, memory.EINVALID, keyRoot, "POST", "/v1/banks/a/consolidate", `{"pass":"lifecycle","colour":"red"}`)
	e.fails("unknown bank consolidate", http.StatusNotFound, memory.ENOTFOUND, keyRoot, "POST", "/v1/banks/nope/consolidate", good)
	for _, path := range []string{"/runs", "/tiers", "/observations"} {
		e.fails("unknown bank GET "+path, http.StatusNotFound, memory.ENOTFOUND, keyRoot, "GET", "/v1/banks/nope"+path, nil)
	}
	for _, path := range []string{"/runs?limit=-1", "/observations?limit=-1", "/observations?limt=2"} {
		e.fails("bad query "+path, http.StatusUnprocessableEntity, memory.EINVALID, keyRoot, "GET", "/v1/banks/a"+path, nil)
	}
	if after := e.stats("a"); after != before {
		t.Errorf("bad requests changed bank a: %+v → %+v", before, after)
	}
	if rs, err := e.eng.Runs(t.Context(), "a", 0); err != nil || len(rs) != 0 {
		t.Errorf("bad requests recorded runs: %+v, %v", rs, err)
	}
}

// TestServer_ConsolidationSettings overrides a bank's consolidation
// settings through PATCH, lists them, removes one, and refuses an
// unknown name or a bad value without changing anything.
func TestServer_ConsolidationSettings(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks", wire.CreateBank{Name: "a"}, nil)
	var b wire.Bank
	e.must(http.StatusOK, keyAAdmin, "PATCH", "/v1/banks/a", `{"consolidation":{"salience_half_life":"45d","daily_at":"04:30"}}`, &b)
	if b.Settings.Consolidation["salience_half_life"] != "45d" || b.Settings.Consolidation["daily_at"] != "04:30" {
		t.Fatalf("PATCH: settings %+v", b.Settings)
	}
	value := func() map[string]wire.ConsolidationSetting {
		var got wire.ConsolidationSettings
		e.must(http.StatusOK, keyARead, "GET", "/v1/banks/a/consolidation", nil, &got)
		m := map[string]wire.ConsolidationSetting{}
		for _, k := range got.Settings {
			m[k.Name] = k
		}
		return m
	}
	if got := value(); got["salience_half_life"].Value != "45d" || !got["salience_half_life"].Overridden || got["recency_half_life"].Overridden {
		t.Errorf("GET consolidation: %+v / %+v", got["salience_half_life"], got["recency_half_life"])
	}
	// Another field's PATCH keeps the overrides; "" removes one.
	e.must(http.StatusOK, keyAAdmin, "PATCH", "/v1/banks/a", `{"mission":"m"}`, &b)
	b = wire.Bank{} // decoding into a used map would keep its keys
	e.must(http.StatusOK, keyAAdmin, "PATCH", "/v1/banks/a", `{"consolidation":{"salience_half_life":""}}`, &b)
	if _, ok := b.Settings.Consolidation["salience_half_life"]; ok || b.Settings.Consolidation["daily_at"] != "04:30" || b.Settings.Mission != "m" {
		t.Errorf("after removing one: %+v", b.Settings)
	}
	e.fails("unknown setting", http.StatusBadRequest, memory.EINVALID, keyAAdmin, "PATCH", "/v1/banks/a", `{"consolidation":{"salience_halflife":"3d"}}`)
	e.fails("bad value", http.StatusBadRequest, memory.EINVALID, keyAAdmin, "PATCH", "/v1/banks/a", `{"consolidation":{"daily_at":"noon-ish"}}`)
	e.fails("read key", http.StatusForbidden, memory.EFORBIDDEN, keyARead, "PATCH", "/v1/banks/a", `{"consolidation":{"daily_at":"05:00"}}`)
	if got := value(); got["daily_at"].Value != "4h30m0s" || got["salience_half_life"].Value != "30d" {
		t.Errorf("after refused changes: daily_at %+v salience %+v", got["daily_at"], got["salience_half_life"])
	}
}

// withRecords returns export (an export's bytes) with the JSON lines recs
// added before its trailer, and the trailer counting them.
func withRecords(t *testing.T, export []byte, recs ...string) []byte {
	t.Helper()
	lines := bytes.Split(bytes.TrimRight(export, "\n"), []byte("\n"))
	lines = lines[:len(lines)-1] // drop the trailer
	for _, r := range recs {
		lines = append(lines, []byte(r))
	}
	tr := memory.ExportTrailer{Counts: map[string]int{}}
	for _, l := range lines[1:] {
		var r struct{ Kind string }
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatal(err)
		}
		tr.Records++
		tr.Counts[r.Kind]++
	}
	b, err := json.Marshal(memory.ExportRecord{Kind: memory.RecordTrailer, Trailer: &tr})
	if err != nil {
		t.Fatal(err)
	}
	return append(bytes.Join(append(lines, b), []byte("\n")), '\n')
}
