package storetest

import (
	"cmp"
	"context"
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.ObservationLister = (*memStore)(nil)

func (s *memStore) ListObservations(ctx context.Context, bankID string, limit int) ([]*memory.Observation, error) {
	if limit < 0 {
		return nil, memory.Errorf(memory.EINVALID, "negative limit %d", limit)
	}
	ids, err := with(s, bankID, func(b *memBank) ([]string, error) {
		var all []*memory.Observation
		for _, o := range b.observations {
			all = append(all, o)
		}
		slices.SortFunc(all, func(x, y *memory.Observation) int {
			return cmp.Or(y.CreatedAt.Compare(x.CreatedAt), cmp.Compare(y.ID, x.ID))
		})
		if limit > 0 && len(all) > limit {
			all = all[:limit]
		}
		ids := make([]string, 0, len(all))
		for _, o := range all {
			ids = append(ids, o.ID)
		}
		return ids, nil
	})
	if err != nil {
		return nil, err
	}
	return s.Observations(ctx, bankID, ids)
}
