package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.ObservationLifecycle = (*Store)(nil)

// SetObservationStatus implements memory.ObservationLifecycle: the
// statuses are read, the move checked (memory.PlanObservationTransition)
// and applied in one write transaction, which also recounts the bank's
// active observations (the searches' shortcut reads that count).
func (s *Store) SetObservationStatus(ctx context.Context, bankID string, ids []string, to memory.Status) ([]string, error) {
	var changed []string
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		current := map[string]memory.Status{}
		if len(ids) > 0 {
			inIDs, args := in(ids, bankID)
			rows, err := tx.QueryContext(ctx, `SELECT id, status FROM observations WHERE bank_id = ? AND id IN `+inIDs, args...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id, status string
				if err := rows.Scan(&id, &status); err != nil {
					rows.Close()
					return err
				}
				current[id] = memory.Status(status)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		var err error
		if changed, err = memory.PlanObservationTransition(ids, current, to); err != nil || len(changed) == 0 {
			return err
		}
		inIDs, args := in(changed, string(to), bankID)
		if _, err := tx.ExecContext(ctx, `UPDATE observations SET status = ? WHERE bank_id = ? AND id IN `+inIDs, args...); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE banks SET observations = (SELECT count(*) FROM observations WHERE bank_id = ?1 AND status = 'active') WHERE id = ?1`, bankID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return changed, nil
}

// RecordObservationAccess implements memory.ObservationLifecycle.
func (s *Store) RecordObservationAccess(ctx context.Context, bankID string, ids []string, at time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		inIDs, args := in(ids, at.UnixMicro(), bankID)
		_, err := tx.ExecContext(ctx, `UPDATE observations SET access_count = access_count + 1, last_accessed = ?
			WHERE bank_id = ? AND id IN `+inIDs, args...)
		return err
	})
}
