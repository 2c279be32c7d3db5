package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.ObservationLifecycle = (*Store)(nil)

// SetObservationStatus implements memory.ObservationLifecycle: the bank
// row and the observations are locked, the move checked
// (memory.PlanObservationTransition) and applied in one transaction.
func (s *Store) SetObservationStatus(ctx context.Context, bankID string, ids []string, to memory.Status) ([]string, error) {
	var changed []string
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM banks WHERE id = $1 FOR UPDATE`, bankID).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return memory.UnknownBank(bankID)
		}
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT id, status FROM observations WHERE bank_id = $1 AND id = ANY($2) FOR UPDATE`, bankID, strs(ids))
		if err != nil {
			return err
		}
		current := map[string]memory.Status{}
		var id, status string
		if _, err := pgx.ForEachRow(rows, []any{&id, &status}, func() error {
			current[id] = memory.Status(status)
			return nil
		}); err != nil {
			return err
		}
		if changed, err = memory.PlanObservationTransition(ids, current, to); err != nil || len(changed) == 0 {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE observations SET status = $3 WHERE bank_id = $1 AND id = ANY($2)`, bankID, changed, string(to))
		return err
	})
	if err != nil {
		return nil, err
	}
	return changed, nil
}

// RecordObservationAccess implements memory.ObservationLifecycle.
func (s *Store) RecordObservationAccess(ctx context.Context, bankID string, ids []string, at time.Time) error {
	if len(ids) == 0 {
		return requireBank(ctx, s.pool, bankID)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE observations SET access_count = access_count + 1, last_accessed = $3
		WHERE bank_id = $1 AND id = ANY($2)`, bankID, ids, ts(at))
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return requireBank(ctx, s.pool, bankID)
	}
	return nil
}
