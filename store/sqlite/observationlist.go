package sqlite

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
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	q := `SELECT id FROM observations WHERE bank_id = ? ORDER BY created_at DESC, id DESC`
	args := []any{bankID}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := s.rdb.QueryContext(ctx, q, args...)
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
