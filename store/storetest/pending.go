package storetest

import (
	"math"

	"github.com/mnemo-ai/mnemo/memory"
)

// The Pending group checks memory.PendingFacts (the consolidation queue:
// active facts not yet consolidated, oldest first, with their embeddings;
// marking them) and memory.ObservationVectors, each per bank. Both are
// optional: a store without them skips the group.

// pending returns the store's PendingFacts, or skips the test.
func (e *env) pending() memory.PendingFacts {
	e.t.Helper()
	p, ok := e.s.(memory.PendingFacts)
	if !ok {
		e.t.Skip("the store keeps no consolidation queue (memory.PendingFacts)")
	}
	return p
}

// pendingAll walks the queue of bank pages of limit and returns the ids
// in the order listed.
func (e *env) pendingAll(bank string, limit int) []string {
	e.t.Helper()
	p := e.pending()
	var ids []string
	var after int64
	for range 1000 {
		fs, err := p.PendingFacts(e.ctx, bank, after, limit)
		if err != nil {
			e.t.Fatalf("PendingFacts(%q, %d, %d): %v", bank, after, limit, err)
		}
		if len(fs) > limit {
			e.t.Errorf("PendingFacts(limit %d): got %d", limit, len(fs))
		}
		if len(fs) == 0 {
			return ids
		}
		ids = append(ids, factIDs(fs)...)
		after = fs[len(fs)-1].Seq
	}
	e.t.Fatalf("PendingFacts(%q): no end after 1000 pages", bank)
	return nil
}

// The queue holds the active facts with no ConsolidatedAt, oldest first,
// whole and with their embeddings; superseded, archived and consolidated
// facts are not in it, nor another bank's.
func testPendingWalk(e *env) {
	p := e.pending()
	e.newBank("b")
	e.newBank("other")
	w1 := NewTestBatch("b", "d1", "Alex is the mobile lead", "Alex likes green tea", "Alex plays chess")
	w1.Facts[1].ConsolidatedAt = testTime // imported consolidated
	e.writeNew(w1)
	w2 := NewTestBatch("b", "d2", "Alex now leads the backend rewrite", "Alex ran a marathon")
	w2.Supersede = []memory.Supersession{{FactID: TestFactID("d1", 0), SupersededBy: TestFactID("d2", 0), ValidTo: testTime, ExpiredAt: testTime}}
	e.writeNew(w2)
	if _, err := e.s.SetFactStatus(e.ctx, "b", []string{TestFactID("d2", 1)}, memory.StatusArchived); err != nil {
		e.t.Fatal(err)
	}
	e.writeNew(NewTestBatch("other", "d1", "Alex is the mobile lead"))

	want := []string{TestFactID("d1", 2), TestFactID("d2", 0)}
	for _, limit := range []int{1, 2, 5} {
		checkIDs(e.t, "PendingFacts walk", e.pendingAll("b", limit), want)
	}
	fs, err := p.PendingFacts(e.ctx, "b", 0, 10)
	if err != nil || len(fs) != 2 {
		e.t.Fatalf("PendingFacts: %d facts, %v", len(fs), err)
	}
	for i, f := range fs {
		var src *memory.Fact
		for _, x := range append(w1.Facts, w2.Facts...) {
			if x.ID == f.ID {
				src = x
			}
		}
		checkFact(e.t, f, src)
		if len(f.Embedding) != TestDimension {
			e.t.Fatalf("PendingFacts[%d]: embedding of %d, want %d (loaded)", i, len(f.Embedding), TestDimension)
		}
		for j, x := range f.Embedding {
			if math.Abs(float64(x-src.Embedding[j])) > 1e-6 {
				e.t.Errorf("PendingFacts[%d] embedding[%d]: got %v, want %v", i, j, x, src.Embedding[j])
				break
			}
		}
	}
	if fs[0].Seq >= fs[1].Seq {
		e.t.Errorf("PendingFacts: Seq %d then %d, want oldest first", fs[0].Seq, fs[1].Seq)
	}
	if fs, _ := p.PendingFacts(e.ctx, "b", fs[1].Seq, 10); len(fs) != 0 {
		e.t.Errorf("PendingFacts after the last Seq: got %q, want none", factIDs(fs))
	}
	checkIDs(e.t, "PendingFacts(other)", e.pendingAll("other", 10), []string{TestFactID("d1", 0)})
}

// Marking sets ConsolidatedAt once: a second mark keeps the first time,
// unknown ids and another bank's facts are untouched, and a marked fact
// leaves the queue.
func testPendingMark(e *env) {
	p := e.pending()
	e.newBank("b")
	e.newBank("other")
	w := NewTestBatch("b", "d1", "one", "two", "three")
	e.writeNew(w)
	e.writeNew(NewTestBatch("other", "d1", "one"))
	f := func(i int) string { return TestFactID("d1", i) }

	n, err := p.MarkConsolidated(e.ctx, "b", []string{f(0), "nope", f(2), f(0)}, hours(1))
	if err != nil || n != 2 {
		e.t.Fatalf("MarkConsolidated(f0, nope, f2, f0): %d, %v; want 2", n, err)
	}
	checkIDs(e.t, "queue after marking", e.pendingAll("b", 10), []string{f(1)})
	if got := e.fact("b", f(0)); !got.ConsolidatedAt.Equal(hours(1)) {
		e.t.Errorf("ConsolidatedAt of f0: got %v, want %v", got.ConsolidatedAt, hours(1))
	}
	n, err = p.MarkConsolidated(e.ctx, "b", []string{f(0), f(1)}, hours(2))
	if err != nil || n != 1 {
		e.t.Errorf("MarkConsolidated(f0 again, f1): %d, %v; want 1 (f1 only)", n, err)
	}
	if got := e.fact("b", f(0)); !got.ConsolidatedAt.Equal(hours(1)) {
		e.t.Errorf("ConsolidatedAt of f0 after a second mark: got %v, want the first %v", got.ConsolidatedAt, hours(1))
	}
	if got := e.fact("b", f(1)); !got.ConsolidatedAt.Equal(hours(2)) {
		e.t.Errorf("ConsolidatedAt of f1: got %v, want %v", got.ConsolidatedAt, hours(2))
	}
	if got := e.fact("other", f(0)); !got.ConsolidatedAt.IsZero() {
		e.t.Errorf("another bank's fact marked: ConsolidatedAt %v", got.ConsolidatedAt)
	}
	if n, err := p.MarkConsolidated(e.ctx, "b", nil, hours(3)); err != nil || n != 0 {
		e.t.Errorf("MarkConsolidated(none): %d, %v; want 0, no error", n, err)
	}
	checkIDs(e.t, "queue after marking all", e.pendingAll("b", 10), nil)
}

func testPendingErrors(e *env) {
	p := e.pending()
	e.newBank("b")
	for _, limit := range []int{0, -1, memory.MaxPageSize + 1} {
		_, err := p.PendingFacts(e.ctx, "b", 0, limit)
		wantCode(e.t, "PendingFacts(bad limit)", err, memory.EINVALID)
	}
	_, err := p.PendingFacts(e.ctx, "nope", 0, 10)
	wantCode(e.t, "PendingFacts(unknown bank)", err, memory.ENOTFOUND)
	_, err = p.MarkConsolidated(e.ctx, "nope", []string{"x"}, testTime)
	wantCode(e.t, "MarkConsolidated(unknown bank)", err, memory.ENOTFOUND)
	_, err = p.MarkConsolidated(e.ctx, "b", []string{"x"}, zeroTime)
	wantCode(e.t, "MarkConsolidated(zero time)", err, memory.EINVALID)
}

// ObservationVectors returns the stored embedding of every active
// observation that has one.
func testPendingObservationVectors(e *env) {
	os := e.observations()
	ov, ok := e.s.(memory.ObservationVectors)
	if !ok {
		e.t.Skip("the store reads no observation vectors (memory.ObservationVectors)")
	}
	e.newBank("b")
	e.newBank("other")
	o1 := testObservation("o1", "Alex moved from mobile to backend work")
	o2 := testObservation("o2", "Alex runs every weekend")
	gone := testObservation("o3", "Alex used to swim")
	gone.Status = memory.StatusSuperseded
	bare := testObservation("o4", "Alex has no vector")
	bare.Embedding = nil
	if err := os.PutObservations(e.ctx, "b", []*memory.Observation{o1, o2, gone, bare}); err != nil {
		e.t.Fatal(err)
	}
	if err := os.PutObservations(e.ctx, "other", []*memory.Observation{testObservation("o9", "elsewhere")}); err != nil {
		e.t.Fatal(err)
	}
	got, err := ov.ObservationVectors(e.ctx, "b")
	if err != nil {
		e.t.Fatalf("ObservationVectors: %v", err)
	}
	if len(got) != 2 {
		e.t.Errorf("ObservationVectors: got %d vectors, want o1 and o2", len(got))
	}
	for _, o := range []*memory.Observation{o1, o2} {
		v := got[o.ID]
		if len(v) != len(o.Embedding) {
			e.t.Errorf("vector of %s: length %d, want %d", o.ID, len(v), len(o.Embedding))
			continue
		}
		for i := range v {
			if math.Abs(float64(v[i]-o.Embedding[i])) > 1e-6 {
				e.t.Errorf("vector of %s[%d]: got %v, want %v", o.ID, i, v[i], o.Embedding[i])
				break
			}
		}
	}
	_, err = ov.ObservationVectors(e.ctx, "nope")
	wantCode(e.t, "ObservationVectors(unknown bank)", err, memory.ENOTFOUND)
}
