package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.FactMerger = (*Store)(nil)

// MergeFact implements memory.FactMerger in one transaction, with the
// bank's row locked as every status change locks it.
func (s *Store) MergeFact(ctx context.Context, bankID, dup, keeper string, at time.Time) (bool, error) {
	var merged bool
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM banks WHERE id = $1 FOR UPDATE`, bankID).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return memory.UnknownBank(bankID)
		}
		if err != nil {
			return err
		}
		type row struct {
			seq          int64
			f            memory.Fact
			lastAccessed *time.Time
		}
		read := func(id string) (*memory.Fact, *row, error) {
			r := &row{}
			var status string
			err := tx.QueryRow(ctx, `SELECT seq, status, superseded_by, access_count, last_accessed, reinforcement_count
				FROM facts WHERE bank_id = $1 AND id = $2 FOR UPDATE`, bankID, id).
				Scan(&r.seq, &status, &r.f.SupersededBy, &r.f.AccessCount, &r.lastAccessed, &r.f.ReinforcementCount)
			if errors.Is(err, pgx.ErrNoRows) || id == "" {
				return nil, r, nil
			}
			r.f.Status = memory.Status(status)
			return &r.f, r, err
		}
		df, d, err := read(dup)
		if err != nil {
			return err
		}
		kf, k, err := read(keeper)
		if err != nil {
			return err
		}
		if merged, err = memory.CheckMerge(dup, keeper, df, kf); err != nil || !merged {
			return err
		}
		steps := []struct {
			q    string
			args []any
		}{
			// Refs: keeper takes every entity dup mentions, at its own seq.
			{`INSERT INTO entity_refs (bank_id, fact_id, entity_id, seq)
				SELECT bank_id, $3, entity_id, $4 FROM entity_refs WHERE bank_id = $1 AND fact_id = $2
				ON CONFLICT DO NOTHING`, []any{bankID, dup, keeper, k.seq}},
			{`DELETE FROM entity_refs WHERE bank_id = $1 AND fact_id = $2`, []any{bankID, dup}},
			// Links: rewritten to keeper; one keeper already has, and
			// keeper to itself, are dropped.
			{`INSERT INTO links (bank_id, from_id, to_id, kind, entity_id, weight)
				SELECT bank_id, CASE WHEN from_id = $2 THEN $3 ELSE from_id END, CASE WHEN to_id = $2 THEN $3 ELSE to_id END, kind, entity_id, weight
				FROM links WHERE bank_id = $1 AND (from_id = $2 OR to_id = $2)
				AND (CASE WHEN from_id = $2 THEN $3 ELSE from_id END) <> (CASE WHEN to_id = $2 THEN $3 ELSE to_id END)
				ON CONFLICT DO NOTHING`, []any{bankID, dup, keeper}},
			{`DELETE FROM links WHERE bank_id = $1 AND (from_id = $2 OR to_id = $2)`, []any{bankID, dup}},
			{`UPDATE facts SET access_count = access_count + $3, reinforcement_count = reinforcement_count + 1 + $4,
				last_accessed = GREATEST(last_accessed, $5::timestamptz)
				WHERE bank_id = $1 AND id = $2`, []any{bankID, keeper, d.f.AccessCount, d.f.ReinforcementCount, d.lastAccessed}},
			{`UPDATE facts SET status = 'superseded', superseded_by = $3, expired_at = $4 WHERE bank_id = $1 AND id = $2`,
				[]any{bankID, dup, keeper, at.UTC()}},
			// Observation sources and relation support name keeper in
			// dup's place, once (memory.ReplaceFactID).
			{`UPDATE observations SET source_fact_ids = ARRAY(
				SELECT id FROM (SELECT CASE WHEN x = $2 THEN $3 ELSE x END AS id, min(n) AS n
					FROM unnest(source_fact_ids) WITH ORDINALITY AS u(x, n) GROUP BY 1) v ORDER BY n)
				WHERE bank_id = $1 AND $2 = ANY(source_fact_ids)`, []any{bankID, dup, keeper}},
			{`UPDATE relations SET fact_ids = ARRAY(
				SELECT id FROM (SELECT CASE WHEN x = $2 THEN $3 ELSE x END AS id, min(n) AS n
					FROM unnest(fact_ids) WITH ORDINALITY AS u(x, n) GROUP BY 1) v ORDER BY n)
				WHERE bank_id = $1 AND $2 = ANY(fact_ids)`, []any{bankID, dup, keeper}},
			{`UPDATE banks SET version = version + 1 WHERE id = $1`, []any{bankID}},
		}
		for _, st := range steps {
			if _, err := tx.Exec(ctx, st.q, st.args...); err != nil {
				return fmt.Errorf("merge %s into %s: %w", dup, keeper, err)
			}
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	return merged, nil
}
