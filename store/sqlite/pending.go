package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
	"github.com/mnemo-ai/mnemo/memory"
)

// The consolidation queue (memory.PendingFacts) is the facts whose
// consolidated_at is NULL, walked by Seq through the partial index of
// migration 011; observation vectors are read from the observations
// table. Neither touches the search mirror: consolidated_at is no filter
// of recall's, and observations are searched from the file.

var (
	_ memory.PendingFacts       = (*Store)(nil)
	_ memory.ObservationVectors = (*Store)(nil)
)

// PendingFacts implements memory.PendingFacts.
func (s *Store) PendingFacts(ctx context.Context, bankID string, afterSeq int64, limit int) ([]*memory.Fact, error) {
	if err := memory.CheckPendingLimit(limit); err != nil {
		return nil, err
	}
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT embedding, `+factColumns+` FROM facts
		WHERE bank_id = ? AND status = 'active' AND consolidated_at IS NULL AND seq > ?
		ORDER BY seq LIMIT ?`, bankID, afterSeq, limit)
	if err != nil {
		return nil, fmt.Errorf("pending facts: %w", err)
	}
	defer rows.Close()
	return dbrows.Collect(rows, func(r dbrows.Scanner) (*memory.Fact, error) {
		var blob []byte
		f, err := scanFact(bankID, r, &blob)
		if err != nil {
			return nil, err
		}
		if len(blob) > 0 {
			f.Embedding = decodeVector(make([]float32, 0, len(blob)/4), blob)
		}
		return f, nil
	})
}

// MarkConsolidated implements memory.PendingFacts in one write
// transaction.
func (s *Store) MarkConsolidated(ctx context.Context, bankID string, ids []string, at time.Time) (int, error) {
	if err := memory.CheckMarkTime(at); err != nil {
		return 0, err
	}
	var n int
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		res, err := tx.ExecContext(ctx, `UPDATE facts SET consolidated_at = ?
			WHERE bank_id = ? AND consolidated_at IS NULL AND id IN (SELECT value FROM json_each(?))`,
			at.UnixMicro(), bankID, idList(slices.Compact(slices.Sorted(slices.Values(ids)))))
		if err != nil {
			return fmt.Errorf("mark consolidated: %w", err)
		}
		m, err := res.RowsAffected()
		n = int(m)
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// ObservationVectors implements memory.ObservationVectors.
func (s *Store) ObservationVectors(ctx context.Context, bankID string) (map[string][]float32, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, embedding FROM observations
		WHERE bank_id = ? AND status = 'active' AND embedding IS NOT NULL`, bankID)
	if err != nil {
		return nil, fmt.Errorf("observation vectors: %w", err)
	}
	defer rows.Close()
	out := map[string][]float32{}
	for rows.Next() {
		var id string
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return nil, err
		}
		if len(blob) > 0 {
			out[id] = decodeVector(make([]float32, 0, len(blob)/4), blob)
		}
	}
	return out, rows.Err()
}
