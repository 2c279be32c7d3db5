package mnemo_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
)

// mergeSentences returns n distinct sentences, each naming its own person,
// pet and town, so each is the best answer to itself.
func mergeSentences(n int) []string {
	people := []string{"Alma", "Boris", "Chiara", "Dmitri", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jonas"}
	pets := []string{"parrot", "tortoise", "ferret", "goldfish", "hamster", "iguana", "rabbit", "gecko", "canary", "axolotl"}
	towns := []string{"Lisbon", "Tromso", "Valparaiso", "Kyoto", "Accra", "Hobart"}
	out := make([]string, 0, n)
	for i := range n {
		p, a, t := people[i%10], pets[(i/10)%10], towns[(i/100)%len(towns)]
		out = append(out, fmt.Sprintf("%s keeps a %s called %s%d in %s.", p, a, "Pip", i, t))
	}
	return out
}

// activeFacts counts the active facts of bank b.
func activeFacts(t *testing.T, eng *mnemo.Engine) int {
	t.Helper()
	st, err := eng.Stats(context.Background(), "b")
	if err != nil {
		t.Fatal(err)
	}
	return st.Active
}

// Growth acceptance (issue 12): offline, the same 200 sentences retained
// twice (as distinct items) leave 200 active facts after the merge, and
// recalling each sentence returns it once; a second merge changes nothing.
func TestEngine_MergeDuplicates_Growth(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t, filepath.Join(t.TempDir(), "mnemo.db"))
	if _, err := eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	const n = 200
	sents := mergeSentences(n)
	for round := range 2 {
		for i, s := range sents {
			if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "b", Source: "note", ItemID: fmt.Sprintf("r%d-%d", round, i), Text: s}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got, want := activeFacts(t, eng), 2*n; got != want {
		t.Fatalf("before the merge: got %d active facts, want 2 × %d = %d", got, n, want)
	}
	res, err := eng.MergeDuplicates(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	// 2n facts scanned, n groups of two, one merge per group.
	if res.Scanned != 2*n || res.Groups != n || res.Merged != n {
		t.Errorf("merge: got %+v, want %d scanned, %d groups, %d merged", res, 2*n, n, n)
	}
	if got := activeFacts(t, eng); got != n {
		t.Errorf("after the merge: got %d active facts, want %d", got, n)
	}
	for _, s := range sents {
		rec, err := eng.Recall(ctx, memory.Query{BankID: "b", Text: s, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, r := range rec.Results {
			seen[r.Fact.Text]++
			for _, p := range r.Previously {
				seen[p.Text]++ // a merged duplicate is not history
			}
		}
		if seen[s] != 1 {
			t.Errorf("recall %q: got it %d times, want once", s, seen[s])
		}
		for text, c := range seen {
			if c > 1 {
				t.Errorf("recall %q: %q %d times", s, text, c)
			}
		}
	}
	again, err := eng.MergeDuplicates(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if again.Scanned != n || again.Groups != 0 || again.Merged != 0 {
		t.Errorf("second merge: got %+v, want %d scanned and nothing merged", again, n)
	}
	// The whole merge pass (exact, then near-exact through the vector
	// index) leaves the 200 distinct sentences alone: they differ in a
	// name or a number, which near-exact never merges.
	run, err := eng.Consolidate(ctx, "b", mnemo.PassMerge)
	if err != nil {
		t.Fatal(err)
	}
	if run.Counts["merged"] != 0 || run.Counts["near_exact"] != 0 || run.Counts["searched"] != n {
		t.Errorf("merge pass: counts %v, want %d searched and nothing merged", run.Counts, n)
	}
	if got := activeFacts(t, eng); got != n {
		t.Errorf("after the merge pass: got %d active facts, want %d", got, n)
	}
}

// Growth through consolidation alone (issue 12): the same 200 sentences
// retained twice, then the merge pass as the runner runs it, leave 200
// active facts, and recall returns each sentence once.
func TestEngine_Consolidate_Growth(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t, filepath.Join(t.TempDir(), "mnemo.db"))
	if _, err := eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	const n = 200
	sents := mergeSentences(n)
	for round := range 2 {
		for i, s := range sents {
			if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "b", Source: "note", ItemID: fmt.Sprintf("r%d-%d", round, i), Text: s}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, pass := range mnemo.Passes {
		if _, err := eng.Consolidate(ctx, "b", pass); err != nil {
			t.Fatalf("%s: %v", pass, err)
		}
	}
	if got := activeFacts(t, eng); got != n {
		t.Errorf("after consolidation: got %d active facts, want %d", got, n)
	}
	for _, s := range sents {
		rec, err := eng.Recall(ctx, memory.Query{BankID: "b", Text: s, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, r := range rec.Results {
			if r.Fact.Text == s {
				seen++
			}
			for _, p := range r.Previously {
				if p.Text == s {
					seen++
				}
			}
		}
		if seen != 1 {
			t.Errorf("recall %q: got it %d times, want once", s, seen)
		}
	}
}

// A near-duplicate that is another fact — another speaker, a number
// changed — is never merged; only the same sentence said again is.
func TestEngine_MergeDuplicates_NotSame(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t, filepath.Join(t.TempDir(), "mnemo.db"))
	if _, err := eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	for i, r := range []memory.RetainRequest{
		{Speaker: "Ann", Text: "I ran 5 km along the river."},
		{Speaker: "Bob", Text: "I ran 5 km along the river."},
		{Speaker: "Ann", Text: "I ran 6 km along the river."},
		{Speaker: "Ann", Text: "i ran 5 km along the river!"},
	} {
		r.BankID, r.Source, r.ItemID = "b", "chat", fmt.Sprint(i)
		if _, err := eng.Retain(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	res, err := eng.MergeDuplicates(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	// Four facts; only Ann's first and last are the same: 4 − 1 = 3 stay.
	if res.Merged != 1 {
		t.Errorf("merged: got %d, want 1", res.Merged)
	}
	if got, want := activeFacts(t, eng), 4-1; got != want {
		t.Errorf("active facts: got %d, want %d", got, want)
	}
	if _, err := eng.MergeDuplicates(ctx, "nope"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("unknown bank: got %v, want ENOTFOUND", err)
	}
}

// TestEngine_Consolidate_Merge runs the merge as a consolidation pass: a
// run record with its counts, listed by Runs.
func TestEngine_Consolidate_Merge(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t, filepath.Join(t.TempDir(), "mnemo.db"))
	if _, err := eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	sents := mergeSentences(3)
	for round := range 2 {
		for i, s := range sents {
			if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "b", Source: "note", ItemID: fmt.Sprintf("r%d-%d", round, i), Text: s}); err != nil {
				t.Fatal(err)
			}
		}
	}
	run, err := eng.Consolidate(ctx, "b", mnemo.PassMerge)
	if err != nil {
		t.Fatal(err)
	}
	if run.Pass != mnemo.PassMerge || run.Status != memory.RunOK || run.Counts["merged"] != 3 || run.Counts["groups"] != 3 {
		t.Fatalf("Consolidate(merge) = %+v, want ok with 3 groups merged", run)
	}
	if got := activeFacts(t, eng); got != 3 {
		t.Errorf("after the merge pass: %d active facts, want 3", got)
	}
	runs, err := eng.Runs(ctx, "b", 0)
	if err != nil || len(runs) != 1 || runs[0].ID != run.ID {
		t.Errorf("Runs = %v, %v; want the merge run", runs, err)
	}
	if _, err := eng.Consolidate(ctx, "nobank", mnemo.PassMerge); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("Consolidate(merge) of an unknown bank: %v, want ENOTFOUND", err)
	}
}
