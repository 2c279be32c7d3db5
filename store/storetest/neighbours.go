package storetest

import (
	"maps"
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

func (e *env) neighbours(bank string, ids []string, radius int) map[string][]string {
	e.t.Helper()
	got, err := e.s.Neighbours(e.ctx, bank, ids, radius)
	if err != nil {
		e.t.Fatalf("Neighbours(%q, %q, %d): %v", bank, ids, radius, err)
	}
	if got == nil {
		e.t.Fatalf("Neighbours(%q, %q, %d): nil map", bank, ids, radius)
	}
	return got
}

func checkWindows(e *env, what string, got, want map[string][]string) {
	e.t.Helper()
	if !maps.EqualFunc(got, want, slices.Equal[[]string]) {
		e.t.Errorf("%s: got %q, want %q", what, got, want)
	}
}

// A window is the facts of the fact's own document within radius
// positions of it, in Seq order, cut at the document's ends.
func testNeighboursWindow(e *env) {
	e.newBank("b")
	e.writeNew(NewTestBatch("b", "d1", "one", "two", "three", "four", "five", "six"))
	e.writeNew(NewTestBatch("b", "d2", "alpha", "beta", "gamma"))
	f := TestFactID
	got := e.neighbours("b", []string{f("d1", 0), f("d1", 3), f("d1", 5), f("d2", 1), "nope"}, 2)
	checkWindows(e, "Neighbours(radius 2)", got, map[string][]string{
		f("d1", 0): {f("d1", 0), f("d1", 1), f("d1", 2)},
		f("d1", 3): {f("d1", 1), f("d1", 2), f("d1", 3), f("d1", 4), f("d1", 5)},
		f("d1", 5): {f("d1", 3), f("d1", 4), f("d1", 5)},
		f("d2", 1): {f("d2", 0), f("d2", 1), f("d2", 2)},
	})
	checkWindows(e, "Neighbours(radius 0)", e.neighbours("b", []string{f("d1", 2)}, 0),
		map[string][]string{f("d1", 2): {f("d1", 2)}})
	checkWindows(e, "Neighbours(radius -1)", e.neighbours("b", []string{f("d1", 2)}, -1),
		map[string][]string{f("d1", 2): {f("d1", 2)}})
	checkWindows(e, "Neighbours(radius 10)", e.neighbours("b", []string{f("d2", 0)}, 10),
		map[string][]string{f("d2", 0): {f("d2", 0), f("d2", 1), f("d2", 2)}})
	checkWindows(e, "Neighbours(repeated id)", e.neighbours("b", []string{f("d2", 2), f("d2", 2)}, 1),
		map[string][]string{f("d2", 2): {f("d2", 1), f("d2", 2)}})
	checkWindows(e, "Neighbours(no ids)", e.neighbours("b", nil, 2), map[string][]string{})
}

// Positions count facts of any status: a superseded fact keeps its place.
func testNeighboursStatus(e *env) {
	e.newBank("b")
	e.writeNew(NewTestBatch("b", "d1", "one", "two", "three"))
	w := NewTestBatch("b", "d2", "deux")
	w.Supersede = []memory.Supersession{{FactID: TestFactID("d1", 1), SupersededBy: TestFactID("d2", 0), ValidTo: testTime, ExpiredAt: testTime}}
	e.writeNew(w)
	f := TestFactID
	checkWindows(e, "Neighbours(superseded middle)", e.neighbours("b", []string{f("d1", 0), f("d1", 1)}, 1), map[string][]string{
		f("d1", 0): {f("d1", 0), f("d1", 1)},
		f("d1", 1): {f("d1", 0), f("d1", 1), f("d1", 2)},
	})
}

// Windows never cross banks, and an unknown bank is ENOTFOUND.
func testNeighboursIsolation(e *env) {
	e.newBank("a")
	e.newBank("b")
	e.writeNew(NewTestBatch("a", "d", "one", "two", "three"))
	e.writeNew(NewTestBatch("b", "d", "uno", "dos", "tres"))
	f := TestFactID
	checkWindows(e, "Neighbours(bank b)", e.neighbours("b", []string{f("d", 1)}, 5),
		map[string][]string{f("d", 1): {f("d", 0), f("d", 1), f("d", 2)}})
	e.newBank("empty")
	checkWindows(e, "Neighbours(other bank's ids)", e.neighbours("empty", []string{f("d", 1)}, 1), map[string][]string{})
	for _, ids := range [][]string{nil, {f("d", 1)}} {
		_, err := e.s.Neighbours(e.ctx, "nope", ids, 1)
		wantCode(e.t, "Neighbours(unknown bank)", err, memory.ENOTFOUND)
	}
}
