package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/wire"
)

// TestObservations lists the observations of a bank imported with two,
// newest first, as JSON and as a table; a bank without any says so.
func TestObservations(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "retain", "I had lunch with Alice in Lisbon.")
	if out := mustRun(t, db, "observations"); !strings.Contains(out, "no observations") {
		t.Errorf("observations of a bank without any: %q", out)
	}
	var empty wire.ObservationList
	decodeStrict(t, mustRun(t, db, "--json", "observations"), &empty)
	if empty.Observations == nil || len(empty.Observations) != 0 {
		t.Errorf("observations --json of a bank without any: %+v, want []", empty)
	}

	dir := t.TempDir()
	export := mustRun(t, db, "export")
	line := func(id, text, created string) string {
		return fmt.Sprintf(`{"kind":"observation","observation":{"id":%q,"text":%q,"kind":"transition","source_fact_ids":["f1"],"evidence_count":2,"history":[{"previous":"Alice lived in Porto","changed_at":%q}],"status":"active","access_count":0,"created_at":%q,"updated_at":%q}}`, id, text, created, created, created)
	}
	export = withRecords(t, export, line("o-old", "Alice eats out on Fridays", "2024-01-01T00:00:00Z"), line("o-new", "Alice moved from Porto to Lisbon", "2024-06-01T00:00:00Z"))
	path := filepath.Join(dir, "obs.jsonl")
	if err := os.WriteFile(path, []byte(export), 0o600); err != nil {
		t.Fatal(err)
	}
	mustRun(t, db, "--bank", "obs", "import", path)

	var list wire.ObservationList
	decodeStrict(t, mustRun(t, db, "--bank", "obs", "--json", "observations"), &list)
	if len(list.Observations) != 2 || list.Observations[0].ID != "o-new" || list.Observations[1].ID != "o-old" {
		t.Fatalf("observations --json: %+v, want o-new then o-old", list.Observations)
	}
	if o := list.Observations[0]; o.Kind != "transition" || o.EvidenceCount != 2 || len(o.History) != 1 || o.History[0].Previous != "Alice lived in Porto" {
		t.Errorf("observations --json[0]: %+v", o)
	}
	decodeStrict(t, mustRun(t, db, "--bank", "obs", "--json", "observations", "--limit", "1"), &list)
	if len(list.Observations) != 1 || list.Observations[0].ID != "o-new" {
		t.Errorf("observations --limit 1: %+v, want o-new", list.Observations)
	}
	out := mustRun(t, db, "--bank", "obs", "observations")
	if i, j := strings.Index(out, "o-new"), strings.Index(out, "o-old"); i < 0 || j < 0 || i > j || !strings.Contains(out, "Alice moved from Porto to Lisbon") {
		t.Errorf("observations: %q, want o-new above o-old", out)
	}
	wantFailure(t, mnemoRun(t, db, "--bank", "ghost", "observations"), exitNotFound, "ghost")
}
