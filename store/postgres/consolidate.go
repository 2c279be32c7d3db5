package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/memory"
)

// Consolidation's records (memory.Runs, memory.Decay): run records in
// the runs table (migrations 001 and 009; kind holds the pass), tier
// changes in tier_changes (009), decay scores, salience and tiers in
// their facts and entities columns.

var (
	_ memory.Runs  = (*Store)(nil)
	_ memory.Decay = (*Store)(nil)
)

// SaveRun implements memory.Runs: an upsert by (bank, id).
func (s *Store) SaveRun(ctx context.Context, r *memory.Run) error {
	if err := memory.CheckRun(r); err != nil {
		return err
	}
	counts := r.Counts
	if counts == nil {
		counts = map[string]int{}
	}
	raw, err := json.Marshal(counts)
	if err != nil {
		return fmt.Errorf("run %s counts: %w", r.ID, err)
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := requireBank(ctx, tx, r.BankID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO runs (bank_id, id, kind, started_at, finished_at, counts, error, status, reason, llm_calls, tokens)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			ON CONFLICT (bank_id, id) DO UPDATE SET kind = excluded.kind, started_at = excluded.started_at,
				finished_at = excluded.finished_at, counts = excluded.counts, error = excluded.error,
				status = excluded.status, reason = excluded.reason, llm_calls = excluded.llm_calls, tokens = excluded.tokens`,
			r.BankID, r.ID, r.Pass, ts(r.StartedAt), ts(r.FinishedAt), string(raw), r.Error,
			string(r.Status), r.Reason, r.LLMCalls, r.Tokens)
		if err != nil {
			return fmt.Errorf("save run %s: %w", r.ID, err)
		}
		return nil
	})
}

// Runs implements memory.Runs.
func (s *Store) Runs(ctx context.Context, bankID string, limit int) ([]*memory.Run, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	var lim any // NULL: no limit
	if limit > 0 {
		lim = limit
	}
	rows, err := s.pool.Query(ctx, `SELECT id, kind, started_at, finished_at, counts::text, error, status, reason, llm_calls, tokens
		FROM runs WHERE bank_id = $1 ORDER BY started_at DESC, id DESC LIMIT $2`, bankID, lim)
	if err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	defer rows.Close()
	out := []*memory.Run{}
	for rows.Next() {
		r := &memory.Run{BankID: bankID}
		var started time.Time
		var finished *time.Time
		var counts, status string
		if err := rows.Scan(&r.ID, &r.Pass, &started, &finished, &counts, &r.Error, &status, &r.Reason, &r.LLMCalls, &r.Tokens); err != nil {
			return nil, err
		}
		r.StartedAt, r.FinishedAt, r.Status = started.UTC(), tm(finished), memory.RunStatus(status)
		if err := json.Unmarshal([]byte(counts), &r.Counts); err != nil {
			return nil, fmt.Errorf("run %s counts: %w", r.ID, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// ApplyDecay implements memory.Decay in one transaction, each kind of
// row in one statement over arrays; rows that are gone are skipped by the
// joins, and a change of an entity that is gone is not logged.
func (s *Store) ApplyDecay(ctx context.Context, bankID string, u *memory.DecayUpdate) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		if len(u.Facts) > 0 {
			ids := make([]string, 0, len(u.Facts))
			scores := make([]float64, 0, len(u.Facts))
			for id, sc := range u.Facts {
				ids, scores = append(ids, id), append(scores, sc)
			}
			if _, err := tx.Exec(ctx, `UPDATE facts f SET decay_score = v.score
				FROM unnest($2::text[], $3::float8[]) AS v(id, score) WHERE f.bank_id = $1 AND f.id = v.id`, bankID, ids, scores); err != nil {
				return fmt.Errorf("decay scores: %w", err)
			}
		}
		if len(u.Entities) > 0 {
			ids := make([]string, len(u.Entities))
			sal := make([]float64, len(u.Entities))
			tiers := make([]string, len(u.Entities))
			for i, e := range u.Entities {
				ids[i], sal[i], tiers[i] = e.ID, e.Salience, string(e.Tier)
			}
			if _, err := tx.Exec(ctx, `UPDATE entities e SET salience = v.salience, tier = v.tier
				FROM unnest($2::text[], $3::float8[], $4::text[]) AS v(id, salience, tier) WHERE e.bank_id = $1 AND e.id = v.id`,
				bankID, ids, sal, tiers); err != nil {
				return fmt.Errorf("salience and tiers: %w", err)
			}
		}
		for _, c := range u.Changes {
			if _, err := tx.Exec(ctx, `INSERT INTO tier_changes (bank_id, entity_id, from_tier, to_tier, reason, at)
				SELECT $1, $2, $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM entities WHERE bank_id = $1 AND id = $2)`,
				bankID, c.EntityID, string(c.From), string(c.To), c.Reason, ts(c.At)); err != nil {
				return fmt.Errorf("log tier change of %s: %w", c.EntityID, err)
			}
		}
		return nil
	})
}

// TierLog implements memory.Decay.
func (s *Store) TierLog(ctx context.Context, bankID string, limit int) ([]memory.TierChange, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	var lim any
	if limit > 0 {
		lim = limit
	}
	rows, err := s.pool.Query(ctx, `SELECT entity_id, from_tier, to_tier, reason, at FROM tier_changes
		WHERE bank_id = $1 ORDER BY at DESC, seq DESC LIMIT $2`, bankID, lim)
	if err != nil {
		return nil, fmt.Errorf("tier log: %w", err)
	}
	defer rows.Close()
	out := []memory.TierChange{}
	for rows.Next() {
		var c memory.TierChange
		var from, to string
		var at time.Time
		if err := rows.Scan(&c.EntityID, &from, &to, &c.Reason, &at); err != nil {
			return nil, err
		}
		c.From, c.To, c.At = memory.Tier(from), memory.Tier(to), at.UTC()
		out = append(out, c)
	}
	return out, rows.Err()
}
