package main

import (
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo"
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
	// Without --pass every pass runs, in order, each with its record.
	var all wire.RunList
	decodeStrict(t, mustRun(t, db, "--json", "consolidate"), &all)
	if len(all.Runs) != len(mnemo.Passes) {
		t.Fatalf("consolidate --json: %d runs, want one per pass (%v)", len(all.Runs), mnemo.Passes)
	}
	for i, r := range all.Runs {
		if r.Pass != mnemo.Passes[i] || (r.Status != "ok" && r.Status != "skipped") {
			t.Errorf("run %d: pass %s status %s (%s), want %s ok or skipped", i, r.Pass, r.Status, r.Error, mnemo.Passes[i])
		}
	}
	if out := mustRun(t, db, "consolidate"); !strings.Contains(out, "lifecycle ") || !strings.Contains(out, "facts_scored") {
		t.Errorf("consolidate: %q", out)
	}

	var runs wire.RunList
	decodeStrict(t, mustRun(t, db, "--json", "runs", "--limit", "0"), &runs)
	if want := 1 + 2*len(mnemo.Passes); len(runs.Runs) != want {
		t.Errorf("runs --json: %d runs, want %d", len(runs.Runs), want)
	}
	if out := mustRun(t, db, "runs", "--limit", "0"); !strings.Contains(out, run.ID) {
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
}

func TestConsolidateSettings(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "retain", "I had lunch with Alice in Lisbon.")
	var got wire.ConsolidationSettings
	decodeStrict(t, mustRun(t, db, "--json", "consolidate", "settings", "--set", "salience_half_life=45d", "--set", "daily_at=04:30"), &got)
	values := map[string]wire.ConsolidationSetting{}
	for _, k := range got.Settings {
		values[k.Name] = k
	}
	if k := values["salience_half_life"]; k.Value != "45d" || !k.Overridden {
		t.Errorf("salience_half_life: %+v, want 45d overridden", k)
	}
	if k := values["recency_half_life"]; k.Value != "3d" || k.Overridden {
		t.Errorf("recency_half_life: %+v, want the default 3d", k)
	}
	// The override is stored with the bank and read back by a new process.
	if out := mustRun(t, db, "consolidate", "settings"); !strings.Contains(out, "45d") || !strings.Contains(out, "(bank)") {
		t.Errorf("consolidate settings: %q", out)
	}
	decodeStrict(t, mustRun(t, db, "--json", "consolidate", "settings", "--reset", "salience_half_life"), &got)
	for _, k := range got.Settings {
		if k.Name == "salience_half_life" && (k.Value != "30d" || k.Overridden) {
			t.Errorf("after --reset: %+v", k)
		}
	}
	// A bad name or value is refused and changes nothing.
	wantFailure(t, mnemoRun(t, db, "consolidate", "settings", "--set", "salience_halflife=3d"), exitInvalid, "salience_halflife", "salience_half_life")
	wantFailure(t, mnemoRun(t, db, "consolidate", "settings", "--set", "salience_half_life=soon"), exitInvalid, "salience_half_life")
	wantFailure(t, mnemoRun(t, db, "consolidate", "settings", "--set", "novalue"), exitInvalid, "NAME=VALUE")
	if out := mustRun(t, db, "consolidate", "settings"); !strings.Contains(out, "04:30") && !strings.Contains(out, "4h30m0s") {
		t.Errorf("daily_at lost after refused changes: %q", out)
	}
	wantFailure(t, mnemoRun(t, db, "--bank", "ghost", "tiers"), exitNotFound, "ghost")
}
