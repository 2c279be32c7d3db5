package consolidate_test

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/sqlite"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestArchivableFact checks seed 001's rule on facts: consolidated, old,
// low decay; never unconsolidated, fresh, used, important, short-term or
// directive facts. Decay scores worked out by hand (seed 002).
func TestArchivableFact(t *testing.T) {
	d := consolidate.NewDefaults()
	now := t0.Add(100 * day)
	// old: created 40 days ago, consolidated, importance 0.5, never
	// accessed: max(0.5·0.4, 2^-(960/72)) = 0.2 < 0.25.
	old := func() *memory.Fact {
		return &memory.Fact{Status: memory.StatusActive, Importance: 0.5, CreatedAt: now.Add(-40 * day), ConsolidatedAt: now.Add(-39 * day)}
	}
	for _, c := range []struct {
		name   string
		change func(f *memory.Fact)
		want   bool
	}{
		{"OldUnused", func(*memory.Fact) {}, true},
		{"Unconsolidated", func(f *memory.Fact) { f.ConsolidatedAt = time.Time{} }, false},
		// 29 days: under the 30-day age (seed 001's system).
		{"Fresh", func(f *memory.Fact) { f.CreatedAt = now.Add(-29 * day) }, false},
		{"AtTheAge", func(f *memory.Fact) { f.CreatedAt = now.Add(-30 * day) }, true},
		// One access 40 days ago: 0.2 + ln 2/5 = 0.339.
		{"AccessedOnce", func(f *memory.Fact) { f.AccessCount, f.LastAccessed = 1, now.Add(-40*day) }, false},
		// Reinforced once: 0.2 + 0.139.
		{"Reinforced", func(f *memory.Fact) { f.ReinforcementCount = 1 }, false},
		// Importance 0.7: floor 0.28.
		{"Important", func(f *memory.Fact) { f.Importance = 0.7 }, false},
		// Importance 0.6: floor 0.24, still under.
		{"FairlyImportant", func(f *memory.Fact) { f.Importance = 0.6 }, true},
		// Accessed 4 days ago: recency 2^(-96/72) = 0.397.
		{"RecentlyUsed", func(f *memory.Fact) { f.LastAccessed = now.Add(-4 * day) }, false},
		{"Directive", func(f *memory.Fact) { f.Tags = []string{"work", "directive"} }, false},
		{"ShortTerm", func(f *memory.Fact) { f.ExpiresAt = now.Add(-day) }, false},
		{"Superseded", func(f *memory.Fact) { f.Status = memory.StatusSuperseded }, false},
		{"AlreadyArchived", func(f *memory.Fact) { f.Status = memory.StatusArchived }, false},
		{"NoCreationTime", func(f *memory.Fact) { f.CreatedAt = time.Time{} }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := old()
			c.change(f)
			if got := consolidate.ArchivableFact(f, now, d); got != c.want {
				t.Errorf("ArchivableFact: got %v, want %v (decay %.4f)", got, c.want, consolidate.DecayScore(f, now, d))
			}
		})
	}
}

// TestArchivableObservation checks the rule on observations: old (90
// days), stale (30 days without an update or a recall) and low decay.
func TestArchivableObservation(t *testing.T) {
	d := consolidate.NewDefaults()
	now := t0.Add(200 * day)
	// old: created 100 days ago, updated 40 days ago, one source, never
	// recalled: 2^-(960/72) ≈ 0.
	old := func() *memory.Observation {
		return &memory.Observation{Status: memory.StatusActive, EvidenceCount: 1, CreatedAt: now.Add(-100 * day), UpdatedAt: now.Add(-40 * day)}
	}
	for _, c := range []struct {
		name   string
		change func(o *memory.Observation)
		want   bool
		decay  float64
	}{
		{"OldStale", func(*memory.Observation) {}, true, 0},
		{"Young", func(o *memory.Observation) { o.CreatedAt = now.Add(-89 * day) }, false, 0},
		// Updated 29 days ago: 2^(-696/72) = 0.00123, but not stale yet.
		{"UpdatedLately", func(o *memory.Observation) { o.UpdatedAt = now.Add(-29 * day) }, false, 0.001230},
		// Recalled 10 days ago: 2^(-240/72) + ln 2/5 = 0.0992 + 0.1386.
		{"RecalledLately", func(o *memory.Observation) { o.AccessCount, o.LastAccessed = 1, now.Add(-10*day) }, false, 0.237842},
		// Three sources: ln 3/5 = 0.2197 → capped at 0.2, under 0.25.
		{"WellEvidenced", func(o *memory.Observation) { o.EvidenceCount = 3 }, true, 0.2},
		// Recalled once long ago, two sources: 0.139 + 0.139 = 0.277.
		{"RecalledAndEvidenced", func(o *memory.Observation) {
			o.EvidenceCount, o.AccessCount, o.LastAccessed = 2, 1, now.Add(-35*day)
		}, false, 0.277259},
		{"Archived", func(o *memory.Observation) { o.Status = memory.StatusArchived }, false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := old()
			c.change(o)
			if got := consolidate.ArchivableObservation(o, now, d); got != c.want {
				t.Errorf("ArchivableObservation: got %v, want %v", got, c.want)
			}
			if got := consolidate.ObservationDecay(o, now, d); !near(got, c.decay, 1e-3) {
				t.Errorf("ObservationDecay: got %.6f, want %.6f", got, c.decay)
			}
		})
	}
}

// archiveBank writes facts and observations of every kind the rule tells
// apart to a new SQLite store, as of now.
func archiveBank(t *testing.T, now time.Time) (*sqlite.Store, *memory.WriteBatch) {
	t.Helper()
	st := testutil.OpenStore(t)
	testutil.CreateBank(t, st, "b")
	w := storetest.NewTestBatch("b", "doc",
		"Sam parked on level 3",        // 0: old, consolidated, unused → archived
		"Sam bought milk on Tuesday",   // 1: old, consolidated, unused → archived
		"Sam's locker code is 4411",    // 2: old, consolidated, unused → archived
		"Sam moved desks last month",   // 3: unconsolidated → kept
		"Sam met the new intern today", // 4: fresh → kept
		"Sam reads the wiki daily",     // 5: accessed lately → kept
		"Never push on Fridays",        // 6: a directive → kept
	)
	for i, f := range w.Facts {
		f.CreatedAt, f.ConsolidatedAt = now.Add(-60*day), now.Add(-59*day)
		switch i {
		case 3:
			f.ConsolidatedAt = time.Time{}
		case 4:
			f.CreatedAt = now.Add(-2 * day)
		case 5:
			f.AccessCount, f.LastAccessed = 12, now.Add(-day)
		case 6:
			f.Tags = []string{"directive"}
		}
	}
	if _, err := st.Write(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	obs := []*memory.Observation{
		{ID: "o-stale", Text: "Sam parks on level 3 every day", SourceFactIDs: []string{w.Facts[0].ID}, EvidenceCount: 1},
		{ID: "o-young", Text: "Sam shops on Tuesdays", SourceFactIDs: []string{w.Facts[1].ID}, EvidenceCount: 1},
		{ID: "o-recalled", Text: "Sam keeps his codes in his head", SourceFactIDs: []string{w.Facts[2].ID}, EvidenceCount: 1},
	}
	for _, o := range obs {
		o.Embedding = storetest.TestVector(o.Text, storetest.TestDimension)
		o.CreatedAt, o.UpdatedAt = now.Add(-120*day), now.Add(-60*day)
	}
	obs[1].CreatedAt = now.Add(-20 * day)
	obs[2].AccessCount, obs[2].LastAccessed = 3, now.Add(-2*day)
	if err := st.PutObservations(context.Background(), "b", obs); err != nil {
		t.Fatal(err)
	}
	return st, w
}

func TestArchive(t *testing.T) {
	ctx := context.Background()
	now := t0.Add(100 * day)
	st, w := archiveBank(t, now)
	d := consolidate.NewDefaults()
	d.BatchSize = 2 // several pages, several batches
	res, err := consolidate.Archive(ctx, st, "b", now, d)
	if err != nil {
		t.Fatalf("Archive: %v", err)
	}
	want := map[string]int{"facts_scanned": 7, "facts_archived": 3, "observations_scanned": 3, "observations_archived": 1}
	if got := res.Counts(); !maps.Equal(got, want) {
		t.Errorf("counts %v, want %v", got, want)
	}
	facts, _ := st.Facts(ctx, "b", storetestIDs(w))
	for i, f := range facts {
		wantStatus := memory.StatusActive
		if i < 3 {
			wantStatus = memory.StatusArchived
		}
		if f.Status != wantStatus {
			t.Errorf("fact %d %q: %s, want %s", i, f.Text, f.Status, wantStatus)
		}
	}
	obs, _ := st.Observations(ctx, "b", []string{"o-stale", "o-young", "o-recalled"})
	for i, o := range obs {
		if wantStatus := map[bool]memory.Status{true: memory.StatusArchived, false: memory.StatusActive}[i == 0]; o.Status != wantStatus {
			t.Errorf("observation %s: %s, want %s", o.ID, o.Status, wantStatus)
		}
	}
	// Archived facts and observations are out of the searches.
	hits, _ := st.SearchText(ctx, "b", []string{"level", "milk", "locker"}, 10, memory.Filter{})
	if len(hits) != 0 {
		t.Errorf("SearchText after archival: %v, want nothing", hits)
	}
	if hits, _ := st.SearchObservationsText(ctx, "b", []string{"level"}, 10); len(hits) != 0 {
		t.Errorf("SearchObservationsText after archival: %v, want nothing", hits)
	}
	// Idempotent: nothing more to archive.
	again, err := consolidate.Archive(ctx, st, "b", now, d)
	if err != nil || again.FactsArchived != 0 || again.ObservationsArchived != 0 || again.FactsScanned != 4 {
		t.Errorf("second run: %v, %v; want 4 facts scanned, nothing archived", again.Counts(), err)
	}
	bad := d
	bad.Archive.FactAge = 0
	if _, err := consolidate.Archive(ctx, st, "b", now, bad); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("zero age: %v, want EINVALID", err)
	}
	if _, err := consolidate.Archive(ctx, st, "nope", now, d); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("unknown bank: %v, want ENOTFOUND", err)
	}
}

// forgetting wraps a store and forgets one fact just before the first
// status change, as a forget running beside the pass would.
type forgetting struct {
	*sqlite.Store
	victim string
	done   bool
}

func (f *forgetting) SetFactStatus(ctx context.Context, bank string, ids []string, to memory.Status) ([]string, error) {
	if !f.done {
		f.done = true
		if _, err := f.Forget(ctx, bank, []string{f.victim}, &memory.ForgetRecord{Actor: "test"}); err != nil {
			return nil, err
		}
	}
	return f.Store.SetFactStatus(ctx, bank, ids, to)
}

// A fact that changes between the read and the write (here: forgotten)
// is left out; the rest of its batch is archived all the same.
func TestArchive_ChangedMeanwhile(t *testing.T) {
	ctx := context.Background()
	now := t0.Add(100 * day)
	st, w := archiveBank(t, now)
	d := consolidate.NewDefaults()
	res, err := consolidate.Archive(ctx, &forgetting{Store: st, victim: w.Facts[1].ID}, "b", now, d)
	if err != nil || res.FactsArchived != 2 {
		t.Fatalf("Archive: %v, %v; want the 2 facts left archived", res, err)
	}
	facts, _ := st.Facts(ctx, "b", []string{w.Facts[0].ID, w.Facts[2].ID})
	if len(facts) != 2 || facts[0].Status != memory.StatusArchived || facts[1].Status != memory.StatusArchived {
		t.Errorf("facts 0 and 2: %+v, want archived", facts)
	}
}

func storetestIDs(w *memory.WriteBatch) []string {
	var ids []string
	for _, f := range w.Facts {
		ids = append(ids, f.ID)
	}
	return slices.Clip(ids)
}
