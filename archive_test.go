package mnemo_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// recalls reports whether recalling query from bank b returns text as a
// fact, alone or bundled under an observation, and whether it returns
// the observation obs.
func recalls(t *testing.T, eng interface {
	Recall(context.Context, memory.Query) (*memory.Recollection, error)
}, query, text, obs string) (fact, observation bool) {
	t.Helper()
	rec, err := eng.Recall(context.Background(), memory.Query{BankID: "b", Text: query, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rec.Results {
		fact = fact || strings.Contains(r.Fact.Text, text)
	}
	for _, o := range rec.Observations {
		observation = observation || o.Observation.ID == obs
		for _, f := range o.Facts {
			fact = fact || strings.Contains(f.Text, text)
		}
	}
	return fact, observation
}

// TestEngine_Archive runs archival end to end on SQLite with an injected
// clock: the old, consolidated, unused facts and the old, stale
// observation are archived and recall no longer finds them; unconsolidated,
// fresh and used facts stay. RestoreArchived brings them back, recall
// finds them again, and the next archival leaves them be.
func TestEngine_Archive(t *testing.T) {
	ctx := context.Background()
	now := monday.Add(100 * 24 * time.Hour)
	clock := testutil.NewClock(now)
	eng := open(t, mnemo.Config{Now: clock.Now, AccessFlush: -1})
	if _, err := eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	day := 24 * time.Hour
	w := writeFacts(t, eng.Engine, "doc", []string{
		"Sam parked on level three of the garage", // 0: archived
		"Sam's locker code is 4411",               // 1: archived
		"Sam moved desks to the window",           // 2: unconsolidated
		"Sam met the new intern on Friday",        // 3: fresh
		"Sam reads the team wiki every morning",   // 4: used lately
	}, func(i int, f *memory.Fact) {
		f.CreatedAt, f.ConsolidatedAt = now.Add(-60*day), now.Add(-59*day)
		switch i {
		case 2:
			f.ConsolidatedAt = time.Time{}
		case 3:
			f.CreatedAt = now.Add(-3 * day)
		case 4:
			f.AccessCount, f.LastAccessed = 9, now.Add(-day)
		}
	})
	parked, locker := w.Facts[0].ID, w.Facts[1].ID
	st := mnemo.StoreOf(eng.Engine).(memory.ObservationStore)
	obs := []*memory.Observation{
		{ID: "o-garage", Text: "Sam always parks on the third level of the garage", SourceFactIDs: []string{parked}, EvidenceCount: 1,
			Embedding: storetest.TestVector("o-garage", 384), CreatedAt: now.Add(-120 * day), UpdatedAt: now.Add(-60 * day)},
		{ID: "o-wiki", Text: "Sam keeps up with the team wiki", SourceFactIDs: []string{w.Facts[4].ID}, EvidenceCount: 1,
			Embedding: storetest.TestVector("o-wiki", 384), CreatedAt: now.Add(-10 * day), UpdatedAt: now.Add(-10 * day)},
	}
	if err := st.PutObservations(ctx, "b", obs); err != nil {
		t.Fatal(err)
	}
	const question = "Where does Sam park in the garage?"
	if fact, o := recalls(t, eng, question, "level three", "o-garage"); !fact || !o {
		t.Fatalf("before archival: fact %v, observation %v; want both recalled", fact, o)
	}

	r, err := eng.Consolidate(ctx, "b", mnemo.PassArchive)
	if err != nil {
		t.Fatalf("Consolidate(archive): %v", err)
	}
	want := map[string]int{"facts_scanned": 5, "facts_archived": 2, "observations_scanned": 2, "observations_archived": 1}
	if r.Status != memory.RunOK || !maps.Equal(r.Counts, want) || r.LLMCalls != 0 {
		t.Fatalf("run: %+v, want ok with %v and no LLM", r, want)
	}
	if fact, o := recalls(t, eng, question, "level three", "o-garage"); fact || o {
		t.Errorf("after archival: fact %v, observation %v; want neither recalled", fact, o)
	}
	if fact, _ := recalls(t, eng, "locker code", "4411", ""); fact {
		t.Errorf("after archival: the locker code is recalled")
	}
	for _, text := range []string{"desks", "intern", "wiki"} {
		if fact, _ := recalls(t, eng, "Sam "+text, text, ""); !fact {
			t.Errorf("after archival: %q is no longer recalled", text)
		}
	}
	if st := testutil.Stats(t, mnemo.StoreOf(eng.Engine), "b"); st.Archived != 2 || st.Active != 3 {
		t.Errorf("stats: %+v, want 2 archived, 3 active", st)
	}

	// Restore: an id that names nothing changes nothing.
	if _, err := eng.RestoreArchived(ctx, "b", []string{parked, "o-garage", "nope"}); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("RestoreArchived(…, nope): %v, want ENOTFOUND", err)
	}
	for name, ids := range map[string][]string{"none": nil, "empty": {""}, "twice": {parked, parked}} {
		if _, err := eng.RestoreArchived(ctx, "b", ids); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("RestoreArchived(%s): %v, want EINVALID", name, err)
		}
	}
	if _, err := eng.RestoreArchived(ctx, "nope", []string{parked}); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("RestoreArchived(unknown bank): %v, want ENOTFOUND", err)
	}
	if fact, o := recalls(t, eng, question, "level three", "o-garage"); fact || o {
		t.Errorf("after refused restores: fact %v, observation %v; want neither", fact, o)
	}
	got, err := eng.RestoreArchived(ctx, "b", []string{"o-garage", parked})
	if err != nil || !slices.Equal(got.Facts, []string{parked}) || !slices.Equal(got.Observations, []string{"o-garage"}) {
		t.Fatalf("RestoreArchived: %+v, %v", got, err)
	}
	if fact, o := recalls(t, eng, question, "level three", "o-garage"); !fact || !o {
		t.Errorf("after restore: fact %v, observation %v; want both recalled", fact, o)
	}
	if fact, _ := recalls(t, eng, "locker code", "4411", ""); fact {
		t.Errorf("the locker code came back unasked")
	}
	// Restored counts as used: the next night's archival leaves them be,
	// and the fact left archived stays so.
	clock.Advance(day)
	r, err = eng.Consolidate(ctx, "b", mnemo.PassArchive)
	if err != nil || r.Counts["facts_archived"] != 0 || r.Counts["observations_archived"] != 0 {
		t.Errorf("archival after the restore: %+v, %v; want nothing archived", r, err)
	}
	fs, _ := mnemo.StoreOf(eng.Engine).Facts(ctx, "b", []string{parked, locker})
	if len(fs) != 2 || fs[0].Status != memory.StatusActive || fs[0].AccessCount != 1 || fs[1].Status != memory.StatusArchived {
		t.Errorf("facts after the restore: %+v", fs)
	}
}

// Recall records the access of the observations it returned; Close
// writes it, and archival reads it.
func TestEngine_Recall_RecordsObservationAccess(t *testing.T) {
	ctx := context.Background()
	clock := testutil.NewClock(monday.Add(time.Hour))
	eng := open(t, mnemo.Config{Now: clock.Now, AccessFlush: time.Hour})
	if _, err := eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	w := writeFacts(t, eng.Engine, "doc", []string{"Sam parked on level three of the garage", "Sam likes green tea"}, nil)
	st := mnemo.StoreOf(eng.Engine).(memory.ObservationStore)
	if err := st.PutObservations(ctx, "b", []*memory.Observation{
		{ID: "o-garage", Text: "Sam always parks on the third level of the garage", SourceFactIDs: []string{w.Facts[0].ID}, EvidenceCount: 1, CreatedAt: monday, UpdatedAt: monday},
		{ID: "o-tea", Text: "Green tea every afternoon", SourceFactIDs: []string{w.Facts[1].ID}, EvidenceCount: 1, CreatedAt: monday, UpdatedAt: monday},
	}); err != nil {
		t.Fatal(err)
	}
	if _, o := recalls(t, eng, "Where does Sam park in the garage?", "", "o-garage"); !o {
		t.Fatal("recall did not return o-garage")
	}
	accessed := clock.Now()
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	reopened := testutil.OpenStoreAt(t, eng.path)
	got, err := reopened.Observations(ctx, "b", []string{"o-garage", "o-tea"})
	if err != nil || len(got) != 2 {
		t.Fatalf("Observations: %v, %v", got, err)
	}
	if got[0].AccessCount != 1 || !got[0].LastAccessed.Equal(accessed) || got[1].AccessCount != 0 {
		t.Errorf("accesses: o-garage %d at %v, o-tea %d; want 1 at %v and 0", got[0].AccessCount, got[0].LastAccessed, got[1].AccessCount, accessed)
	}
}
