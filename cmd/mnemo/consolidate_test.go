package main

import (
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/wire"
)

func TestConsolidate(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "retain", "I had lunch with Alice in Lisbon.")
	st := stats(t, db, "default")

	var run wire.Run
	decodeStrict(t, mustRun(t, db, "--json", "consolidate", "--pass", "lifecycle"), &run)
	if run.Pass != "lifecycle" || run.Status != "ok" || run.FinishedAt == nil || run.Counts["entities_scored"] != st.Entities || run.Counts["facts_scored"] != st.Facts {
		t.Errorf("consolidate --json: %+v (stats %+v)", run, st)
	}
	if out := mustRun(t, db, "consolidate"); !strings.HasPrefix(out, "lifecycle ") || !strings.Contains(out, "facts_scored") {
		t.Errorf("consolidate: %q", out)
	}

	var runs wire.RunList
	decodeStrict(t, mustRun(t, db, "--json", "runs", "--limit", "5"), &runs)
	if len(runs.Runs) != 2 {
		t.Errorf("runs --json: %d runs, want 2", len(runs.Runs))
	}
	if out := mustRun(t, db, "runs"); !strings.Contains(out, run.ID) {
		t.Errorf("runs: %q, want it to list %s", out, run.ID)
	}

	var tiers wire.Tiers
	decodeStrict(t, mustRun(t, db, "--json", "tiers"), &tiers)
	if tiers.L0 != st.Entities || tiers.L1+tiers.L2 != 0 {
		t.Errorf("tiers --json: %+v, want %d entities in L0", tiers, st.Entities)
	}
	if out := mustRun(t, db, "tiers"); !strings.Contains(out, "L0 (episodic)") {
		t.Errorf("tiers: %q", out)
	}

	wantFailure(t, mnemoRun(t, db, "consolidate", "--pass", "nope"), exitInvalid, "nope", "lifecycle")
	wantFailure(t, mnemoRun(t, db, "--bank", "ghost", "tiers"), exitNotFound, "ghost")
}
