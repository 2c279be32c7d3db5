package mnemo_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
)

func TestEngine_Consolidate(t *testing.T) {
	ctx := context.Background()
	clock := testutil.NewClock(monday)
	eng := open(t, mnemo.Config{Now: clock.Now})
	if _, err := eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"I had lunch with Alice in Lisbon.", "Alice plays the cello on Sundays."} {
		if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "b", Text: text, At: monday}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := eng.Stats(ctx, "b")
	if err != nil || st.Entities == 0 {
		t.Fatalf("Stats: %+v, %v; want some entities", st, err)
	}

	t.Run("OK", func(t *testing.T) {
		clock.Set(monday.Add(60 * 24 * time.Hour))
		r, err := eng.Consolidate(ctx, "b", "lifecycle")
		if err != nil {
			t.Fatalf("Consolidate: %v", err)
		}
		if r.Status != memory.RunOK || r.Pass != "lifecycle" || r.BankID != "b" || r.FinishedAt.IsZero() {
			t.Errorf("run: %+v", *r)
		}
		if r.Counts["facts_scored"] != st.Facts || r.Counts["entities_scored"] != st.Entities {
			t.Errorf("counts %v: want facts_scored %d, entities_scored %d", r.Counts, st.Facts, st.Entities)
		}
		// 60 days after retain, every entity's salience changed from 1.
		if r.Counts["entities_updated"] != st.Entities {
			t.Errorf("entities_updated %d, want %d", r.Counts["entities_updated"], st.Entities)
		}
		again, err := eng.Consolidate(ctx, "b", "")
		if err != nil || again.Counts["facts_updated"] != 0 || again.Counts["entities_updated"] != 0 {
			t.Errorf("second run at the same time: %+v, %v; want nothing updated", again, err)
		}
		runs, err := eng.Runs(ctx, "b", 0)
		// Both started at the same instant: any order (storetest checks
		// newest first).
		if err != nil || len(runs) != 2 || runs[0].ID == runs[1].ID ||
			(runs[0].ID != r.ID && runs[0].ID != again.ID) || (runs[1].ID != r.ID && runs[1].ID != again.ID) {
			t.Fatalf("Runs: %d runs, %v; want the two", len(runs), err)
		}
		tiers, err := eng.Tiers(ctx, "b")
		if err != nil {
			t.Fatal(err)
		}
		// One retain each (2 episodes at most), all on day 0: every
		// entity stays L0.
		if tiers.L0 != st.Entities || tiers.L1+tiers.L2 != 0 {
			t.Errorf("Tiers: %+v, want %d in L0", *tiers, st.Entities)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		_, err := eng.Consolidate(ctx, "b", "dreams-of-nothing")
		if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), "lifecycle") {
			t.Errorf("unknown pass: %v, want EINVALID listing lifecycle", err)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		if _, err := eng.Consolidate(ctx, "nope", "lifecycle"); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Errorf("Consolidate(unknown bank): %v, want ENOTFOUND", err)
		}
		if _, err := eng.Tiers(ctx, "nope"); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Errorf("Tiers(unknown bank): %v, want ENOTFOUND", err)
		}
		if _, err := eng.Runs(ctx, "nope", 0); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Errorf("Runs(unknown bank): %v, want ENOTFOUND", err)
		}
	})
}
