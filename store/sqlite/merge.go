package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/sqlite/internal/mirror"
)

var _ memory.FactMerger = (*Store)(nil)

// mergeRow is what MergeFact reads of each of the two facts.
type mergeRow struct {
	pk, seq      int64
	fact         memory.Fact
	lastAccessed sql.NullInt64
	found        bool
}

// MergeFact implements memory.FactMerger in one write transaction; the
// search mirror learns dup's new status (superseded) with the bank's new
// version, as SetFactStatus does.
func (s *Store) MergeFact(ctx context.Context, bankID, dup, keeper string, at time.Time) (bool, error) {
	defer s.mirror.Begin(bankID)()
	var (
		merged  bool
		version int64
		change  mirror.Change
	)
	err := s.write(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT version FROM banks WHERE id = ?`, bankID).Scan(&version)
		if errors.Is(err, sql.ErrNoRows) {
			return memory.UnknownBank(bankID)
		}
		if err != nil {
			return err
		}
		read := func(id string) (*mergeRow, error) {
			r := &mergeRow{}
			err := tx.QueryRowContext(ctx, `SELECT pk, seq, status, superseded_by, access_count, last_accessed, reinforcement_count
				FROM facts WHERE bank_id = ? AND id = ?`, bankID, id).
				Scan(&r.pk, &r.seq, &r.fact.Status, &r.fact.SupersededBy, &r.fact.AccessCount, &r.lastAccessed, &r.fact.ReinforcementCount)
			if errors.Is(err, sql.ErrNoRows) {
				return r, nil
			}
			r.found = err == nil
			return r, err
		}
		d, err := read(dup)
		if err != nil {
			return err
		}
		k, err := read(keeper)
		if err != nil {
			return err
		}
		var df, kf *memory.Fact
		if d.found && dup != "" {
			df = &d.fact
		}
		if k.found && keeper != "" {
			kf = &k.fact
		}
		if merged, err = memory.CheckMerge(dup, keeper, df, kf); err != nil || !merged {
			return err
		}
		steps := []struct {
			q    string
			args []any
		}{
			// Refs: keeper takes every entity dup mentions, at its own seq.
			{`INSERT OR IGNORE INTO entity_refs (bank_id, fact_id, entity_id, seq)
				SELECT bank_id, ?3, entity_id, ?4 FROM entity_refs WHERE bank_id = ?1 AND fact_id = ?2`, []any{bankID, dup, keeper, k.seq}},
			{`DELETE FROM entity_refs WHERE bank_id = ?1 AND fact_id = ?2`, []any{bankID, dup}},
			// Links: rewritten to keeper; one keeper already has, and
			// keeper to itself, are dropped.
			{`UPDATE OR IGNORE links SET from_id = ?3 WHERE bank_id = ?1 AND from_id = ?2 AND to_id != ?3`, []any{bankID, dup, keeper}},
			// INDEXED BY: left to itself SQLite walks the bank's links
			// by the primary key's bank_id prefix here (measured: 2 ms a
			// merge at 9,000 links, quadratic over a merge pass).
			{`UPDATE OR IGNORE links INDEXED BY links_to SET to_id = ?3 WHERE bank_id = ?1 AND to_id = ?2 AND from_id != ?3`, []any{bankID, dup, keeper}},
			// Two deletes, not one with OR: each uses its index (the
			// primary key, links_to); the OR scanned the bank's links.
			{`DELETE FROM links WHERE bank_id = ?1 AND from_id = ?2`, []any{bankID, dup}},
			{`DELETE FROM links INDEXED BY links_to WHERE bank_id = ?1 AND to_id = ?2`, []any{bankID, dup}},
			{`UPDATE facts SET access_count = access_count + ?3, reinforcement_count = reinforcement_count + 1 + ?4,
				last_accessed = CASE WHEN last_accessed IS NULL OR (?5 IS NOT NULL AND ?5 > last_accessed) THEN ?5 ELSE last_accessed END
				WHERE bank_id = ?1 AND id = ?2`, []any{bankID, keeper, d.fact.AccessCount, d.fact.ReinforcementCount, d.lastAccessed}},
			{`UPDATE facts SET status = 'superseded', superseded_by = ?3, expired_at = ?4 WHERE bank_id = ?1 AND id = ?2`,
				[]any{bankID, dup, keeper, toMicro(at)}},
		}
		for _, st := range steps {
			if _, err := tx.ExecContext(ctx, st.q, st.args...); err != nil {
				return fmt.Errorf("merge %s into %s: %w", dup, keeper, err)
			}
		}
		if err := rewriteFactLists(ctx, tx, bankID, dup, keeper); err != nil {
			return err
		}
		change.SetStatus(d.pk, memory.StatusSuperseded, at)
		version++
		_, err = tx.ExecContext(ctx, `UPDATE banks SET version = ? WHERE id = ?`, version, bankID)
		return err
	})
	if err != nil {
		return false, err
	}
	if merged {
		s.mirror.Apply(bankID, version, &change)
	}
	return merged, nil
}

// rewriteFactLists names keeper instead of dup in every observation's
// source list and every relation's fact list (memory.ReplaceFactID).
func rewriteFactLists(ctx context.Context, tx *sql.Tx, bank, dup, keeper string) error {
	for _, t := range []struct{ table, col string }{{"observations", "source_fact_ids"}, {"relations", "fact_ids"}} {
		// instr on the JSON text, not json_each: the lists are JSON arrays
		// of ids, and a substring test of the quoted id is a plain scan
		// SQLite runs several times faster than parsing every list at
		// every merge; ReplaceFactID below checks the id exactly.
		rows, err := tx.QueryContext(ctx, `SELECT id, `+t.col+` FROM `+t.table+` WHERE bank_id = ?1
			AND instr(`+t.col+`, '"' || ?2 || '"') > 0`, bank, dup)
		if err != nil {
			return err
		}
		type row struct {
			id  string
			ids []string
		}
		var rs []row
		for rows.Next() {
			var r row
			var js string
			if err := rows.Scan(&r.id, &js); err != nil {
				rows.Close()
				return err
			}
			if err := unmarshalJSON(js, &r.ids); err != nil {
				rows.Close()
				return fmt.Errorf("%s %s: %w", t.table, r.id, err)
			}
			rs = append(rs, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, r := range rs {
			ids, changed := memory.ReplaceFactID(r.ids, dup, keeper)
			if !changed {
				continue
			}
			if _, err := tx.ExecContext(ctx, `UPDATE `+t.table+` SET `+t.col+` = ? WHERE bank_id = ? AND id = ?`, stringsJSON(ids), bank, r.id); err != nil {
				return err
			}
		}
	}
	return nil
}
