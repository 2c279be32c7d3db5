package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.Promoter = (*Store)(nil)

// PromoteFacts implements memory.Promoter: one write transaction clears
// expires_at where it is set. The search mirror holds no expires_at, so
// it has nothing to learn and the bank's change counter stays.
func (s *Store) PromoteFacts(ctx context.Context, bankID string, ids []string) ([]string, error) {
	var changed []string
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		inIDs, args := in(ids, bankID)
		rows, err := tx.QueryContext(ctx, `UPDATE facts SET expires_at = NULL
			WHERE bank_id = ? AND expires_at IS NOT NULL AND id IN `+inIDs+` RETURNING id`, args...)
		if err != nil {
			return fmt.Errorf("promote facts: %w", err)
		}
		got, err := scanStrings(rows)
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
