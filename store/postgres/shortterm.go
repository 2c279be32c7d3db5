package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.Promoter = (*Store)(nil)

// PromoteFacts implements memory.Promoter: one UPDATE clears expires_at
// where it is set. No search reads expires_at, so the bank's change
// counter stays.
func (s *Store) PromoteFacts(ctx context.Context, bankID string, ids []string) ([]string, error) {
	var changed []string
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		rows, err := tx.Query(ctx, `UPDATE facts SET expires_at = NULL
			WHERE bank_id = $1 AND expires_at IS NOT NULL AND id = ANY($2) RETURNING id`, bankID, ids)
		if err != nil {
			return fmt.Errorf("promote facts: %w", err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("promote facts: %w", err)
		}
		changed = inOrder(ids, got)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return changed, nil
}

// inOrder returns the ids of asked that are in got, in the order asked,
// each once.
func inOrder(asked, got []string) []string {
	left := make(map[string]bool, len(got))
	for _, id := range got {
		left[id] = true
	}
	var out []string
	for _, id := range asked {
		if left[id] {
			out = append(out, id)
			delete(left, id)
		}
	}
	return out
}
