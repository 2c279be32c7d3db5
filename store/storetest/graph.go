package storetest

import (
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
