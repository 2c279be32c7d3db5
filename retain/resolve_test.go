package retain_test

import (
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/retain"
)

// TestPipeline_ResolveEntities: with ResolveEntities, a name is matched to
// a known entity by name or alias, whatever its type, then to one of its
// type by name-embedding similarity (the new spelling becomes an alias);
// a name given two types is one entity; a name too far makes a new
// entity; relation ends name entities of the document, and an end it
// does not know becomes a thing.
func TestPipeline_ResolveEntities(t *testing.T) {
	e := newEnv(t)
	retainWith := func(text string, ents []extract.Entity, rels ...extract.Relation) {
		t.Helper()
		p := retain.New(e.store, e.emb, stubExtractor{res: &extract.Result{
			Chunks: []string{text},
			Facts:  []extract.Fact{{Text: text, Entities: ents, Relations: rels, Confidence: 1}},
		}})
		p.Now, p.ResolveEntities = e.clock.Now, true
		p.EntitySimilarity = 0.75
		if _, err := p.Retain(e.ctx, memory.RetainRequest{BankID: "b", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	org := memory.EntityOrganization
	retainWith("Lena joined Acme Corporation.", []extract.Entity{{Name: "Lena", Type: memory.EntityPerson}, {Name: "Acme Corporation", Type: org}},
		extract.Relation{Subject: "Lena", Predicate: "works_at", Object: "Acme Corporation", Confidence: 0.9})
	acme := memory.EntityID("Acme Corporation")
	sim := func(a, b string) float64 {
		vs, _ := e.emb.Embed(e.ctx, []string{a, b})
		var d float64
		for i := range vs[0] {
			d += float64(vs[0][i] * vs[1][i])
		}
		return d
	}
	if s := sim("Acme Corporation", "Acme Corporation Ltd"); s < 0.75 {
		t.Fatalf("test premise: cosine(Acme Corporation, Acme Corporation Ltd) = %.2f, want ≥ 0.75", s)
	}
	if s := sim("Acme Corporation", "Globex"); s >= 0.75 {
		t.Fatalf("test premise: cosine(Acme Corporation, Globex) = %.2f, want < 0.75", s)
	}

	retainWith("Lena's employer, Acme Corporation Ltd, grew.", []extract.Entity{{Name: "Acme Corporation Ltd", Type: org}, {Name: "Acme Corporation Ltd", Type: memory.EntityTopic}, {Name: "Globex", Type: org}},
		extract.Relation{Subject: "Acme Corporation Ltd", Predicate: "competes_with", Object: "Initech", Confidence: 0.8})

	ents, err := e.store.Entities(e.ctx, "b", []string{acme})
	if err != nil || len(ents) != 1 {
		t.Fatalf("Acme: %v, %v", ents, err)
	}
	if ents[0].MentionCount != 2 || len(ents[0].Aliases) != 1 || ents[0].Aliases[0] != "Acme Corporation Ltd" {
		t.Errorf("Acme: %d mentions, aliases %q; want 2 and the new spelling", ents[0].MentionCount, ents[0].Aliases)
	}
	// By alias now, without similarity.
	byAlias, _ := e.store.EntitiesByName(e.ctx, "b", []string{memory.NormalizeName("Acme Corporation Ltd")})
	if len(byAlias) != 1 || byAlias[0].ID != acme || byAlias[0].Type != org {
		t.Errorf("by the new spelling: %+v; want Acme, the organization, alone (the topic is the same name)", byAlias)
	}
	// A known name given another type is the known entity.
	retainWith("Acme Corporation is a topic at lunch.", []extract.Entity{{Name: "Acme Corporation", Type: memory.EntityTopic}})
	if ents, _ := e.store.Entities(e.ctx, "b", []string{acme}); len(ents) != 1 || ents[0].MentionCount != 3 || ents[0].Type != org {
		t.Errorf("Acme after a topic mention: %+v; want the organization mentioned 3 times", ents)
	}
	if st := e.stats(); st.Entities != 4 {
		t.Errorf("entities: %d, want 4 (Lena, Acme, Globex, the thing Initech)", st.Entities)
	}
	rels, _ := e.store.Relations(e.ctx, "b", memory.RelationQuery{SubjectID: acme})
	if len(rels) != 1 || rels[0].Predicate != "competes_with" || rels[0].ObjectID != memory.EntityID("Initech") {
		t.Errorf("Acme's relations: %+v; want competes_with the thing Initech", rels)
	}
}

func (e *env) stats() memory.Stats {
	st, err := e.store.Stats(e.ctx, "b")
	if err != nil {
		e.t.Fatal(err)
	}
	return *st
}
