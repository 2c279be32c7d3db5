package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	pgvector "github.com/pgvector/pgvector-go"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.Dreams = (*Store)(nil)

// PutDreams implements memory.Dreams: an upsert per dream, all in one
// transaction. The dreams table has no full-text or vector index: no
// search reads it.
func (s *Store) PutDreams(ctx context.Context, bankID string, ds []*memory.Dream) error {
	if err := memory.ValidateDreams(ds); err != nil {
		return err
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		for _, d := range ds {
			var vec any
			if len(d.Embedding) > 0 {
				vec = pgvector.NewVector(d.Embedding)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO dreams (bank_id, id, bridge, insight, source_fact_ids, embedding, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7)
				ON CONFLICT (bank_id, id) DO UPDATE SET bridge = excluded.bridge, insight = excluded.insight,
					source_fact_ids = excluded.source_fact_ids, embedding = excluded.embedding, created_at = excluded.created_at`,
				bankID, d.ID, d.Bridge, d.Insight, strs(d.SourceFactIDs), vec, ts(d.CreatedAt)); err != nil {
				return fmt.Errorf("dream %s: %w", d.ID, err)
			}
		}
		return nil
	})
}

// ListDreams implements memory.Dreams, newest first down the
// dreams_created index.
func (s *Store) ListDreams(ctx context.Context, bankID string, limit int) ([]*memory.Dream, error) {
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
	rows, err := s.pool.Query(ctx, `SELECT id, bridge, insight, source_fact_ids, embedding, created_at FROM dreams
		WHERE bank_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, bankID, lim)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out, err := dbrows.Collect(rows, func(r dbrows.Scanner) (*memory.Dream, error) {
		d := &memory.Dream{BankID: bankID}
		var vec *pgvector.Vector
		var created time.Time
		if err := r.Scan(&d.ID, &d.Bridge, &d.Insight, &d.SourceFactIDs, &vec, &created); err != nil {
			return nil, err
		}
		if len(d.SourceFactIDs) == 0 {
			d.SourceFactIDs = nil
		}
		if vec != nil {
			d.Embedding = vec.Slice()
		}
		d.CreatedAt = created.UTC()
		return d, nil
	})
	if out == nil && err == nil {
		out = []*memory.Dream{}
	}
	return out, err
}
