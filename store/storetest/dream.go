package storetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// dreams returns the store's Dreams, or skips the test.
func (e *env) dreams() memory.Dreams {
	e.t.Helper()
	d, ok := e.s.(memory.Dreams)
	if !ok {
		e.t.Skip("the store keeps no dreams (memory.Dreams)")
	}
	return d
}

func testDream(id, bridge, insight string, created float64, sources ...string) *memory.Dream {
	return &memory.Dream{ID: id, Bridge: bridge, Insight: insight, SourceFactIDs: sources,
		Embedding: TestVector(insight, TestDimension), CreatedAt: hours(created)}
}

// Dreams round-trip whole, embeddings included; a second put of an id
// replaces it; they are listed newest first (ties by id, descending), at
// most limit, 0 meaning all; another bank's are not listed.
func testDreamsRoundTrip(e *env) {
	ds := e.dreams()
	e.newBank("b")
	e.newBank("c")
	old := testDream("d-old", "rhythm", "Sam's running schedule follows the same cycle as the sourdough starter.", -48, "f1", "f2")
	tieA := testDream("d-a", "patience", "Both the garden and the code review reward waiting a day.", -1, "f3")
	tieB := testDream("d-b", "maintenance", "Sam tunes the bicycle the way he refactors: weekly and in small steps.", -1, "f4", "f5")
	newest := testDream("d-new", "scarcity", "Sam buys books exactly when he has no time to read them.", 2)
	if err := ds.PutDreams(e.ctx, "b", []*memory.Dream{old, tieA, newest, tieB}); err != nil {
		e.t.Fatalf("PutDreams: %v", err)
	}
	if err := ds.PutDreams(e.ctx, "c", []*memory.Dream{testDream("d-c", "other", "Another bank's dream.", 5)}); err != nil {
		e.t.Fatalf("PutDreams(c): %v", err)
	}
	ids := func(got []*memory.Dream) []string {
		out := []string{}
		for _, d := range got {
			out = append(out, d.ID)
		}
		return out
	}
	want := []string{"d-new", "d-b", "d-a", "d-old"}
	for _, c := range []struct {
		limit int
		want  []string
	}{{0, want}, {2, want[:2]}, {10, want}} {
		got, err := ds.ListDreams(e.ctx, "b", c.limit)
		if err != nil {
			e.t.Fatalf("ListDreams(b, %d): %v", c.limit, err)
		}
		if g := ids(got); !slices.Equal(g, c.want) {
			e.t.Errorf("ListDreams(b, %d) = %v, want %v", c.limit, g, c.want)
		}
	}
	got, _ := ds.ListDreams(e.ctx, "b", 0)
	w := *old
	w.BankID = "b"
	if len(got) == 4 {
		checkDiff(e.t, "ListDreams(b)[3]", got[3], &w, "Embedding")
		checkVector(e.t, "ListDreams(b)[3].Embedding", got[3].Embedding, old.Embedding)
	}

	upd := *old
	upd.Insight, upd.SourceFactIDs = "Sam's runs and the sourdough starter both need feeding every two days.", []string{"f2"}
	if err := ds.PutDreams(e.ctx, "b", []*memory.Dream{&upd}); err != nil {
		e.t.Fatalf("PutDreams(update): %v", err)
	}
	got, _ = ds.ListDreams(e.ctx, "b", 0)
	if len(got) != 4 || got[3].ID != "d-old" || got[3].Insight != upd.Insight || !slices.Equal(got[3].SourceFactIDs, []string{"f2"}) {
		e.t.Errorf("after replacing d-old: %d dreams, last %+v", len(got), got[len(got)-1])
	}
	if got, _ := ds.ListDreams(e.ctx, "c", 0); len(got) != 1 || got[0].ID != "d-c" {
		e.t.Errorf("ListDreams(c) = %v, want d-c alone", ids(got))
	}
}

// Bad dreams, a negative limit and an unknown bank are refused, and a
// refused put stores nothing; an empty bank lists no dreams.
func testDreamsErrors(e *env) {
	ds := e.dreams()
	e.newBank("b")
	if got, err := ds.ListDreams(e.ctx, "b", 0); err != nil || len(got) != 0 {
		e.t.Errorf("ListDreams(empty) = %d, %v; want none", len(got), err)
	}
	good := testDream("d1", "bridge", "insight", 0)
	for name, bad := range map[string]*memory.Dream{
		"no id":       {Bridge: "b", Insight: "i", CreatedAt: testTime},
		"no bridge":   {ID: "x", Insight: "i", CreatedAt: testTime},
		"no insight":  {ID: "x", Bridge: "b", CreatedAt: testTime},
		"no time":     {ID: "x", Bridge: "b", Insight: "i"},
		"bad UTF-8":   {ID: "x", Bridge: "b", Insight: "\xff", CreatedAt: testTime},
		"huge":        {ID: "x", Bridge: "b", Insight: strings.Repeat("a", memory.MaxDreamBytes+1), CreatedAt: testTime},
		"nil element": nil,
	} {
		wantCode(e.t, "PutDreams("+name+")", ds.PutDreams(e.ctx, "b", []*memory.Dream{good, bad}), memory.EINVALID)
	}
	if got, _ := ds.ListDreams(e.ctx, "b", 0); len(got) != 0 {
		e.t.Errorf("refused puts stored %d dreams", len(got))
	}
	wantCode(e.t, "PutDreams(unknown bank)", ds.PutDreams(e.ctx, "nope", []*memory.Dream{good}), memory.ENOTFOUND)
	_, err := ds.ListDreams(e.ctx, "nope", 0)
	wantCode(e.t, "ListDreams(unknown bank)", err, memory.ENOTFOUND)
	_, err = ds.ListDreams(e.ctx, "b", -1)
	wantCode(e.t, "ListDreams(limit -1)", err, memory.EINVALID)
}

// No search returns a dream (seed 000: dreams do not feed back into
// recall): not by its words, not by its vector, not among observations.
func testDreamsNeverSearched(e *env) {
	ds := e.dreams()
	e.newBank("b")
	e.writeNew(NewTestBatch("b", "doc", "Sam bakes sourdough on Sundays"))
	d := testDream("d1", "fermentation", "Sam's marathon training ferments like his sourdough starter", 0, "doc-f0")
	if err := ds.PutDreams(e.ctx, "b", []*memory.Dream{d}); err != nil {
		e.t.Fatal(err)
	}
	for _, h := range e.searchText("b", 10, memory.Filter{}, "marathon", "ferments", "fermentation", "starter") {
		if h.ID == d.ID {
			e.t.Errorf("SearchText found the dream")
		}
	}
	for _, h := range e.searchVector("b", d.Embedding, 10, memory.Filter{}) {
		if h.ID == d.ID {
			e.t.Errorf("SearchVector found the dream")
		}
	}
	if os, ok := e.s.(memory.ObservationStore); ok {
		text, err := os.SearchObservationsText(e.ctx, "b", []string{"marathon", "fermentation"}, 10)
		vec, verr := os.SearchObservationsVector(e.ctx, "b", d.Embedding, 10)
		if err != nil || verr != nil || len(text)+len(vec) != 0 {
			e.t.Errorf("observation searches: %v %v (%v, %v), want nothing", text, vec, err, verr)
		}
	}
	if st := e.stats("b"); st.Facts != 1 {
		e.t.Errorf("Stats counts %d facts, want the one fact (a dream is no fact)", st.Facts)
	}
}

// checkVector compares two vectors within the stores' float32 rounding.
func checkVector(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d dimensions, want %d", what, len(got), len(want))
		return
	}
	for i := range got {
		if d := got[i] - want[i]; d > 1e-6 || d < -1e-6 {
			t.Errorf("%s[%d] = %v, want %v", what, i, got[i], want[i])
			return
		}
	}
}

// Forgetting a fact removes the dreams it is a source of, whole (their
// insight was worded from it), and counts them; other dreams stay.
func testDreamsForget(e *env) {
	ds := e.dreams()
	e.newBank("b")
	e.writeNew(NewTestBatch("b", "d", "Zara swims on Monday", "Zara bakes rye bread", "Zara reads poetry"))
	f := func(i int) string { return TestFactID("d", i) }
	if err := ds.PutDreams(e.ctx, "b", []*memory.Dream{
		testDream("dr1", "rhythm", "Zara swims the way she kneads.", 0, f(0), f(1)),
		testDream("dr2", "quiet", "Zara bakes to the metre of her poems.", 1, f(1), f(2)),
	}); err != nil {
		e.t.Fatal(err)
	}
	rec := e.forget("b", f(0))
	if rec.Counts.Dreams != 1 {
		e.t.Errorf("Forget(f0) counts: %+v, want 1 dream removed", rec.Counts)
	}
	got, _ := ds.ListDreams(e.ctx, "b", 0)
	if len(got) != 1 || got[0].ID != "dr2" {
		e.t.Errorf("dreams after forgetting f0: %d, want dr2 alone", len(got))
	}
	if rec := e.forget("b", f(2)); rec.Counts.Dreams != 1 {
		e.t.Errorf("Forget(f2) counts: %+v, want 1 dream removed", rec.Counts)
	}
	if got, _ := ds.ListDreams(e.ctx, "b", 0); len(got) != 0 {
		e.t.Errorf("dreams after forgetting f2: %d, want none", len(got))
	}
}
