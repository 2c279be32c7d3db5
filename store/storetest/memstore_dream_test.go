package storetest

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

var (
	_ memory.Dreams               = (*memStore)(nil)
	_ memory.ObservationLifecycle = (*memStore)(nil)
)

func (s *memStore) PutDreams(_ context.Context, bankID string, ds []*memory.Dream) error {
	if err := memory.ValidateDreams(ds); err != nil {
		return err
	}
	_, err := with(s, bankID, func(b *memBank) (struct{}, error) {
		if b.dreams == nil {
			b.dreams = map[string]*memory.Dream{}
		}
		for _, d := range ds {
			c := *d
			c.BankID, c.SourceFactIDs, c.Embedding = bankID, slices.Clone(d.SourceFactIDs), slices.Clone(d.Embedding)
			b.dreams[c.ID] = &c
		}
		return struct{}{}, nil
	})
	return err
}

func (s *memStore) ListDreams(_ context.Context, bankID string, limit int) ([]*memory.Dream, error) {
	if limit < 0 {
		return nil, memory.Errorf(memory.EINVALID, "negative limit %d", limit)
	}
	return with(s, bankID, func(b *memBank) ([]*memory.Dream, error) {
		out := []*memory.Dream{}
		for _, d := range b.dreams {
			c := *d
			c.SourceFactIDs, c.Embedding = slices.Clone(d.SourceFactIDs), slices.Clone(d.Embedding)
			out = append(out, &c)
		}
		slices.SortFunc(out, func(x, y *memory.Dream) int {
			return cmp.Or(y.CreatedAt.Compare(x.CreatedAt), cmp.Compare(y.ID, x.ID))
		})
		if limit > 0 && len(out) > limit {
			out = out[:limit]
		}
		return out, nil
	})
}

// SetObservationStatus implements memory.ObservationLifecycle: the plan
// first, then every change, under the store's lock.
func (s *memStore) SetObservationStatus(_ context.Context, bankID string, ids []string, to memory.Status) ([]string, error) {
	return with(s, bankID, func(b *memBank) ([]string, error) {
		current := map[string]memory.Status{}
		for _, id := range ids {
			if o, ok := b.observations[id]; ok {
				current[id] = o.Status
			}
		}
		changed, err := memory.PlanObservationTransition(ids, current, to)
		if err != nil {
			return nil, err
		}
		for _, id := range changed {
			c := *b.observations[id]
			c.Status = to
			b.observations[id] = &c
		}
		return changed, nil
	})
}

func (s *memStore) RecordObservationAccess(_ context.Context, bankID string, ids []string, at time.Time) error {
	_, err := with(s, bankID, func(b *memBank) (struct{}, error) {
		for _, id := range ids {
			if o, ok := b.observations[id]; ok {
				c := *o
				c.AccessCount++
				c.LastAccessed = at
				b.observations[id] = &c
			}
		}
		return struct{}{}, nil
	})
	return err
}
