package storetest

import (
	"cmp"
	"context"
	"maps"
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

var (
	_ memory.Runs  = (*memStore)(nil)
	_ memory.Decay = (*memStore)(nil)
)

// memConsolidate is a bank's run records and tier log. It is shared by
// a bank's clones (memBank.clone): only these methods change it, under
// the store's lock.
type memConsolidate struct {
	runs    map[string]*memory.Run
	tierLog []memory.TierChange // oldest first
}

// records returns the bank's consolidation records, made on first use.
func (b *memBank) records() *memConsolidate {
	if b.consolidate == nil {
		b.consolidate = &memConsolidate{runs: map[string]*memory.Run{}}
	}
	return b.consolidate
}

// SaveRun implements memory.Runs.
func (s *memStore) SaveRun(_ context.Context, r *memory.Run) error {
	if err := memory.CheckRun(r); err != nil {
		return err
	}
	_, err := with(s, r.BankID, func(b *memBank) (struct{}, error) {
		c := *r
		c.Counts = maps.Clone(r.Counts)
		if c.Counts == nil {
			c.Counts = map[string]int{}
		}
		b.records().runs[r.ID] = &c
		return struct{}{}, nil
	})
	return err
}

// Runs implements memory.Runs.
func (s *memStore) Runs(_ context.Context, bankID string, limit int) ([]*memory.Run, error) {
	return with(s, bankID, func(b *memBank) ([]*memory.Run, error) {
		out := []*memory.Run{}
		for _, r := range b.records().runs {
			c := *r
			c.Counts = maps.Clone(r.Counts)
			out = append(out, &c)
		}
		slices.SortFunc(out, func(x, y *memory.Run) int {
			return cmp.Or(y.StartedAt.Compare(x.StartedAt), cmp.Compare(y.ID, x.ID))
		})
		if limit > 0 && len(out) > limit {
			out = out[:limit]
		}
		return out, nil
	})
}

// ApplyDecay implements memory.Decay.
func (s *memStore) ApplyDecay(_ context.Context, bankID string, u *memory.DecayUpdate) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.get(bankID)
	if err != nil {
		return err
	}
	nb := b.clone()
	for id, score := range u.Facts {
		if f, ok := nb.facts[id]; ok {
			c := *f
			c.DecayScore = score
			nb.facts[id] = &c
		}
	}
	for _, e := range u.Entities {
		if cur, ok := nb.entities[e.ID]; ok {
			c := *cur
			c.Salience, c.Tier = e.Salience, e.Tier
			nb.entities[e.ID] = &c
		}
	}
	rec := nb.records()
	for _, c := range u.Changes {
		if _, ok := nb.entities[c.EntityID]; ok {
			rec.tierLog = append(rec.tierLog, c)
		}
	}
	s.banks[bankID] = nb
	return nil
}

// TierLog implements memory.Decay.
func (s *memStore) TierLog(_ context.Context, bankID string, limit int) ([]memory.TierChange, error) {
	return with(s, bankID, func(b *memBank) ([]memory.TierChange, error) {
		log := b.records().tierLog
		out := []memory.TierChange{}
		for i := len(log) - 1; i >= 0; i-- {
			out = append(out, log[i])
		}
		// Newest At first; insertion order (newest first) breaks ties.
		slices.SortStableFunc(out, func(x, y memory.TierChange) int { return y.At.Compare(x.At) })
		if limit > 0 && len(out) > limit {
			out = out[:limit]
		}
		return out, nil
	})
}
