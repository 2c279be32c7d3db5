package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mnemo-ai/mnemo/memory"
)

var (
	_ memory.FactVectors   = (*Store)(nil)
	_ memory.MergeVerdicts = (*Store)(nil)
	_ memory.FactGrouper   = (*Store)(nil)
)

// FactEmbeddings implements memory.FactVectors from the facts' stored
// blobs (the file, not the in-process index, is the source of truth).
func (s *Store) FactEmbeddings(ctx context.Context, bankID string, ids []string) (map[string][]float32, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	out := make(map[string][]float32, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	inIDs, args := in(ids, bankID)
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, embedding FROM facts WHERE bank_id = ? AND embedding IS NOT NULL AND id IN `+inIDs, args...)
	if err != nil {
		return nil, fmt.Errorf("fact embeddings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return nil, err
		}
		if len(b) > 0 {
			out[id] = decodeVector(make([]float32, 0, len(b)/4), b)
		}
	}
	return out, rows.Err()
}

// SavePairVerdicts implements memory.MergeVerdicts.
func (s *Store) SavePairVerdicts(ctx context.Context, bankID string, vs []memory.PairVerdict) error {
	for _, v := range vs {
		if err := memory.CheckPairVerdict(v); err != nil {
			return err
		}
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		rows := make([][]any, len(vs))
		for i, v := range vs {
			rows[i] = []any{bankID, v.Pair.A, v.Pair.B, string(v.Verdict), toMicro(v.At)}
		}
		return bulkInsert(ctx, tx, `INSERT INTO fact_verdicts (bank_id, fact_a, fact_b, verdict, at)`,
			` ON CONFLICT (bank_id, fact_a, fact_b) DO UPDATE SET verdict = excluded.verdict, at = excluded.at`, rows)
	})
}

// PairVerdicts implements memory.MergeVerdicts.
func (s *Store) PairVerdicts(ctx context.Context, bankID string, pairs []memory.FactPair) (map[memory.FactPair]memory.PairVerdict, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	out := map[memory.FactPair]memory.PairVerdict{}
	if len(pairs) == 0 {
		return out, nil
	}
	want := make(map[memory.FactPair]bool, len(pairs))
	as := make([]string, 0, len(pairs))
	for _, p := range pairs {
		want[p] = true
		as = append(as, p.A)
	}
	inIDs, args := in(as, bankID)
	rows, err := s.rdb.QueryContext(ctx, `SELECT fact_a, fact_b, verdict, at FROM fact_verdicts WHERE bank_id = ? AND fact_a IN `+inIDs, args...)
	if err != nil {
		return nil, fmt.Errorf("pair verdicts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var v memory.PairVerdict
		var at int64
		if err := rows.Scan(&v.Pair.A, &v.Pair.B, &v.Verdict, &at); err != nil {
			return nil, err
		}
		if want[v.Pair] {
			v.At = fromMicro(at)
			out[v.Pair] = v
		}
	}
	return out, rows.Err()
}

// GroupFacts implements memory.FactGrouper in one write transaction: the
// summary goes in through the write path's own apply (facts, full text,
// refs, links, the bank's version), the members' new status with it;
// the search mirror learns both after the commit.
func (s *Store) GroupFacts(ctx context.Context, bankID string, g *memory.FactGroup) error {
	if err := memory.CheckGroup(g); err != nil {
		return err
	}
	defer s.mirror.Begin(bankID)()
	var a applied
	w := &memory.WriteBatch{BankID: bankID, Facts: []*memory.Fact{g.Summary}}
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		inIDs, args := in(g.Members, bankID)
		rows, err := tx.QueryContext(ctx, `SELECT id, status FROM facts WHERE bank_id = ? AND id IN `+inIDs, args...)
		if err != nil {
			return err
		}
		status := map[string]memory.Status{}
		for rows.Next() {
			var id string
			var st memory.Status
			if err := rows.Scan(&id, &st); err != nil {
				rows.Close()
				return err
			}
			status[id] = st
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if err := memory.CheckGroupMembers(g.Members, status); err != nil {
			return err
		}
		var one int
		err = tx.QueryRowContext(ctx, `SELECT 1 FROM facts WHERE bank_id = ? AND id = ?`, bankID, g.Summary.ID).Scan(&one)
		if err == nil {
			return memory.Errorf(memory.ECONFLICT, "group: fact %s exists", g.Summary.ID)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		ents, err := tx.QueryContext(ctx, `SELECT DISTINCT entity_id FROM entity_refs WHERE bank_id = ? AND fact_id IN `+inIDs+` ORDER BY entity_id`, args...)
		if err != nil {
			return err
		}
		for ents.Next() {
			var e string
			if err := ents.Scan(&e); err != nil {
				ents.Close()
				return err
			}
			w.Refs = append(w.Refs, memory.EntityRef{FactID: g.Summary.ID, EntityID: e})
		}
		ents.Close()
		if err := ents.Err(); err != nil {
			return err
		}
		for _, id := range g.Members {
			w.Links = append(w.Links, memory.Link{FromID: g.Summary.ID, ToID: id, Kind: memory.LinkSummarises, Weight: 1})
		}
		if a, err = s.apply(ctx, tx, w); err != nil {
			return err
		}
		for _, id := range g.Members {
			var pk int64
			if err := tx.QueryRowContext(ctx, `UPDATE facts SET status = 'superseded', superseded_by = ?, expired_at = ?
				WHERE bank_id = ? AND id = ? RETURNING pk`, g.Summary.ID, toMicro(g.At), bankID, id).Scan(&pk); err != nil {
				return fmt.Errorf("group: supersede %s: %w", id, err)
			}
			a.change.SetStatus(pk, memory.StatusSuperseded, g.At)
		}
		return nil
	})
	if err != nil {
		return err
	}
	a.finish(s, w)
	return nil
}
