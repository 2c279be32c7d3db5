package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/mnemo-ai/mnemo/memory"
)

// Consolidation's records (memory.Runs, memory.Decay): run records in
// the runs table (migrations 001 and 010; kind holds the pass), tier
// changes in tier_changes (010), decay scores, salience and tiers in
// their facts and entities columns. None of it is in the search mirror:
// recall's filters never read these columns.

var (
	_ memory.Runs  = (*Store)(nil)
	_ memory.Decay = (*Store)(nil)
)

// SaveRun implements memory.Runs: an upsert by (bank, id).
func (s *Store) SaveRun(ctx context.Context, r *memory.Run) error {
	if err := memory.CheckRun(r); err != nil {
		return err
	}
	counts, err := json.Marshal(r.Counts)
	if err != nil {
		return fmt.Errorf("run %s counts: %w", r.ID, err)
	}
	if r.Counts == nil {
		counts = []byte("{}")
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, r.BankID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO runs (bank_id, id, kind, started_at, finished_at, counts, error, status, reason, llm_calls, tokens)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (bank_id, id) DO UPDATE SET kind = excluded.kind, started_at = excluded.started_at,
				finished_at = excluded.finished_at, counts = excluded.counts, error = excluded.error,
				status = excluded.status, reason = excluded.reason, llm_calls = excluded.llm_calls, tokens = excluded.tokens`,
			r.BankID, r.ID, r.Pass, toMicro(r.StartedAt), toMicro(r.FinishedAt), string(counts), r.Error,
			string(r.Status), r.Reason, r.LLMCalls, r.Tokens)
		if err != nil {
			return fmt.Errorf("save run %s: %w", r.ID, err)
		}
		return nil
	})
}

// Runs implements memory.Runs.
func (s *Store) Runs(ctx context.Context, bankID string, limit int) ([]*memory.Run, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, kind, started_at, finished_at, counts, error, status, reason, llm_calls, tokens
		FROM runs WHERE bank_id = ? ORDER BY started_at DESC, id DESC LIMIT ?`, bankID, limit)
	if err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	defer rows.Close()
	out := []*memory.Run{}
	for rows.Next() {
		r := &memory.Run{BankID: bankID}
		var started int64
		var finished sql.NullInt64
		var counts, status string
		if err := rows.Scan(&r.ID, &r.Pass, &started, &finished, &counts, &r.Error, &status, &r.Reason, &r.LLMCalls, &r.Tokens); err != nil {
			return nil, err
		}
		r.StartedAt, r.FinishedAt, r.Status = fromMicro(started), fromNullMicro(finished), memory.RunStatus(status)
		if err := json.Unmarshal([]byte(counts), &r.Counts); err != nil {
			return nil, fmt.Errorf("run %s counts: %w", r.ID, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// ApplyDecay implements memory.Decay in one write transaction; rows that
// are gone are skipped by the UPDATEs' own WHERE, and a change of an
// entity that is gone is not logged.
func (s *Store) ApplyDecay(ctx context.Context, bankID string, u *memory.DecayUpdate) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		for id, score := range u.Facts {
			if _, err := tx.ExecContext(ctx, `UPDATE facts SET decay_score = ? WHERE bank_id = ? AND id = ?`, score, bankID, id); err != nil {
				return fmt.Errorf("decay score %s: %w", id, err)
			}
		}
		for _, e := range u.Entities {
			if _, err := tx.ExecContext(ctx, `UPDATE entities SET salience = ?, tier = ? WHERE bank_id = ? AND id = ?`,
				e.Salience, string(e.Tier), bankID, e.ID); err != nil {
				return fmt.Errorf("entity %s tier: %w", e.ID, err)
			}
		}
		for _, c := range u.Changes {
			if _, err := tx.ExecContext(ctx, `INSERT INTO tier_changes (bank_id, entity_id, from_tier, to_tier, reason, at)
				SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM entities WHERE bank_id = ? AND id = ?)`,
				bankID, c.EntityID, string(c.From), string(c.To), c.Reason, c.At.UnixMicro(), bankID, c.EntityID); err != nil {
				return fmt.Errorf("log tier change of %s: %w", c.EntityID, err)
			}
		}
		return nil
	})
}

// TierLog implements memory.Decay.
func (s *Store) TierLog(ctx context.Context, bankID string, limit int) ([]memory.TierChange, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT entity_id, from_tier, to_tier, reason, at FROM tier_changes
		WHERE bank_id = ? ORDER BY at DESC, seq DESC LIMIT ?`, bankID, limit)
	if err != nil {
		return nil, fmt.Errorf("tier log: %w", err)
	}
	defer rows.Close()
	out := []memory.TierChange{}
	for rows.Next() {
		var c memory.TierChange
		var from, to string
		var at int64
		if err := rows.Scan(&c.EntityID, &from, &to, &c.Reason, &at); err != nil {
			return nil, err
		}
		c.From, c.To, c.At = memory.Tier(from), memory.Tier(to), fromMicro(at)
		out = append(out, c)
	}
	return out, rows.Err()
}
