package main

import (
	"encoding/json"
	"testing"

	"github.com/mnemo-ai/mnemo/wire"
)

func TestFacts(t *testing.T) {
	db := newDB(t)
	for _, text := range []string{"I had lunch with Alice in Lisbon.", "Bob plays the cello.", "Carol repairs old kayaks."} {
		mustRun(t, db, "retain", text)
	}
	// Pages of one cover every fact once, newest first.
	var ids []string
	var texts []string
	cursor := ""
	for range 10 {
		args := []string{"--json", "facts", "list", "--limit", "1"}
		if cursor != "" {
			args = append(args, "--cursor", cursor)
		}
		var page wire.FactPage
		if err := json.Unmarshal([]byte(mustRun(t, db, args...)), &page); err != nil {
			t.Fatal(err)
		}
		for _, f := range page.Facts {
			ids, texts = append(ids, f.ID), append(texts, f.Text)
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	if len(texts) != 3 || texts[0] != "Carol repairs old kayaks." || texts[2] != "I had lunch with Alice in Lisbon." {
		t.Fatalf("facts by pages of 1: %q", texts)
	}

	var change wire.StatusChange
	decodeStrict(t, mustRun(t, db, "--json", "facts", "invalidate", "--reason", "not Carol", ids[0]), &change)
	if len(change.Changed) != 1 || change.Changed[0] != ids[0] || change.Status != "archived" {
		t.Errorf("facts invalidate: %+v", change)
	}
	if rankOf(doRecall(t, db, "kayaks").Results, "kayaks") >= 0 {
		t.Errorf("recall found an invalidated fact")
	}
	var active wire.FactPage
	decodeStrict(t, mustRun(t, db, "--json", "facts", "--status", "active"), &active)
	if len(active.Facts) != 2 {
		t.Errorf("facts --status active: %d facts, want 2", len(active.Facts))
	}
	decodeStrict(t, mustRun(t, db, "--json", "facts", "restore", ids[0]), &change)
	if len(change.Changed) != 1 || change.Status != "active" {
		t.Errorf("facts restore: %+v", change)
	}
	if rankOf(doRecall(t, db, "kayaks").Results, "kayaks") != 0 {
		t.Errorf("recall did not find a restored fact first")
	}

	var show wire.FactDetail
	decodeStrict(t, mustRun(t, db, "--json", "facts", "show", ids[1]), &show)
	if show.Fact.ID != ids[1] || show.Fact.Text != "Bob plays the cello." {
		t.Errorf("facts show: %+v", show)
	}
	var about wire.About
	decodeStrict(t, mustRun(t, db, "--json", "about", "alice"), &about)
	if about.Entity.Name != "Alice" || len(about.Facts) != 1 || about.Facts[0].ID != ids[2] {
		t.Errorf("about alice: %+v", about)
	}

	wantFailure(t, mnemoRun(t, db, "facts", "show", "nope"), exitNotFound, "nope")
	wantFailure(t, mnemoRun(t, db, "facts", "invalidate", ids[0], "nope"), exitNotFound, "nope")
	wantFailure(t, mnemoRun(t, db, "facts", "--cursor", "bogus"), exitInvalid, "cursor")
	wantFailure(t, mnemoRun(t, db, "facts", "--status", "gone"), exitInvalid, "gone")
	wantFailure(t, mnemoRun(t, db, "about", "Zed"), exitNotFound, "Zed")
}
