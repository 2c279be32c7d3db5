package storetest

import (
	"context"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

var (
	_ memory.FactVectors   = (*memStore)(nil)
	_ memory.MergeVerdicts = (*memStore)(nil)
	_ memory.FactGrouper   = (*memStore)(nil)
)

// FactEmbeddings implements memory.FactVectors.
func (s *memStore) FactEmbeddings(_ context.Context, bankID string, ids []string) (map[string][]float32, error) {
	return with(s, bankID, func(b *memBank) (map[string][]float32, error) {
		out := map[string][]float32{}
		for _, id := range ids {
			if f := b.facts[id]; f != nil && len(f.Embedding) > 0 {
				out[id] = slices.Clone(f.Embedding)
			}
		}
		return out, nil
	})
}

// SavePairVerdicts implements memory.MergeVerdicts.
func (s *memStore) SavePairVerdicts(_ context.Context, bankID string, vs []memory.PairVerdict) error {
	for _, v := range vs {
		if err := memory.CheckPairVerdict(v); err != nil {
			return err
		}
	}
	_, err := with(s, bankID, func(b *memBank) (struct{}, error) {
		if b.verdicts == nil {
			b.verdicts = map[memory.FactPair]memory.PairVerdict{}
		}
		for _, v := range vs {
			v.At = v.At.UTC().Truncate(time.Microsecond)
			b.verdicts[v.Pair] = v
		}
		return struct{}{}, nil
	})
	return err
}

// PairVerdicts implements memory.MergeVerdicts.
func (s *memStore) PairVerdicts(_ context.Context, bankID string, pairs []memory.FactPair) (map[memory.FactPair]memory.PairVerdict, error) {
	return with(s, bankID, func(b *memBank) (map[memory.FactPair]memory.PairVerdict, error) {
		out := map[memory.FactPair]memory.PairVerdict{}
		for _, p := range pairs {
			if v, ok := b.verdicts[p]; ok {
				out[p] = v
			}
		}
		return out, nil
	})
}

// GroupFacts implements memory.FactGrouper on a clone of the bank, kept
// only when every step succeeded.
func (s *memStore) GroupFacts(_ context.Context, bankID string, g *memory.FactGroup) error {
	if err := memory.CheckGroup(g); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.get(bankID)
	if err != nil {
		return err
	}
	status := map[string]memory.Status{}
	for _, id := range g.Members {
		if f := b.facts[id]; f != nil {
			status[id] = f.Status
		}
	}
	if err := memory.CheckGroupMembers(g.Members, status); err != nil {
		return err
	}
	if b.facts[g.Summary.ID] != nil {
		return memory.Errorf(memory.ECONFLICT, "group: fact %s exists", g.Summary.ID)
	}
	w := &memory.WriteBatch{BankID: bankID, Facts: []*memory.Fact{g.Summary}}
	ents := map[string]bool{}
	for r := range b.refs {
		if slices.Contains(g.Members, r.FactID) && !ents[r.EntityID] {
			ents[r.EntityID] = true
			w.Refs = append(w.Refs, memory.EntityRef{FactID: g.Summary.ID, EntityID: r.EntityID})
		}
	}
	for _, id := range g.Members {
		w.Links = append(w.Links, memory.Link{FromID: g.Summary.ID, ToID: id, Kind: memory.LinkSummarises, Weight: 1})
	}
	nb := b.clone()
	if _, err := nb.apply(w); err != nil {
		return err
	}
	at := g.At.UTC().Truncate(time.Microsecond)
	for _, id := range g.Members {
		c := *nb.facts[id]
		c.Status, c.SupersededBy, c.ExpiredAt = memory.StatusSuperseded, g.Summary.ID, at
		nb.facts[id] = &c
	}
	s.banks[bankID] = nb
	return nil
}
