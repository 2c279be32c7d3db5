package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/wire"
)

// TestForget retains a fact with a distinctive word, finds it with a dry
// run, forgets it by id, and after mnemo exits finds no copy of the word
// (as written or lower-cased) or the id in the database file or its WAL.
func TestForget(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "retain", "Caroline adopted a Zanzibarquokka named Pip.")
	mustRun(t, db, "retain", "Bob drinks green tea every morning.")

	var dry wire.Forget
	decodeStrict(t, mustRun(t, db, "--json", "forget", "--query", "zanzibarquokka", "--limit", "1", "--dry-run"), &dry)
	if !dry.DryRun || len(dry.Facts) != 1 || !strings.Contains(dry.Facts[0].Text, "Zanzibarquokka") {
		t.Fatalf("dry run: got %+v, want the one fact with its text", dry)
	}
	id := dry.Facts[0].ID
	if st := stats(t, db, "default"); st.Facts != 2 {
		t.Fatalf("facts after a dry run: got %d, want 2", st.Facts)
	}

	var res wire.Forget
	decodeStrict(t, mustRun(t, db, "--json", "forget", "--id", id, "--actor", "tester"), &res)
	if res.DryRun || len(res.Facts) != 1 || res.Facts[0].ID != id || res.Facts[0].Text != "" || res.Counts.Facts != 1 || res.Record == "" {
		t.Fatalf("forget: got %+v", res)
	}
	if st := stats(t, db, "default"); st.Facts != 1 || st.Documents != 1 {
		t.Errorf("stats after forget: got %+v, want Bob's fact and document only", st)
	}
	var log []wire.ForgetRecord
	decodeStrict(t, mustRun(t, db, "--json", "forget", "--log"), &log)
	if len(log) != 1 || log[0].ID != res.Record || log[0].Actor != "tester" || log[0].Selector.IDs != 1 || log[0].Counts != res.Counts {
		t.Errorf("forget --log: got %+v", log)
	}
	for _, name := range []string{db, db + "-wal"} {
		b, err := os.ReadFile(name)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"Zanzibarquokka", "zanzibarquokka", id} {
			if bytes.Contains(b, []byte(n)) {
				t.Errorf("%s holds %q after forget", name, n)
			}
		}
	}
}

// TestForget_Errors: every bad selector fails with its exit code and
// changes nothing.
func TestForget_Errors(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "retain", "Bob drinks green tea every morning.")
	wantFailure(t, mnemoRun(t, db, "forget"), exitInvalid, "give ids")
	wantFailure(t, mnemoRun(t, db, "forget", "--id", "nope"), exitNotFound, "nope")
	wantFailure(t, mnemoRun(t, db, "forget", "--entity", "Nobody"), exitNotFound, "Nobody")
	wantFailure(t, mnemoRun(t, db, "forget", "--from", "yesterday-ish"), exitInvalid)
	wantFailure(t, mnemoRun(t, db, "forget", "--source", "note"), exitInvalid, "source and item")
	wantFailure(t, mnemoRun(t, db, "--bank", "nope", "forget", "--query", "tea"), exitNotFound, "nope")
	if st := stats(t, db, "default"); st.Facts != 1 {
		t.Errorf("facts after failed forgets: got %d, want 1", st.Facts)
	}
}
