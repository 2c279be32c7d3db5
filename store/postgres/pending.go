package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	pgvector "github.com/pgvector/pgvector-go"

	"github.com/mnemo-ai/mnemo/memory"
)

// The consolidation queue (memory.PendingFacts) is the facts whose
// consolidated_at is NULL, walked by Seq through the partial index of
// migration 010; observation vectors are read from the observations
// table.

var (
	_ memory.PendingFacts       = (*Store)(nil)
	_ memory.ObservationVectors = (*Store)(nil)
)

// PendingFacts implements memory.PendingFacts.
func (s *Store) PendingFacts(ctx context.Context, bankID string, afterSeq int64, limit int) ([]*memory.Fact, error) {
	if err := memory.CheckPendingLimit(limit); err != nil {
		return nil, err
	}
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+factColumns+`, f.embedding FROM facts f
		WHERE f.bank_id = $1 AND f.status = 'active' AND f.consolidated_at IS NULL AND f.seq > $2
		ORDER BY f.seq LIMIT $3`, bankID, afterSeq, limit)
	if err != nil {
		return nil, fmt.Errorf("pending facts: %w", err)
	}
	defer rows.Close()
	var out []*memory.Fact
	for rows.Next() {
		var vec *pgvector.Vector
		f, err := scanFact(bankID, rows, &vec)
		if err != nil {
			return nil, err
		}
		if vec != nil {
			f.Embedding = vec.Slice()
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// MarkConsolidated implements memory.PendingFacts in one transaction.
func (s *Store) MarkConsolidated(ctx context.Context, bankID string, ids []string, at time.Time) (int, error) {
	if err := memory.CheckMarkTime(at); err != nil {
		return 0, err
	}
	var n int
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		tag, err := tx.Exec(ctx, `UPDATE facts SET consolidated_at = $3
			WHERE bank_id = $1 AND consolidated_at IS NULL AND id = ANY($2)`, bankID, ids, ts(at))
		if err != nil {
			return fmt.Errorf("mark consolidated: %w", err)
		}
		n = int(tag.RowsAffected())
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// ObservationVectors implements memory.ObservationVectors.
func (s *Store) ObservationVectors(ctx context.Context, bankID string) (map[string][]float32, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT id, embedding FROM observations
		WHERE bank_id = $1 AND status = 'active' AND embedding IS NOT NULL`, bankID)
	if err != nil {
		return nil, fmt.Errorf("observation vectors: %w", err)
	}
	defer rows.Close()
	out := map[string][]float32{}
	for rows.Next() {
		var id string
		var vec pgvector.Vector
		if err := rows.Scan(&id, &vec); err != nil {
			return nil, err
		}
		out[id] = vec.Slice()
	}
	return out, rows.Err()
}
