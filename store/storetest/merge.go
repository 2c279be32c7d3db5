package storetest

import (
	"fmt"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// The Merge group checks memory.FactMerger: a duplicate folds into its
// keeper in one step (refs, links, observation sources, relation
// support, counters, status), merging again is a no-op, and a bad call
// changes nothing.

// mergeSetup writes forgetBatch's three facts in bank b, an observation
// naming f2, f1 and f0, two accesses of f2 and one of f0, and one
// reinforcement of f2. It returns the fact ids.
func (e *env) mergeSetup() (f func(int) string) {
	e.newBank("b")
	e.writeNew(forgetBatch("b", "d1"))
	f = func(i int) string { return TestFactID("d1", i) }
	if os, ok := e.s.(memory.ObservationStore); ok {
		if err := os.PutObservations(e.ctx, "b", []*memory.Observation{testObservation("o1", "Zara and her pets", f(2), f(1), f(0))}); err != nil {
			e.t.Fatal(err)
		}
	}
	for _, a := range []struct {
		id string
		at time.Time
	}{{f(2), hours(1)}, {f(2), hours(3)}, {f(0), hours(2)}} {
		if err := e.s.RecordAccess(e.ctx, "b", []string{a.id}, a.at); err != nil {
			e.t.Fatal(err)
		}
	}
	w := NewTestBatch("b", "d2", "Zara likes the sea")
	w.Reinforce = []string{f(2)}
	e.writeNew(w)
	return f
}

// linkSet spells links as "from>to:kind:entity", sorted.
func linkSet(ls []memory.Link) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = fmt.Sprintf("%s>%s:%s:%s", l.FromID, l.ToID, l.Kind, l.EntityID)
	}
	slices.Sort(out)
	return out
}

// Move: f2 (Zara and Quentin) merged into f0 (Zara): f0 mentions both,
// the links of f2 are f0's (f2→f0 would join f0 to itself and goes),
// the relation it supported and the observation name f0 once, f0 has
// the accesses of both and one reinforcement more than f2 had plus one,
// and f2 is superseded by f0, gone from searches.
func testMergeMove(e *env) {
	f := e.mergeSetup()
	zara, quentin := memory.EntityID("Zara"), memory.EntityID("Quentin")
	before := e.fact("b", f(2))
	keeperBefore := e.fact("b", f(0))
	ok, err := e.s.MergeFact(e.ctx, "b", f(2), f(0), hours(4))
	if err != nil || !ok {
		e.t.Fatalf("MergeFact(f2, f0): %v, %v; want true, nil", ok, err)
	}
	refs := e.refs("b", f(0), f(1), f(2))
	var got []string
	for _, r := range refs {
		got = append(got, r.FactID+"/"+r.EntityID)
	}
	slices.Sort(got)
	want := []string{f(0) + "/" + quentin, f(0) + "/" + zara, f(1) + "/" + zara}
	slices.Sort(want)
	checkIDs(e.t, "refs after merge", got, want)
	checkIDs(e.t, "links after merge", linkSet(e.links("b", []string{f(0), f(1), f(2)})),
		[]string{f(0) + ">" + f(1) + ":temporal:", f(1) + ">" + f(0) + ":temporal:"})
	checkIDs(e.t, "FactsByEntity(quentin)", e.factsByEntity("b", quentin, 10), []string{f(0)})

	rels, err := e.s.Relations(e.ctx, "b", memory.RelationQuery{})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, r := range rels {
		switch r.Predicate {
		case "visited":
			checkIDs(e.t, "visited support", r.FactIDs, []string{f(0)})
		case "owns":
			checkIDs(e.t, "owns support", r.FactIDs, []string{f(0), f(1)})
		}
	}
	if os, ok := e.s.(memory.ObservationStore); ok {
		obs, err := os.Observations(e.ctx, "b", []string{"o1"})
		if err != nil || len(obs) != 1 {
			e.t.Fatalf("Observations(o1): %d, %v", len(obs), err)
		}
		// [f2, f1, f0] with f2 → f0: f0 takes f2's first place, its own repeat goes.
		checkIDs(e.t, "o1 sources", obs[0].SourceFactIDs, []string{f(0), f(1)})
	}

	k := e.fact("b", f(0))
	// Accesses: f2 had 2, f0 had 1 → 3; reinforcements: f0 0 + 1 + f2's 1 = 2.
	if k.AccessCount != keeperBefore.AccessCount+before.AccessCount || k.AccessCount != 3 {
		e.t.Errorf("keeper AccessCount: got %d, want 1 + 2 = 3", k.AccessCount)
	}
	if k.ReinforcementCount != 0+1+1 {
		e.t.Errorf("keeper ReinforcementCount: got %d, want 0 + 1 + 1 = 2", k.ReinforcementCount)
	}
	if !k.LastAccessed.Equal(hours(3)) {
		e.t.Errorf("keeper LastAccessed: got %v, want the later access %v", k.LastAccessed, hours(3))
	}
	wantDup := *before
	wantDup.Status, wantDup.SupersededBy, wantDup.ExpiredAt = memory.StatusSuperseded, f(0), hours(4)
	checkFact(e.t, e.fact("b", f(2)), &wantDup)
	checkIDs(e.t, "SearchText(quentin)", hitIDs(e.searchText("b", 10, memory.Filter{}, "quentin")), nil)
	for _, h := range e.searchVector("b", forgetBatch("b", "d1").Facts[2].Embedding, 10, memory.Filter{}) {
		if h.ID == f(2) {
			e.t.Errorf("SearchVector after merge: got the merged fact %s", f(2))
		}
	}
	old, err := e.s.SupersededBy(e.ctx, "b", []string{f(0)})
	if err != nil || len(old) != 1 || old[0].ID != f(2) {
		e.t.Errorf("SupersededBy(f0): got %v, %v, want [f2]", old, err)
	}
	if st := e.stats("b"); st.Active != 3 || st.Superseded != 1 {
		e.t.Errorf("Stats: got Active %d, Superseded %d, want 3, 1", st.Active, st.Superseded)
	}
}

// Again: merging a merged fact into its keeper again reports false and
// changes nothing.
func testMergeAgain(e *env) {
	f := e.mergeSetup()
	if _, err := e.s.MergeFact(e.ctx, "b", f(2), f(0), hours(4)); err != nil {
		e.t.Fatal(err)
	}
	k, d := e.fact("b", f(0)), e.fact("b", f(2))
	ok, err := e.s.MergeFact(e.ctx, "b", f(2), f(0), hours(5))
	if err != nil || ok {
		e.t.Fatalf("MergeFact again: %v, %v; want false, nil", ok, err)
	}
	checkFact(e.t, e.fact("b", f(0)), k)
	checkFact(e.t, e.fact("b", f(2)), d)
}

// Errors: each bad call is refused with its code and changes nothing.
func testMergeErrors(e *env) {
	f := e.mergeSetup()
	if _, err := e.s.MergeFact(e.ctx, "b", f(2), f(0), hours(4)); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.s.SetFactStatus(e.ctx, "b", []string{TestFactID("d2", 0)}, memory.StatusArchived); err != nil {
		e.t.Fatal(err)
	}
	snap := e.facts("b", f(0), f(1), f(2), TestFactID("d2", 0))
	links := linkSet(e.links("b", []string{f(0), f(1), f(2)}))
	for _, c := range []struct {
		name, bank, dup, keeper, code string
	}{
		{"itself", "b", f(0), f(0), memory.EINVALID},
		{"empty", "b", "", f(0), memory.EINVALID},
		{"unknown dup", "b", "nope", f(0), memory.ENOTFOUND},
		{"unknown keeper", "b", f(1), "nope", memory.ENOTFOUND},
		{"unknown bank", "zz", f(1), f(0), memory.ENOTFOUND},
		{"superseded keeper", "b", f(1), f(2), memory.ECONFLICT},
		{"superseded dup", "b", f(2), f(1), memory.ECONFLICT},
		{"archived dup", "b", TestFactID("d2", 0), f(0), memory.ECONFLICT},
		{"archived keeper", "b", f(1), TestFactID("d2", 0), memory.ECONFLICT},
	} {
		ok, err := e.s.MergeFact(e.ctx, c.bank, c.dup, c.keeper, hours(5))
		if ok {
			e.t.Errorf("MergeFact %s: reported a merge", c.name)
		}
		wantCode(e.t, "MergeFact "+c.name, err, c.code)
	}
	after := e.facts("b", f(0), f(1), f(2), TestFactID("d2", 0))
	for i := range snap {
		checkFact(e.t, after[i], snap[i])
	}
	checkIDs(e.t, "links after refused merges", linkSet(e.links("b", []string{f(0), f(1), f(2)})), links)
}
