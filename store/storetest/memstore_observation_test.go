package storetest

import (
	"cmp"
	"context"
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.ObservationStore = (*memStore)(nil)

func (s *memStore) PutObservations(_ context.Context, bankID string, obs []*memory.Observation) error {
	for _, o := range obs {
		if o == nil || o.ID == "" || o.Text == "" {
			return memory.Errorf(memory.EINVALID, "observation without id or text")
		}
	}
	_, err := with(s, bankID, func(b *memBank) (struct{}, error) {
		if b.observations == nil {
			b.observations = map[string]*memory.Observation{}
		}
		for _, o := range obs {
			c := *o
			c.BankID, c.SourceFactIDs, c.History, c.Embedding = bankID, slices.Clone(o.SourceFactIDs), slices.Clone(o.History), slices.Clone(o.Embedding)
			if c.Status == "" {
				c.Status = memory.StatusActive
			}
			if c.Kind == "" {
				c.Kind = memory.ObservationPattern
			}
			b.observations[c.ID] = &c
		}
		return struct{}{}, nil
	})
	return err
}

func (s *memStore) Observations(_ context.Context, bankID string, ids []string) ([]*memory.Observation, error) {
	return with(s, bankID, func(b *memBank) ([]*memory.Observation, error) {
		var out []*memory.Observation
		seen := map[string]bool{}
		for _, id := range ids {
			if o, ok := b.observations[id]; ok && !seen[id] {
				seen[id] = true
				c := *o
				c.Embedding, c.SourceFactIDs, c.History = nil, slices.Clone(o.SourceFactIDs), slices.Clone(o.History)
				out = append(out, &c)
			}
		}
		return out, nil
	})
}

func (s *memStore) SearchObservationsVector(_ context.Context, bankID string, vec []float32, k int) ([]memory.Hit, error) {
	return with(s, bankID, func(b *memBank) ([]memory.Hit, error) {
		var hits []memory.Hit
		for _, o := range b.observations {
			if o.Status == memory.StatusActive && len(o.Embedding) == len(vec) && len(vec) > 0 {
				hits = append(hits, memory.Hit{ID: o.ID, Score: cosine(vec, o.Embedding)})
			}
		}
		slices.SortFunc(hits, func(a, b memory.Hit) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID)) })
		return hits[:max(0, min(k, len(hits)))], nil
	})
}

// SearchObservationsText ranks by the number of distinct query words an
// observation holds (the suite pins the set and the order of clear
// cases, not BM25's exact scores).
func (s *memStore) SearchObservationsText(_ context.Context, bankID string, terms []string, k int) ([]memory.Hit, error) {
	return with(s, bankID, func(b *memBank) ([]memory.Hit, error) {
		want := map[string]bool{}
		for _, t := range terms {
			for _, w := range words(t) {
				want[w] = true
			}
		}
		var hits []memory.Hit
		for _, o := range b.observations {
			if o.Status != memory.StatusActive {
				continue
			}
			n := 0
			seen := map[string]bool{}
			for _, w := range words(o.Text) {
				if want[w] && !seen[w] {
					seen[w] = true
					n++
				}
			}
			if n > 0 {
				hits = append(hits, memory.Hit{ID: o.ID, Score: float64(n)})
			}
		}
		slices.SortFunc(hits, func(a, b memory.Hit) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID)) })
		return hits[:max(0, min(k, len(hits)))], nil
	})
}
