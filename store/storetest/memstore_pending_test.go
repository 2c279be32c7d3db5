package storetest

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

var (
	_ memory.PendingFacts       = (*memStore)(nil)
	_ memory.ObservationVectors = (*memStore)(nil)
)

// PendingFacts implements memory.PendingFacts.
func (s *memStore) PendingFacts(_ context.Context, bankID string, afterSeq int64, limit int) ([]*memory.Fact, error) {
	if err := memory.CheckPendingLimit(limit); err != nil {
		return nil, err
	}
	return with(s, bankID, func(b *memBank) ([]*memory.Fact, error) {
		var out []*memory.Fact
		for _, f := range b.facts {
			if f.Seq > afterSeq && f.ConsolidatedAt.IsZero() && (f.Status == memory.StatusActive || f.Status == "") {
				c := *f
				c.Embedding = slices.Clone(f.Embedding)
				out = append(out, &c)
			}
		}
		slices.SortFunc(out, func(x, y *memory.Fact) int { return cmp.Compare(x.Seq, y.Seq) })
		return out[:min(limit, len(out))], nil
	})
}

// MarkConsolidated implements memory.PendingFacts: each marked fact is
// replaced by a changed copy.
func (s *memStore) MarkConsolidated(_ context.Context, bankID string, ids []string, at time.Time) (int, error) {
	if err := memory.CheckMarkTime(at); err != nil {
		return 0, err
	}
	return with(s, bankID, func(b *memBank) (int, error) {
		n := 0
		for _, id := range ids {
			if f, ok := b.facts[id]; ok && f.ConsolidatedAt.IsZero() {
				c := *f
				c.ConsolidatedAt = at
				b.facts[id] = &c
				n++
			}
		}
		return n, nil
	})
}

// ObservationVectors implements memory.ObservationVectors.
func (s *memStore) ObservationVectors(_ context.Context, bankID string) (map[string][]float32, error) {
	return with(s, bankID, func(b *memBank) (map[string][]float32, error) {
		out := map[string][]float32{}
		for id, o := range b.observations {
			if o.Status == memory.StatusActive && len(o.Embedding) > 0 {
				out[id] = slices.Clone(o.Embedding)
			}
		}
		return out, nil
	})
}
