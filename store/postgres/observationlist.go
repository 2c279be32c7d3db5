package postgres

import (
	"context"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.ObservationLister = (*Store)(nil)

// ListObservations implements memory.ObservationLister: the page's ids
// by creation time, then the observations themselves through
// Observations.
func (s *Store) ListObservations(ctx context.Context, bankID string, limit int) ([]*memory.Observation, error) {
	if limit < 0 {
		return nil, memory.Errorf(memory.EINVALID, "negative limit %d", limit)
	}
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	// LIMIT NULL is no limit.
	var lim *int
	if limit > 0 {
		lim = &limit
	}
	rows, err := s.pool.Query(ctx, `SELECT id FROM observations WHERE bank_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, bankID, lim)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids, err := dbrows.Collect(rows, dbrows.String)
	if err != nil {
		return nil, err
	}
	return s.Observations(ctx, bankID, ids)
}
