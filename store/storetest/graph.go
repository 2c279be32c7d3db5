package storetest

import (
	"errors"
	"math"

	"github.com/mnemo-ai/mnemo/memory"
)

// Relations reads back what was written, narrowed by each field of the
// query; a closed edge stays readable but is not Current.
func testGraphRelations(e *env) {
	e.newBank("b")
	mel := memory.EntityID("Melanie")
	acme := memory.EntityID("Acme")
	globex := memory.EntityID("Globex")
	r1 := &memory.Relation{ID: "r1", BankID: "b", SubjectID: mel, Predicate: "works_at", ObjectID: acme, Confidence: 0.9, FactIDs: []string{"doc1-f0"}, ValidFrom: hours(-100), CreatedAt: hours(-100)}
	w1 := NewTestBatch("b", "doc1", "Melanie works at Acme")
	w1.Relations = []*memory.Relation{r1}
	e.writeNew(w1)

	closed := *r1
	closed.ValidTo, closed.ExpiredAt = hours(-1), testTime
	r2 := &memory.Relation{ID: "r2", BankID: "b", SubjectID: mel, Predicate: "works_at", ObjectID: globex, Confidence: 0.8, FactIDs: []string{"doc2-f0"}, ValidFrom: hours(-1), CreatedAt: testTime}
	r3 := &memory.Relation{ID: "r3", BankID: "b", SubjectID: globex, Predicate: "located_in", ObjectID: acme, Confidence: 0.7, CreatedAt: testTime}
	w2 := NewTestBatch("b", "doc2", "Melanie now works at Globex")
	w2.Relations = []*memory.Relation{&closed, r2, r3}
	e.writeNew(w2)

	rels := func(q memory.RelationQuery) []*memory.Relation {
		got, err := e.s.Relations(e.ctx, "b", q)
		if err != nil {
			e.t.Fatalf("Relations(%+v): %v", q, err)
		}
		noNil(e.t, "Relations", got)
		return got
	}
	ids := func(rs []*memory.Relation) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	all := rels(memory.RelationQuery{})
	checkIDs(e.t, "Relations(all)", ids(all), []string{"r1", "r2", "r3"})
	checkDiff(e.t, "Relations(all)[0]", all[0], &closed)
	checkDiff(e.t, "Relations(all)[1]", all[1], r2)
	checkIDs(e.t, "Relations(current)", ids(rels(memory.RelationQuery{Current: true})), []string{"r2", "r3"})
	checkIDs(e.t, "Relations(subject mel, works_at)", ids(rels(memory.RelationQuery{SubjectID: mel, Predicate: "works_at"})), []string{"r1", "r2"})
	checkIDs(e.t, "Relations(current, subject mel, works_at)", ids(rels(memory.RelationQuery{SubjectID: mel, Predicate: "works_at", Current: true})), []string{"r2"})
	checkIDs(e.t, "Relations(object acme)", ids(rels(memory.RelationQuery{ObjectID: acme})), []string{"r1", "r3"})
	checkIDs(e.t, "Relations(entity globex)", ids(rels(memory.RelationQuery{EntityID: globex})), []string{"r2", "r3"})
	checkIDs(e.t, "Relations(predicate likes)", ids(rels(memory.RelationQuery{Predicate: "likes"})), nil)

	e.newBank("other")
	if got, err := e.s.Relations(e.ctx, "other", memory.RelationQuery{}); err != nil || len(got) != 0 {
		e.t.Errorf("Relations(other bank): got %d, %v; want none", len(got), err)
	}
	_, err := e.s.Relations(e.ctx, "nope", memory.RelationQuery{})
	wantCode(e.t, "Relations(unknown bank)", err, memory.ENOTFOUND)
}

// A fact is superseded once, while active: two writers that both read a
// fact as active and both supersede it (each with a fact of its own)
// cannot both succeed. The second batch fails whole with
// ErrFactSuperseded (ECONFLICT), through Write and WriteMany alike, and
// writes nothing, so the fact has one successor and it alone is active.
// Superseding an unknown fact is still ENOTFOUND.
func testGraphSupersedeOnce(e *env) {
	e.newBank("b")
	e.writeNew(NewTestBatch("b", "doc1", "The team caches with Redis"))
	replace := func(doc, text string, at float64) *memory.WriteBatch {
		w := NewTestBatch("b", doc, text)
		w.Supersede = []memory.Supersession{{FactID: "doc1-f0", SupersededBy: doc + "-f0", ValidTo: hours(at), ExpiredAt: hours(at)}}
		return w
	}
	e.writeNew(replace("doc2", "The team caches with Memcached", -2))
	_, err := e.s.Write(e.ctx, replace("doc3", "The team caches with Valkey", -1))
	wantCode(e.t, "Write(superseding a fact superseded since)", err, memory.ECONFLICT)
	if !errors.Is(err, memory.ErrFactSuperseded) || !memory.LostRace(err) {
		e.t.Errorf("Write(superseding a fact superseded since): %v, want ErrFactSuperseded in its chain", err)
	}
	bw, bulk := e.s.(memory.BulkWriter)
	if bulk {
		out := bw.WriteMany(e.ctx, []*memory.WriteBatch{replace("doc4", "The team caches with Valkey", -1), NewTestBatch("b", "doc5", "The user likes jazz")})
		if !errors.Is(out[0].Err, memory.ErrFactSuperseded) || out[1].Err != nil {
			e.t.Errorf("WriteMany: %v, %v; want ErrFactSuperseded for the supersession, the other batch written", out[0].Err, out[1].Err)
		}
	}
	facts, err := e.s.Facts(e.ctx, "b", []string{"doc1-f0", "doc2-f0", "doc3-f0", "doc4-f0", "doc5-f0"})
	if err != nil {
		e.t.Fatal(err)
	}
	got := map[string]*memory.Fact{}
	for _, f := range facts {
		got[f.ID] = f
	}
	if f := got["doc1-f0"]; f == nil || f.Status != memory.StatusSuperseded || f.SupersededBy != "doc2-f0" || !f.ExpiredAt.Equal(hours(-2)) {
		e.t.Errorf("the old fact: %+v, want superseded by doc2-f0 at the first writer's time", f)
	}
	if f := got["doc2-f0"]; f == nil || f.Status != memory.StatusActive {
		e.t.Errorf("the first successor: %+v, want active", f)
	}
	if got["doc3-f0"] != nil || got["doc4-f0"] != nil {
		e.t.Errorf("a losing batch wrote its fact: %v %v", got["doc3-f0"], got["doc4-f0"])
	}
	if got["doc5-f0"] == nil && bulk {
		e.t.Errorf("the other batch of the WriteMany was not written")
	}
	w := NewTestBatch("b", "doc6", "Nothing to replace")
	w.Supersede = []memory.Supersession{{FactID: "nope", SupersededBy: "doc6-f0"}}
	_, err = e.s.Write(e.ctx, w)
	wantCode(e.t, "Write(superseding an unknown fact)", err, memory.ENOTFOUND)
}

// An edge is closed once: two writers that both read an edge as current
// and both close it (each replacing it with an edge of its own) cannot
// both succeed. The second batch fails whole with ErrRelationClosed
// (ECONFLICT), through Write and WriteMany alike, and writes nothing —
// its facts, its new edge, its close — so exactly one edge is current
// and the history is a chain. A close naming no stored edge is
// EINVALID; forgetting the edges takes their closes with them.
func testGraphCloseOnce(e *env) {
	e.newBank("b")
	u, paris, nice := memory.EntityID("User"), memory.EntityID("Paris"), memory.EntityID("Nice")
	old := &memory.Relation{ID: "r-paris", BankID: "b", SubjectID: u, Predicate: "lives_in", ObjectID: paris, Confidence: 0.9, FactIDs: []string{"doc1-f0"}, ValidFrom: hours(-100), CreatedAt: hours(-100)}
	w1 := NewTestBatch("b", "doc1", "The user lives in Paris")
	w1.Relations = []*memory.Relation{old}
	e.writeNew(w1)

	// Two writers read r-paris current and each replaces it.
	replace := func(doc, rel string, obj string, at float64) *memory.WriteBatch {
		w := NewTestBatch("b", doc, "The user moved to "+obj)
		closed := *old
		closed.ValidTo, closed.ExpiredAt = hours(at), hours(at)
		w.Relations = []*memory.Relation{&closed, {ID: rel, BankID: "b", SubjectID: u, Predicate: "lives_in", ObjectID: memory.EntityID(obj),
			Confidence: 0.9, FactIDs: []string{doc + "-f0"}, ValidFrom: hours(at), CreatedAt: hours(at)}}
		w.RelationCloses = []memory.RelationClose{{ClosedID: old.ID, ByID: rel, At: hours(at)}}
		return w
	}
	e.writeNew(replace("doc2", "r-lyon", "Lyon", -2))
	_, err := e.s.Write(e.ctx, replace("doc3", "r-nice", "Nice", -1))
	wantCode(e.t, "Write(closing an edge closed since)", err, memory.ECONFLICT)
	if !errors.Is(err, memory.ErrRelationClosed) {
		e.t.Errorf("Write(closing an edge closed since): %v, want ErrRelationClosed in its chain", err)
	}
	if bw, ok := e.s.(memory.BulkWriter); ok {
		out := bw.WriteMany(e.ctx, []*memory.WriteBatch{replace("doc4", "r-nice", "Nice", -1), NewTestBatch("b", "doc5", "The user likes jazz")})
		if !errors.Is(out[0].Err, memory.ErrRelationClosed) || out[1].Err != nil {
			e.t.Errorf("WriteMany: %v, %v; want ErrRelationClosed for the close, the other batch written", out[0].Err, out[1].Err)
		}
	}
	rels, err := e.s.Relations(e.ctx, "b", memory.RelationQuery{SubjectID: u, Predicate: "lives_in"})
	if err != nil {
		e.t.Fatal(err)
	}
	var current []string
	for _, r := range rels {
		switch {
		case r.ExpiredAt.IsZero():
			current = append(current, r.ID)
		case r.ID == old.ID && !r.ExpiredAt.Equal(hours(-2)):
			e.t.Errorf("r-paris closed at %v, want the first writer's %v", r.ExpiredAt, hours(-2))
		}
	}
	checkIDs(e.t, "current lives_in edges", current, []string{"r-lyon"})
	if len(rels) != 2 {
		e.t.Errorf("lives_in edges %d, want 2 (r-paris closed, r-lyon): the failed batches wrote theirs", len(rels))
	}
	for _, id := range []string{"doc3-f0", "doc4-f0"} {
		if fs, err := e.s.Facts(e.ctx, "b", []string{id}); err != nil || len(fs) != 0 {
			e.t.Errorf("fact %s of a failed batch: %v, %v; want none", id, fs, err)
		}
	}

	// The next writer reads r-lyon current and replaces it: a chain.
	w := NewTestBatch("b", "doc6", "The user moved to Nice")
	var closed memory.Relation
	for _, r := range rels {
		if r.ID == "r-lyon" {
			closed = *r
		}
	}
	closed.ValidTo, closed.ExpiredAt = hours(0), hours(0)
	w.Relations = []*memory.Relation{&closed, {ID: "r-nice", BankID: "b", SubjectID: u, Predicate: "lives_in", ObjectID: nice, Confidence: 0.9, FactIDs: []string{"doc6-f0"}, CreatedAt: hours(0)}}
	w.RelationCloses = []memory.RelationClose{{ClosedID: "r-lyon", ByID: "r-nice", At: hours(0)}}
	e.writeNew(w)
	cur, _ := e.s.Relations(e.ctx, "b", memory.RelationQuery{SubjectID: u, Predicate: "lives_in", Current: true})
	checkIDs(e.t, "current after the chain", relationIDs(cur), []string{"r-nice"})

	bad := NewTestBatch("b", "doc7", "The user moved to Rome")
	bad.RelationCloses = []memory.RelationClose{{ClosedID: "r-none", ByID: "r-nice", At: hours(1)}}
	_, err = e.s.Write(e.ctx, bad)
	wantCode(e.t, "Write(closing an edge that is not stored)", err, memory.EINVALID)
}

// relationIDs returns the ids of rs.
func relationIDs(rs []*memory.Relation) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

// SupersededBy finds the facts a fact replaced, newest first, with their
// closed validity.
func testGraphSupersededBy(e *env) {
	e.newBank("b")
	e.writeNew(NewTestBatch("b", "doc1", "The team uses Redis for caching", "Alice leads the team"))
	e.writeNew(NewTestBatch("b", "doc2", "The team tried Valkey for caching"))
	w := NewTestBatch("b", "doc3", "The team switched to Memcached")
	w.Supersede = []memory.Supersession{
		{FactID: "doc1-f0", SupersededBy: "doc3-f0", ValidTo: hours(-2), ExpiredAt: testTime},
		{FactID: "doc2-f0", SupersededBy: "doc3-f0", ValidTo: hours(-1), ExpiredAt: testTime},
	}
	e.writeNew(w)
	got, err := e.s.SupersededBy(e.ctx, "b", []string{"doc3-f0", "doc1-f1"})
	if err != nil {
		e.t.Fatalf("SupersededBy: %v", err)
	}
	noNil(e.t, "SupersededBy", got)
	checkIDs(e.t, "SupersededBy(doc3-f0)", factIDs(got), []string{"doc2-f0", "doc1-f0"})
	if len(got) == 2 && (got[1].Status != memory.StatusSuperseded || !got[1].ValidTo.Equal(hours(-2)) || got[1].Text != "The team uses Redis for caching") {
		e.t.Errorf("SupersededBy: got %+v, want the closed Redis fact", got[1])
	}
	if got, err := e.s.SupersededBy(e.ctx, "b", []string{"doc1-f1"}); err != nil || len(got) != 0 {
		e.t.Errorf("SupersededBy(a fact that replaced nothing): got %v, %v; want none", factIDs(got), err)
	}
	if got, err := e.s.SupersededBy(e.ctx, "b", nil); err != nil || len(got) != 0 {
		e.t.Errorf("SupersededBy(nil): got %v, %v; want none", factIDs(got), err)
	}
	_, err = e.s.SupersededBy(e.ctx, "nope", []string{"x"})
	wantCode(e.t, "SupersededBy(unknown bank)", err, memory.ENOTFOUND)
}

// SimilarEntities compares name embeddings within one type, keeps the
// first embedding an entity was given and honours k and the minimum.
func testGraphSimilarEntities(e *env) {
	e.newBank("b")
	unit := func(xs ...float32) []float32 {
		var n float32
		for _, x := range xs {
			n += x * x
		}
		n = float32(math.Sqrt(float64(n)))
		for i := range xs {
			xs[i] /= n
		}
		return xs
	}
	ent := func(typ memory.EntityType, name string, vec []float32) memory.EntityUpsert {
		return memory.EntityUpsert{Entity: memory.Entity{ID: memory.EntityID(name), Name: name, Type: typ}, Embedding: vec, Mentions: 1, Episodes: 1}
	}
	w := NewTestBatch("b", "doc1", "Bob met Robert at Acme")
	w.Entities = []memory.EntityUpsert{
		ent(memory.EntityPerson, "Robert", unit(1, 0.1, 0)),
		ent(memory.EntityPerson, "Alice", unit(0, 1, 0)),
		ent(memory.EntityOrganization, "Bobcorp", unit(1, 0.1, 0)),
		ent(memory.EntityPerson, "Nobody", nil),
	}
	e.writeNew(w)
	// A later upsert with another embedding does not replace the first.
	w2 := NewTestBatch("b", "doc2", "Alice again")
	w2.Entities = []memory.EntityUpsert{ent(memory.EntityPerson, "Alice", unit(1, 0, 0))}
	e.writeNew(w2)

	q := unit(1, 0, 0)
	hits, err := e.s.SimilarEntities(e.ctx, "b", memory.EntityPerson, q, 5, 0.5)
	if err != nil {
		e.t.Fatalf("SimilarEntities: %v", err)
	}
	if len(hits) != 1 || hits[0].Entity.Name != "Robert" || math.Abs(hits[0].Score-float64(unit(1, 0.1, 0)[0])) > scoreTolerance {
		e.t.Errorf("SimilarEntities(person, ≥0.5): got %v, want Robert alone with its cosine", entityHits(hits))
	}
	if hits[0].Entity.MentionCount != 1 || hits[0].Entity.Type != memory.EntityPerson {
		e.t.Errorf("SimilarEntities: entity %+v, want the stored entity", hits[0].Entity)
	}
	hits, _ = e.s.SimilarEntities(e.ctx, "b", memory.EntityPerson, q, 5, -1)
	if got := entityHits(hits); len(got) != 2 || got[0] != "Robert" || got[1] != "Alice" {
		e.t.Errorf("SimilarEntities(person, any score): got %v, want [Robert Alice] (Nobody has no embedding)", got)
	}
	hits, _ = e.s.SimilarEntities(e.ctx, "b", memory.EntityPerson, q, 1, -1)
	if got := entityHits(hits); len(got) != 1 {
		e.t.Errorf("SimilarEntities(k=1): got %v, want one", got)
	}
	_, err = e.s.SimilarEntities(e.ctx, "nope", memory.EntityPerson, q, 1, 0)
	wantCode(e.t, "SimilarEntities(unknown bank)", err, memory.ENOTFOUND)
}

func entityHits(hs []memory.EntityHit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Entity.Name)
	}
	return out
}

// Contradicted marks stored entities, and an upsert can carry the flag
// for an entity it creates; nothing clears it.
func testGraphContradicted(e *env) {
	e.newBank("b")
	mel := memory.EntityID("Melanie")
	bob := memory.EntityID("Bob")
	w := NewTestBatch("b", "doc1", "Melanie likes Nike")
	w.Entities = []memory.EntityUpsert{{Entity: memory.Entity{ID: mel, Name: "Melanie", Type: memory.EntityPerson}, Mentions: 1, Episodes: 1}}
	e.writeNew(w)
	if e.entity("b", mel).Contradicted {
		e.t.Fatalf("new entity: contradicted, want not")
	}
	w2 := NewTestBatch("b", "doc2", "Melanie likes Hoka now, Bob agrees")
	w2.Entities = []memory.EntityUpsert{{Entity: memory.Entity{ID: bob, Name: "Bob", Type: memory.EntityPerson, Contradicted: true}, Mentions: 1, Episodes: 1}}
	w2.Contradicted = []string{mel, "ent_unknown"}
	e.writeNew(w2)
	if !e.entity("b", mel).Contradicted || !e.entity("b", bob).Contradicted {
		e.t.Errorf("after Contradicted: Melanie %v, Bob %v; want both contradicted", e.entity("b", mel).Contradicted, e.entity("b", bob).Contradicted)
	}
	w3 := NewTestBatch("b", "doc3", "Melanie runs")
	w3.Entities = []memory.EntityUpsert{{Entity: memory.Entity{ID: mel, Name: "Melanie", Type: memory.EntityPerson}, Mentions: 1, Episodes: 1}}
	e.writeNew(w3)
	if !e.entity("b", mel).Contradicted {
		e.t.Errorf("a later plain upsert cleared contradicted")
	}
}
