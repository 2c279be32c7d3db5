package storetest

import (
	"cmp"
	"context"
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

func (s *memStore) Relations(_ context.Context, bankID string, q memory.RelationQuery) ([]*memory.Relation, error) {
	return with(s, bankID, func(b *memBank) ([]*memory.Relation, error) {
		var out []*memory.Relation
		for _, r := range b.relations {
			switch {
			case q.SubjectID != "" && r.SubjectID != q.SubjectID,
				q.Predicate != "" && r.Predicate != q.Predicate,
				q.ObjectID != "" && r.ObjectID != q.ObjectID,
				q.EntityID != "" && r.SubjectID != q.EntityID && r.ObjectID != q.EntityID,
				q.Current && !r.ExpiredAt.IsZero():
				continue
			}
			c := *r
			c.FactIDs = slices.Clone(r.FactIDs)
			out = append(out, &c)
		}
		slices.SortFunc(out, func(a, b *memory.Relation) int {
			return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
		})
		return out, nil
	})
}

func (s *memStore) SupersededBy(_ context.Context, bankID string, factIDs []string) ([]*memory.Fact, error) {
	return with(s, bankID, func(b *memBank) ([]*memory.Fact, error) {
		var out []*memory.Fact
		for _, f := range b.facts {
			if f.SupersededBy != "" && slices.Contains(factIDs, f.SupersededBy) {
				c := *f
				c.Embedding = nil
				out = append(out, &c)
			}
		}
		slices.SortFunc(out, func(a, b *memory.Fact) int { return cmp.Compare(b.Seq, a.Seq) })
		return out, nil
	})
}

func (s *memStore) SimilarEntities(_ context.Context, bankID string, t memory.EntityType, vec []float32, k int, minScore float64) ([]memory.EntityHit, error) {
	return with(s, bankID, func(b *memBank) ([]memory.EntityHit, error) {
		var out []memory.EntityHit
		for id, v := range b.entVecs {
			e := b.entities[id]
			if e == nil || e.Type != t || len(v) != len(vec) || len(vec) == 0 {
				continue
			}
			if sc := cosine(vec, v); sc >= minScore {
				c := *e
				c.Aliases = slices.Clone(e.Aliases)
				out = append(out, memory.EntityHit{Entity: &c, Score: sc})
			}
		}
		slices.SortFunc(out, func(a, b memory.EntityHit) int {
			return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Entity.ID, b.Entity.ID))
		})
		return out[:max(0, min(k, len(out)))], nil
	})
}
