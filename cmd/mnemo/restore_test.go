package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/wire"
)

// TestArchiveRestore archives a bank's old, consolidated, unused facts
// and observations with `mnemo consolidate --pass archive`, checks recall
// no longer finds them, brings them back with `mnemo restore` and checks
// recall finds them again and the next archival leaves them be.
func TestArchiveRestore(t *testing.T) {
	db := newDB(t)
	for _, text := range []string{"Sam parked on level three of the garage.", "Sam bought oat milk on Tuesday.", "Sam moved desks to the window."} {
		mustRun(t, db, "retain", text)
	}
	// The export again, its facts made old and consolidated (all but the
	// desk move), with an old stale observation and a fresh one: an
	// import writes them as a past run of consolidation would have.
	var lines []string
	var parked, desks string
	for _, line := range strings.Split(strings.TrimSpace(mustRun(t, db, "export")), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if f, ok := rec["fact"].(map[string]any); ok {
			f["created_at"] = "2023-01-01T00:00:00Z"
			switch text := f["text"].(string); {
			case strings.Contains(text, "desks"):
				desks = f["id"].(string)
			default:
				if strings.Contains(text, "parked") {
					parked = f["id"].(string)
				}
				f["consolidated_at"] = "2023-01-02T00:00:00Z"
			}
			b, _ := json.Marshal(rec)
			line = string(b)
		}
		lines = append(lines, line)
	}
	obs := func(id, text string, updated time.Time) string {
		return fmt.Sprintf(`{"kind":"observation","observation":{"id":%q,"text":%q,"kind":"pattern","source_fact_ids":[%q],"evidence_count":1,"status":"active","access_count":0,"created_at":"2023-01-03T00:00:00Z","updated_at":%q}}`,
			id, text, parked, updated.UTC().Format(time.RFC3339))
	}
	export := withRecords(t, strings.Join(lines, "\n")+"\n",
		obs("o-garage", "Sam always parks on the third level of the garage", time.Date(2023, 1, 3, 0, 0, 0, 0, time.UTC)),
		obs("o-fresh", "Sam drives to work", time.Now()))
	path := filepath.Join(t.TempDir(), "old.jsonl")
	if err := os.WriteFile(path, []byte(export), 0o600); err != nil {
		t.Fatal(err)
	}
	mustRun(t, db, "--bank", "old", "import", path)
	if parked == "" || desks == "" {
		t.Fatalf("export lacks the facts: %q", lines)
	}

	var run wire.Run
	decodeStrict(t, mustRun(t, db, "--bank", "old", "--json", "consolidate", "--pass", "archive"), &run)
	if run.Status != "ok" || run.Counts["facts_archived"] != 2 || run.Counts["observations_archived"] != 1 {
		t.Fatalf("archive: %+v, want 2 facts and 1 observation archived", run)
	}
	const question = "Where does Sam park in the garage?"
	if got := mustRun(t, db, "--bank", "old", "recall", question); strings.Contains(got, "level three") || strings.Contains(got, "third level") {
		t.Errorf("recall shows an archived fact or observation: %q", got)
	}
	if rankOf(doRecall(t, db, "--bank", "old", "desks").Results, "desks") != 0 {
		t.Errorf("recall lost the unconsolidated fact")
	}

	var restored wire.Restored
	decodeStrict(t, mustRun(t, db, "--bank", "old", "--json", "restore", parked, "o-garage", desks), &restored)
	if len(restored.Facts) != 1 || restored.Facts[0] != parked || len(restored.Observations) != 1 || restored.Observations[0] != "o-garage" {
		t.Errorf("restore: %+v, want the parked fact and o-garage (the desk fact was active)", restored)
	}
	// Both are back: the observation, with the fact bundled under it.
	var rec wire.Recall
	decodeStrict(t, mustRun(t, db, "--bank", "old", "--json", "recall", question), &rec)
	if len(rec.Observations) == 0 || rec.Observations[0].ID != "o-garage" || !strings.Contains(rec.Context, "Sam parked on level three") {
		t.Errorf("recall after the restore: %+v, want o-garage with the parked fact", rec)
	}
	// Restored counts as used: the next archival leaves them be.
	decodeStrict(t, mustRun(t, db, "--bank", "old", "--json", "consolidate", "--pass", "archive"), &run)
	if run.Counts["facts_archived"] != 0 || run.Counts["observations_archived"] != 0 {
		t.Errorf("archive after the restore: %+v, want nothing archived", run.Counts)
	}
	if out := mustRun(t, db, "--bank", "old", "restore", parked); !strings.Contains(out, "restored 0 facts and 0 observations") {
		t.Errorf("restore again: %q", out)
	}
	wantFailure(t, mnemoRun(t, db, "--bank", "old", "restore", parked, "nope"), exitNotFound, "nope")
	wantFailure(t, mnemoRun(t, db, "--bank", "ghost", "restore", parked), exitNotFound, "ghost")
	wantFailure(t, mnemoRun(t, db, "--bank", "old", "restore"), exitInvalid)
}

// TestDreams lists no dreams in a bank without any; offline, the dream
// pass is skipped for want of an LLM.
func TestDreams(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "retain", "I had lunch with Alice in Lisbon.")
	if out := mustRun(t, db, "dreams"); !strings.Contains(out, "no dreams in bank default") {
		t.Errorf("dreams: %q", out)
	}
	var list wire.DreamList
	decodeStrict(t, mustRun(t, db, "--json", "dreams", "--limit", "5"), &list)
	if list.Dreams == nil || len(list.Dreams) != 0 {
		t.Errorf("dreams --json: %+v, want []", list)
	}
	var run wire.Run
	decodeStrict(t, mustRun(t, db, "--json", "consolidate", "--pass", "dreams"), &run)
	if run.Status != "skipped" || run.Reason != "no LLM configured" {
		t.Errorf("consolidate --pass dreams offline: %+v, want skipped for want of an LLM", run)
	}
	wantFailure(t, mnemoRun(t, db, "dreams", "--limit", "-1"), exitInvalid, "--limit")
	wantFailure(t, mnemoRun(t, db, "--bank", "ghost", "dreams"), exitNotFound, "ghost")
}
