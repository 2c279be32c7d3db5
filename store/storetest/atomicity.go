package storetest

import (
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

func testAtomicityDuplicateFactID(e *env) {
	testAtomicity(e, func(w *memory.WriteBatch) {
		dup := *w.Facts[0]
		dup.Text = "A second fact under the first one's id"
		w.Facts = slices.Insert(w.Facts, 2, &dup)
	}, memory.EINVALID, memory.ECONFLICT)
}

// A fact id already used by another document of the bank is refused, not
// overwritten.
func testAtomicityExistingFactID(e *env) {
	testAtomicity(e, func(w *memory.WriteBatch) {
		w.Facts[1].ID = "base-f0"
	}, memory.EINVALID, memory.ECONFLICT)
}

func testAtomicityDimensionMismatch(e *env) {
	testAtomicity(e, func(w *memory.WriteBatch) {
		w.Facts[2].Embedding = TestVector(w.Facts[2].Text, 2*TestDimension)
	}, memory.EINVALID, memory.ECONFLICT)
}

// Reinforcing a fact that does not exist fails the batch.
func testAtomicityUnknownReinforce(e *env) {
	testAtomicity(e, func(w *memory.WriteBatch) {
		w.Reinforce = append(w.Reinforce, "no-such-fact")
	}, memory.ENOTFOUND)
}

// Superseding a fact that does not exist fails the batch.
func testAtomicityUnknownSupersede(e *env) {
	testAtomicity(e, func(w *memory.WriteBatch) {
		w.Supersede = append(w.Supersede, memory.Supersession{FactID: "no-such-fact", SupersededBy: "next-f2", ValidTo: testTime, ExpiredAt: testTime})
	}, memory.ENOTFOUND)
}

// testAtomicity writes a base document, then a batch that uses every part
// of memory.WriteBatch, broken by breakIt so that it must fail midway with
// one of codes. The failed batch must leave no trace in any read, and the
// same batch unbroken must then write as a new document (the failed
// attempt recorded no content hash).
func testAtomicity(e *env, breakIt func(w *memory.WriteBatch), codes ...string) {
	e.newBank("b")
	mel := memory.EntityID("Melanie")
	kayak := memory.EntityID("Kayak")
	base := NewTestBatch("b", "base", "Melanie owns a red bicycle", "Melanie repaired the bicycle chain")
	base.Entities = []memory.EntityUpsert{{Entity: memory.Entity{ID: mel, Name: "Melanie", Type: memory.EntityPerson, FirstSeen: hours(-10), LastSeen: hours(-10)}, Mentions: 1, Episodes: 1}}
	base.Refs = []memory.EntityRef{{FactID: "base-f0", EntityID: mel}}
	base.Links = []memory.Link{{BankID: "b", FromID: "base-f0", ToID: "base-f1", Kind: memory.LinkTemporal, Weight: 1}}
	e.writeNew(base)
	before := e.stats("b")
	baseFacts := e.facts("b", "base-f0", "base-f1")
	baseMel := memory.Entity{ID: mel, BankID: "b", Name: "Melanie", Type: memory.EntityPerson, FirstSeen: hours(-10), LastSeen: hours(-10), MentionCount: 1, EpisodeCount: 1}

	build := func() *memory.WriteBatch {
		w := NewTestBatch("b", "next", "Melanie bought a yellow kayak", "The kayak trip starts Sunday", "Melanie paddles on the lake", "Melanie sold the bicycle")
		w.Entities = []memory.EntityUpsert{
			{Entity: memory.Entity{ID: mel, Name: "Melanie", Type: memory.EntityPerson, Aliases: []string{"Mel"}, FirstSeen: hours(-20), LastSeen: hours(1)}, Mentions: 3, Episodes: 1},
			{Entity: memory.Entity{ID: kayak, Name: "Kayak", Type: memory.EntityThing}, Mentions: 2, Episodes: 1},
		}
		w.Refs = []memory.EntityRef{{FactID: "next-f0", EntityID: mel}, {FactID: "next-f0", EntityID: kayak}, {FactID: "next-f1", EntityID: kayak}}
		w.Cooccurrences = []memory.Cooccurrence{{EntityA: min(mel, kayak), EntityB: max(mel, kayak), Count: 1}}
		w.Links = []memory.Link{
			{BankID: "b", FromID: "next-f0", ToID: "next-f1", Kind: memory.LinkTemporal, Weight: 1},
			{BankID: "b", FromID: "next-f3", ToID: "base-f0", Kind: memory.LinkEntity, Weight: 0.5, EntityID: mel},
		}
		w.Relations = []*memory.Relation{{ID: "r1", BankID: "b", SubjectID: mel, Predicate: "owns", ObjectID: kayak, Confidence: 0.9, FactIDs: []string{"next-f0"}, CreatedAt: testTime}}
		w.Reinforce = []string{"base-f0"}
		w.Supersede = []memory.Supersession{{FactID: "base-f1", SupersededBy: "next-f3", ValidTo: testTime, ExpiredAt: testTime}}
		w.Watermark = &memory.Watermark{BankID: "b", Source: memory.SourceNote, LastItem: "next", UpdatedAt: testTime}
		return w
	}
	broken := build()
	breakIt(broken)
	res, err := e.s.Write(e.ctx, broken)
	wantCode(e.t, "Write(broken batch)", err, codes...)
	if err == nil {
		e.t.Fatalf("Write(broken batch): got %+v, want an error", res)
	}

	if got := e.stats("b"); got != before {
		e.t.Errorf("Stats after a failed write: got %+v, want %+v", got, before)
	}
	e.noDocument("b", memory.SourceNote, "next")
	if got := e.chunks("b", "next"); len(got) != 0 {
		e.t.Errorf("Chunks(next) after a failed write: got %d chunks, want none", len(got))
	}
	if got := e.facts("b", "next-f0", "next-f1", "next-f2", "next-f3"); len(got) != 0 {
		e.t.Errorf("Facts of a failed write: got %q, want none", factIDs(got))
	}
	for i, f := range e.facts("b", "base-f0", "base-f1") {
		checkFact(e.t, f, baseFacts[i])
		if f.Seq != baseFacts[i].Seq {
			e.t.Errorf("fact %s after a failed write: got Seq %d, want %d", f.ID, f.Seq, baseFacts[i].Seq)
		}
	}
	checkEntity(e, "after a failed write", e.entity("b", mel), baseMel)
	if got := e.entitiesByName("b", "kayak", "mel"); len(got) != 0 {
		e.t.Errorf("EntitiesByName(kayak, mel) after a failed write: got %q, want none", entityIDs(got))
	}
	checkIDs(e.t, "FactsByEntity(melanie) after a failed write", e.factsByEntity("b", mel, 10), []string{"base-f0"})
	checkIDSet(e.t, "EntityRefs(base-f0) after a failed write", refKeys(e.refs("b", "base-f0")), refKeys(base.Refs))
	checkLinks(e.t, "Links(base-f0) after a failed write", e.links("b", []string{"base-f0"}), base.Links)
	if got := e.searchText("b", 10, memory.Filter{}, "kayak", "paddles", "sold"); len(got) != 0 {
		e.t.Errorf("SearchText(kayak, paddles, sold) after a failed write: got %q, want none", hitIDs(got))
	}
	for _, f := range broken.Facts {
		for _, h := range e.searchVector("b", TestVector(f.Text, TestDimension), 10, memory.Filter{}) {
			if h.ID != "base-f0" && h.ID != "base-f1" {
				e.t.Errorf("SearchVector after a failed write: got %s, want only base facts", h.ID)
			}
		}
	}

	// The bank still works, and the batch was never recorded.
	good := build()
	if got, want := *e.write(good), (memory.WriteResult{DocumentID: "next", Facts: 4}); got != want {
		e.t.Errorf("Write(repaired batch): got %+v, want %+v", got, want)
	}
	for _, f := range e.facts("b", batchIDs(good)...) {
		if f.Seq <= maxSeq(baseFacts) {
			e.t.Errorf("fact %s: got Seq %d, want above the base facts' %d", f.ID, f.Seq, maxSeq(baseFacts))
		}
	}
	checkIDSet(e.t, "SearchText(kayak)", hitIDs(e.searchText("b", 10, memory.Filter{}, "kayak")), []string{"next-f0", "next-f1"})
	if got := e.fact("b", "base-f0").ReinforcementCount; got != baseFacts[0].ReinforcementCount+1 {
		e.t.Errorf("base-f0 ReinforcementCount: got %d, want %d", got, baseFacts[0].ReinforcementCount+1)
	}
	if got := e.fact("b", "base-f1").Status; got != memory.StatusSuperseded {
		e.t.Errorf("base-f1 Status: got %q, want %q", got, memory.StatusSuperseded)
	}
	want := memory.Stats{Documents: 2, Chunks: 6, Facts: 6, Active: 5, Superseded: 1, Entities: 2, Relations: 1, Links: 3}
	if got := e.stats("b"); got != want {
		e.t.Errorf("Stats after the repaired batch: got %+v, want %+v", got, want)
	}
}

// testAtomicityWriteMany checks memory.BulkWriter, for stores that offer
// it: each batch is atomic on its own, a failing batch (a fact id repeated
// inside it) is reported and leaves nothing, and the batches around it land.
func testAtomicityWriteMany(e *env) {
	bw, ok := e.s.(memory.BulkWriter)
	if !ok {
		e.t.Skip("store does not implement memory.BulkWriter")
	}
	e.newBank("b")
	ok1 := NewTestBatch("b", "m1", "the first batch lands")
	bad := NewTestBatch("b", "m2", "this one repeats", "a fact id")
	bad.Facts[1].ID = bad.Facts[0].ID
	ok3 := NewTestBatch("b", "m3", "the third batch lands too")
	out := bw.WriteMany(e.ctx, []*memory.WriteBatch{ok1, bad, ok3})
	if len(out) != 3 {
		e.t.Fatalf("WriteMany: got %d outcomes, want 3", len(out))
	}
	for i, want := range []bool{true, false, true} {
		if got := out[i].Err == nil; got != want {
			e.t.Errorf("WriteMany outcome %d: err = %v, want success %v", i, out[i].Err, want)
		}
		if want && (out[i].Result == nil || out[i].Result.Facts != 1) {
			e.t.Errorf("WriteMany outcome %d: result %+v, want 1 fact", i, out[i].Result)
		}
	}
	got := factIDs(e.facts("b", append(append(batchIDs(ok1), batchIDs(bad)...), batchIDs(ok3)...)...))
	checkIDs(e.t, "facts after WriteMany", got, []string{TestFactID("m1", 0), TestFactID("m3", 0)})
	if st := e.stats("b"); st.Documents != 2 || st.Facts != 2 {
		e.t.Errorf("stats after WriteMany: %+v, want 2 documents and 2 facts", st)
	}
	if hits := e.searchText("b", 10, memory.Filter{}, "lands"); len(hits) != 2 {
		e.t.Errorf("SearchText(lands) after WriteMany: %d hits, want 2", len(hits))
	}
	// The bank still takes single writes, and a duplicate inside a bulk
	// write is reported as one.
	e.write(NewTestBatch("b", "m4", "a single write"))
	out = bw.WriteMany(e.ctx, []*memory.WriteBatch{NewTestBatch("b", "m1", "the first batch lands")})
	if out[0].Err != nil || out[0].Result == nil || !out[0].Result.Duplicate {
		e.t.Errorf("WriteMany of a stored document: %+v, want a duplicate", out[0])
	}
}
