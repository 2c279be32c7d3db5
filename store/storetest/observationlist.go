package storetest

import (
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

// observationLister returns the store's ObservationLister, or skips the
// test.
func (e *env) observationLister() memory.ObservationLister {
	e.t.Helper()
	l, ok := e.s.(memory.ObservationLister)
	if !ok {
		e.t.Skip("the store lists no observations (memory.ObservationLister)")
	}
	return l
}

// Observations are listed newest first (ties by id, descending), every
// status, at most limit, 0 meaning all; another bank's are not listed.
func testObservationListOrder(e *env) {
	l, os := e.observationLister(), e.observations()
	e.newBank("b")
	e.newBank("c")
	old := testObservation("o-old", "Alice drinks tea in winter", "f1")
	old.CreatedAt = hours(-48)
	tieA := testObservation("o-a", "Bob runs on Sundays", "f2")
	tieB := testObservation("o-b", "Carol paints at night", "f3")
	tieA.CreatedAt, tieB.CreatedAt = hours(-1), hours(-1)
	newest := testObservation("o-new", "Dan moved from Pune to Goa", "f4")
	newest.CreatedAt, newest.Status = hours(2), memory.StatusArchived
	if err := os.PutObservations(e.ctx, "b", []*memory.Observation{old, tieA, newest, tieB}); err != nil {
		e.t.Fatalf("PutObservations: %v", err)
	}
	if err := os.PutObservations(e.ctx, "c", []*memory.Observation{testObservation("o-c", "Eve likes chess", "f9")}); err != nil {
		e.t.Fatalf("PutObservations(c): %v", err)
	}
	ids := func(obs []*memory.Observation) []string {
		var out []string
		for _, o := range obs {
			out = append(out, o.ID)
			if o.Embedding != nil {
				e.t.Errorf("%s: embedding loaded", o.ID)
			}
		}
		return out
	}
	// newest +2h; then the two at -1h by id descending; then -48h.
	want := []string{"o-new", "o-b", "o-a", "o-old"}
	for _, c := range []struct {
		limit int
		want  []string
	}{{0, want}, {2, want[:2]}, {10, want}} {
		got, err := l.ListObservations(e.ctx, "b", c.limit)
		if err != nil {
			e.t.Fatalf("ListObservations(b, %d): %v", c.limit, err)
		}
		if g := ids(got); !slices.Equal(g, c.want) {
			e.t.Errorf("ListObservations(b, %d) = %v, want %v", c.limit, g, c.want)
		}
	}
	got, _ := l.ListObservations(e.ctx, "b", 1)
	w := *newest
	w.BankID, w.Embedding = "b", nil
	if len(got) == 1 {
		checkDiff(e.t, "ListObservations(b, 1)[0]", got[0], &w)
	}
}

// Listing an unknown bank is ENOTFOUND, a negative limit EINVALID; an
// empty bank lists nothing.
func testObservationListErrors(e *env) {
	l := e.observationLister()
	e.newBank("b")
	if got, err := l.ListObservations(e.ctx, "b", 0); err != nil || len(got) != 0 {
		e.t.Errorf("ListObservations(empty) = %d, %v; want none", len(got), err)
	}
	if _, err := l.ListObservations(e.ctx, "nope", 0); memory.ErrorCode(err) != memory.ENOTFOUND {
		e.t.Errorf("ListObservations(unknown bank): %v, want ENOTFOUND", err)
	}
	if _, err := l.ListObservations(e.ctx, "b", -1); memory.ErrorCode(err) != memory.EINVALID {
		e.t.Errorf("ListObservations(limit -1): %v, want EINVALID", err)
	}
}
