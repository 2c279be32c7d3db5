package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/mnemo-ai/mnemo/memory"
)

var (
	_ memory.FactVectors   = (*Store)(nil)
	_ memory.MergeVerdicts = (*Store)(nil)
	_ memory.FactGrouper   = (*Store)(nil)
)

// FactEmbeddings implements memory.FactVectors.
func (s *Store) FactEmbeddings(ctx context.Context, bankID string, ids []string) (map[string][]float32, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	out := make(map[string][]float32, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT id, embedding FROM facts WHERE bank_id = $1 AND id = ANY($2) AND embedding IS NOT NULL`, bankID, ids)
	if err != nil {
		return nil, fmt.Errorf("fact embeddings: %w", err)
	}
	defer rows.Close()
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

// SavePairVerdicts implements memory.MergeVerdicts.
func (s *Store) SavePairVerdicts(ctx context.Context, bankID string, vs []memory.PairVerdict) error {
	for _, v := range vs {
		if err := memory.CheckPairVerdict(v); err != nil {
			return err
		}
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		b := &pgx.Batch{}
		for _, v := range vs {
			b.Queue(`INSERT INTO fact_verdicts (bank_id, fact_a, fact_b, verdict, at) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (bank_id, fact_a, fact_b) DO UPDATE SET verdict = excluded.verdict, at = excluded.at`,
				bankID, v.Pair.A, v.Pair.B, string(v.Verdict), v.At.UTC())
		}
		return tx.SendBatch(ctx, b).Close()
	})
}

// PairVerdicts implements memory.MergeVerdicts.
func (s *Store) PairVerdicts(ctx context.Context, bankID string, pairs []memory.FactPair) (map[memory.FactPair]memory.PairVerdict, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	out := map[memory.FactPair]memory.PairVerdict{}
	if len(pairs) == 0 {
		return out, nil
	}
	as, bs := make([]string, len(pairs)), make([]string, len(pairs))
	for i, p := range pairs {
		as[i], bs[i] = p.A, p.B
	}
	rows, err := s.pool.Query(ctx, `SELECT v.fact_a, v.fact_b, v.verdict, v.at FROM fact_verdicts v
		JOIN unnest($2::text[], $3::text[]) AS p(a, b) ON v.fact_a = p.a AND v.fact_b = p.b
		WHERE v.bank_id = $1`, bankID, as, bs)
	if err != nil {
		return nil, fmt.Errorf("pair verdicts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var v memory.PairVerdict
		var verdict string
		var at time.Time
		if err := rows.Scan(&v.Pair.A, &v.Pair.B, &verdict, &at); err != nil {
			return nil, err
		}
		v.Verdict, v.At = memory.Verdict(verdict), at.UTC()
		out[v.Pair] = v
	}
	return out, rows.Err()
}

// GroupFacts implements memory.FactGrouper in one transaction under the
// bank's write lock: the summary goes in through the write path's own
// apply (facts, search columns, refs, links), the members' new status
// with it.
func (s *Store) GroupFacts(ctx context.Context, bankID string, g *memory.FactGroup) error {
	if err := memory.CheckGroup(g); err != nil {
		return err
	}
	var t *totals
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, bankLock(bankID)); err != nil {
			return err
		}
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT id, status FROM facts WHERE bank_id = $1 AND id = ANY($2) FOR UPDATE`, bankID, g.Members)
		if err != nil {
			return err
		}
		status := map[string]memory.Status{}
		for rows.Next() {
			var id, st string
			if err := rows.Scan(&id, &st); err != nil {
				rows.Close()
				return err
			}
			status[id] = memory.Status(st)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if err := memory.CheckGroupMembers(g.Members, status); err != nil {
			return err
		}
		var one int
		err = tx.QueryRow(ctx, `SELECT 1 FROM facts WHERE bank_id = $1 AND id = $2`, bankID, g.Summary.ID).Scan(&one)
		if err == nil {
			return memory.Errorf(memory.ECONFLICT, "group: fact %s exists", g.Summary.ID)
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		w := &memory.WriteBatch{BankID: bankID, Facts: []*memory.Fact{g.Summary}}
		ents, err := tx.Query(ctx, `SELECT DISTINCT entity_id FROM entity_refs WHERE bank_id = $1 AND fact_id = ANY($2) ORDER BY entity_id`, bankID, g.Members)
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
		t = newTotals()
		if _, err := apply(ctx, tx, w, s.Now, t); err != nil {
			return err
		}
		if err := t.flush(ctx, tx); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE facts SET status = 'superseded', superseded_by = $3, expired_at = $4
			WHERE bank_id = $1 AND id = ANY($2)`, bankID, g.Members, g.Summary.ID, g.At.UTC())
		return err
	})
	if err != nil {
		return err
	}
	s.noteFacts(t.added())
	return nil
}
