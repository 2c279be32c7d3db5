package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.Dreams = (*Store)(nil)

// PutDreams implements memory.Dreams: one upsert per dream in one
// transaction. The dreams table has no full-text or vector index: no
// search reads it.
func (s *Store) PutDreams(ctx context.Context, bankID string, ds []*memory.Dream) error {
	if err := memory.ValidateDreams(ds); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		for _, d := range ds {
			var vec any
			if len(d.Embedding) > 0 {
				vec = encodeVector(d.Embedding)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO dreams (bank_id, id, bridge, insight, source_fact_ids, embedding, created_at)
				VALUES (?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (bank_id, id) DO UPDATE SET bridge = excluded.bridge, insight = excluded.insight,
					source_fact_ids = excluded.source_fact_ids, embedding = excluded.embedding, created_at = excluded.created_at`,
				bankID, d.ID, d.Bridge, d.Insight, stringsJSON(d.SourceFactIDs), vec, d.CreatedAt.UnixMicro()); err != nil {
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
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	q := `SELECT id, bridge, insight, source_fact_ids, embedding, created_at FROM dreams
		WHERE bank_id = ? ORDER BY created_at DESC, id DESC`
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
	out, err := dbrows.Collect(rows, func(r dbrows.Scanner) (*memory.Dream, error) {
		d := &memory.Dream{BankID: bankID}
		var sources string
		var blob []byte
		var created int64
		if err := r.Scan(&d.ID, &d.Bridge, &d.Insight, &sources, &blob, &created); err != nil {
			return nil, err
		}
		if err := unmarshalJSON(sources, &d.SourceFactIDs); err != nil {
			return nil, fmt.Errorf("dream %s sources: %w", d.ID, err)
		}
		if len(blob) > 0 {
			d.Embedding = decodeVector(make([]float32, 0, len(blob)/4), blob)
		}
		d.CreatedAt = fromMicro(created)
		return d, nil
	})
	if out == nil && err == nil {
		out = []*memory.Dream{}
	}
	return out, err
}
