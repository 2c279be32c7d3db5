package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.Forgetter = (*Store)(nil)

// forgetTables are the tables a forget deletes rows from, vacuumed after
// it (docs/postgres.md, "Forgetting").
var forgetTables = []string{"facts", "fact_lexemes", "doc_lexemes", "doc_stats", "lexemes", "entity_refs", "links",
	"entities", "entity_aliases", "cooccurrences", "relations", "observations", "dreams", "chunks", "documents"}

// Forget implements memory.Forgetter: one transaction under the bank's
// write lock, then a VACUUM of the tables it deleted from (outside the
// transaction, where PostgreSQL allows it), so the dead row versions
// leave the tables and their indexes at once rather than at the next
// autovacuum. A VACUUM that fails is left to autovacuum: the forget is
// committed.
func (s *Store) Forget(ctx context.Context, bankID string, ids []string, rec *memory.ForgetRecord) (*memory.ForgetRecord, error) {
	ids, err := memory.ValidateForgetIDs(ids)
	if err != nil {
		return nil, err
	}
	out := &memory.ForgetRecord{}
	if rec != nil {
		*out = *rec
	}
	out.BankID, out.Counts = bankID, memory.ForgetCounts{}
	if out.At.IsZero() {
		out.At = s.Now()
	}
	out.At = out.At.UTC().Truncate(time.Microsecond)
	if out.ID == "" {
		out.ID = memory.ForgetRecordID(out.At)
	}
	err = s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, bankLock(bankID)); err != nil {
			return err
		}
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		if err := forgetFacts(ctx, tx, bankID, ids, &out.Counts); err != nil {
			return err
		}
		sel, err := json.Marshal(out.Selector)
		if err != nil {
			return err
		}
		counts, err := json.Marshal(out.Counts)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO forget_log (bank_id, id, at, actor, selector, counts) VALUES ($1, $2, $3, $4, $5, $6)`,
			bankID, out.ID, out.At, out.Actor, sel, counts); err != nil {
			if isCode(err, "23505") {
				return memory.Errorf(memory.ECONFLICT, "forget record %s already exists", out.ID)
			}
			return fmt.Errorf("forget record: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Best effort: autovacuum does the same later.
	_, _ = s.pool.Exec(ctx, `VACUUM `+strings.Join(forgetTables, ", "))
	return out, nil
}

// forgetFacts removes the facts ids of bank and every trace of them
// inside tx, counting in c.
func forgetFacts(ctx context.Context, tx pgx.Tx, bank string, ids []string, c *memory.ForgetCounts) error {
	rows, err := tx.Query(ctx, `SELECT id, document_id, chunk_id FROM facts WHERE bank_id = $1 AND id = ANY($2)`, bank, ids)
	if err != nil {
		return err
	}
	found := map[string]bool{}
	var docs, chunks []string
	for rows.Next() {
		var id, doc, chunk string
		if err := rows.Scan(&id, &doc, &chunk); err != nil {
			rows.Close()
			return err
		}
		found[id] = true
		if doc != "" && !slices.Contains(docs, doc) {
			docs = append(docs, doc)
		}
		if chunk != "" && !slices.Contains(chunks, chunk) {
			chunks = append(chunks, chunk)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(found) < len(ids) {
		var missing []string
		for _, id := range ids {
			if !found[id] {
				missing = append(missing, id)
			}
		}
		return memory.Errorf(memory.ENOTFOUND, "forget: unknown fact(s) in bank %q: %s", bank, strings.Join(missing, ", "))
	}
	c.Facts = len(ids)
	slices.Sort(docs)
	slices.Sort(chunks)

	perEntity := map[string]int{}
	perFact := map[string][]memory.RankedRef{}
	rows, err = tx.Query(ctx, `SELECT fact_id, entity_id, coalesce(ord, -1) FROM entity_refs WHERE bank_id = $1 AND fact_id = ANY($2)`, bank, ids)
	if err != nil {
		return err
	}
	for rows.Next() {
		var f, e string
		var ord int
		if err := rows.Scan(&f, &e, &ord); err != nil {
			rows.Close()
			return err
		}
		perEntity[e]++
		perFact[f] = append(perFact[f], memory.RankedRef{EntityID: e, Rank: ord})
		c.Refs++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}

	exec := func(q string, args ...any) (int, error) {
		ct, err := tx.Exec(ctx, q, args...)
		if err != nil {
			return 0, err
		}
		return int(ct.RowsAffected()), nil
	}
	// BM25 statistics first: they are computed from the facts' tsv.
	const ofFacts = `FROM facts f, unnest(f.tsv) u WHERE f.bank_id = $1 AND f.id = ANY($2)`
	for _, q := range []string{
		`UPDATE lexemes l SET df = l.df - d.n FROM (SELECT u.lexeme, count(*) AS n ` + ofFacts + ` GROUP BY u.lexeme) d
			WHERE l.bank_id = $1 AND l.lexeme = d.lexeme`,
		`DELETE FROM fact_lexemes p USING (SELECT u.lexeme, f.seq ` + ofFacts + `) d
			WHERE p.bank_id = $1 AND p.lexeme = d.lexeme AND p.seq = d.seq`,
		`UPDATE doc_lexemes dl SET tf = dl.tf - d.tf FROM (SELECT u.lexeme, f.document_id, sum(cardinality(u.positions)) AS tf ` + ofFacts + `
			AND f.document_id <> '' GROUP BY u.lexeme, f.document_id) d
			WHERE dl.bank_id = $1 AND dl.lexeme = d.lexeme AND dl.document_id = d.document_id`,
		`UPDATE doc_stats s SET words = s.words - d.w FROM (SELECT document_id, sum(words) AS w FROM facts
			WHERE bank_id = $1 AND id = ANY($2) AND document_id <> '' GROUP BY document_id) d
			WHERE s.bank_id = $1 AND s.document_id = d.document_id`,
		`UPDATE banks SET version = version + 1, fact_count = fact_count - (SELECT count(*) FROM facts WHERE bank_id = $1 AND id = ANY($2)),
			fact_words = fact_words - (SELECT coalesce(sum(words), 0) FROM facts WHERE bank_id = $1 AND id = ANY($2)) WHERE id = $1`,
	} {
		if _, err := exec(q, bank, ids); err != nil {
			return fmt.Errorf("forget statistics: %w", err)
		}
	}
	// A lexeme no fact holds any more goes: its row names the word.
	if _, err := exec(`DELETE FROM lexemes WHERE bank_id = $1 AND df <= 0`, bank); err != nil {
		return err
	}
	if _, err := exec(`DELETE FROM doc_lexemes WHERE bank_id = $1 AND document_id = ANY($2) AND tf <= 0`, bank, docs); err != nil {
		return err
	}
	if c.Links, err = exec(`DELETE FROM links WHERE bank_id = $1 AND (from_id = ANY($2) OR to_id = ANY($2))`, bank, ids); err != nil {
		return err
	}
	if _, err := exec(`DELETE FROM entity_refs WHERE bank_id = $1 AND fact_id = ANY($2)`, bank, ids); err != nil {
		return err
	}
	if _, err := exec(`DELETE FROM fact_verdicts WHERE bank_id = $1 AND (fact_a = ANY($2) OR fact_b = ANY($2))`, bank, ids); err != nil {
		return err
	}
	if err := forgetEntities(ctx, tx, bank, perEntity, perFact, c); err != nil {
		return err
	}
	if err := forgetSupport(ctx, tx, bank, ids, c); err != nil {
		return err
	}
	if _, err := exec(`UPDATE facts SET superseded_by = '' WHERE bank_id = $1 AND superseded_by = ANY($2)`, bank, ids); err != nil {
		return err
	}
	if _, err := exec(`DELETE FROM facts WHERE bank_id = $1 AND id = ANY($2)`, bank, ids); err != nil {
		return fmt.Errorf("forget facts: %w", err)
	}
	if c.Chunks, err = exec(`DELETE FROM chunks WHERE bank_id = $1 AND id = ANY($2)`, bank, chunks); err != nil {
		return err
	}
	if _, err := exec(`UPDATE facts SET chunk_id = '' WHERE bank_id = $1 AND chunk_id = ANY($2)`, bank, chunks); err != nil {
		return err
	}
	for _, d := range docs {
		var left int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM facts WHERE bank_id = $1 AND document_id = $2`, bank, d).Scan(&left); err != nil {
			return err
		}
		if left > 0 {
			if _, err := exec(`UPDATE documents SET content = '' WHERE bank_id = $1 AND id = $2`, bank, d); err != nil {
				return err
			}
			if _, err := exec(`UPDATE doc_stats SET first_seq = (SELECT min(seq) FROM facts WHERE bank_id = $1 AND document_id = $2)
				WHERE bank_id = $1 AND document_id = $2`, bank, d); err != nil {
				return err
			}
			continue
		}
		for _, q := range []string{
			`DELETE FROM doc_stats WHERE bank_id = $1 AND document_id = $2`,
			`DELETE FROM doc_lexemes WHERE bank_id = $1 AND document_id = $2`,
		} {
			if _, err := exec(q, bank, d); err != nil {
				return err
			}
		}
		n, err := exec(`DELETE FROM chunks WHERE bank_id = $1 AND document_id = $2`, bank, d)
		if err != nil {
			return err
		}
		c.Chunks += n
		if n, err = exec(`DELETE FROM documents WHERE bank_id = $1 AND id = $2`, bank, d); err != nil {
			return err
		}
		c.Documents += n
	}
	return nil
}

// forgetEntities takes the forgotten facts' mentions off their entities
// and co-occurrences, and removes the entities left with no refs.
func forgetEntities(ctx context.Context, tx pgx.Tx, bank string, perEntity map[string]int, perFact map[string][]memory.RankedRef, c *memory.ForgetCounts) error {
	if len(perEntity) == 0 {
		return nil
	}
	ents := make([]string, 0, len(perEntity))
	for e := range perEntity {
		ents = append(ents, e)
	}
	slices.Sort(ents)
	ns := make([]int32, len(ents))
	for i, e := range ents {
		ns[i] = int32(perEntity[e])
	}
	if _, err := tx.Exec(ctx, `UPDATE entities e SET mention_count = GREATEST(e.mention_count - x.n, 0)
		FROM unnest($2::text[], $3::int[]) AS x(id, n) WHERE e.bank_id = $1 AND e.id = x.id`, bank, ents, ns); err != nil {
		return err
	}
	for p, n := range memory.ForgetCooccurrences(perFact) {
		if _, err := tx.Exec(ctx, `UPDATE cooccurrences SET count = count - $4 WHERE bank_id = $1 AND entity_a = $2 AND entity_b = $3`, bank, p[0], p[1], n); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, `DELETE FROM cooccurrences WHERE bank_id = $1 AND count <= 0 AND (entity_a = ANY($2) OR entity_b = ANY($2))`, bank, ents); err != nil {
		return err
	}
	var gone []string
	rows, err := tx.Query(ctx, `SELECT e FROM unnest($2::text[]) AS e
		WHERE NOT EXISTS (SELECT 1 FROM entity_refs r WHERE r.bank_id = $1 AND r.entity_id = e)
		AND EXISTS (SELECT 1 FROM entities x WHERE x.bank_id = $1 AND x.id = e)`, bank, ents)
	if err != nil {
		return err
	}
	for rows.Next() {
		var e string
		if err := rows.Scan(&e); err != nil {
			rows.Close()
			return err
		}
		gone = append(gone, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(gone) == 0 {
		return nil
	}
	for _, q := range []string{
		`DELETE FROM entity_aliases WHERE bank_id = $1 AND entity_id = ANY($2)`,
		`DELETE FROM cooccurrences WHERE bank_id = $1 AND (entity_a = ANY($2) OR entity_b = ANY($2))`,
	} {
		if _, err := tx.Exec(ctx, q, bank, gone); err != nil {
			return err
		}
	}
	ct, err := tx.Exec(ctx, `DELETE FROM links WHERE bank_id = $1 AND entity_id = ANY($2)`, bank, gone)
	if err != nil {
		return err
	}
	c.Links += int(ct.RowsAffected())
	if ct, err = tx.Exec(ctx, `DELETE FROM relations WHERE bank_id = $1 AND (subject_id = ANY($2) OR object_id = ANY($2))`, bank, gone); err != nil {
		return err
	}
	c.Relations += int(ct.RowsAffected())
	if ct, err = tx.Exec(ctx, `DELETE FROM entities WHERE bank_id = $1 AND id = ANY($2)`, bank, gone); err != nil {
		return err
	}
	c.Entities += int(ct.RowsAffected())
	return nil
}

// forgetSupport takes the forgotten facts out of the relations they
// support and the observations they are a source of.
func forgetSupport(ctx context.Context, tx pgx.Tx, bank string, ids []string, c *memory.ForgetCounts) error {
	gone := map[string]bool{}
	for _, id := range ids {
		gone[id] = true
	}
	keep := func(refs []string) []string {
		return slices.DeleteFunc(slices.Clone(refs), func(id string) bool { return gone[id] })
	}
	type row struct {
		id   string
		refs []string
		n    int
	}
	load := func(q string) ([]row, error) {
		rows, err := tx.Query(ctx, q, bank, ids)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, &r.refs, &r.n); err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, rows.Err()
	}
	rels, err := load(`SELECT id, fact_ids, 0 FROM relations WHERE bank_id = $1 AND fact_ids && $2::text[] ORDER BY id`)
	if err != nil {
		return fmt.Errorf("forget relation support: %w", err)
	}
	for _, r := range rels {
		left := keep(r.refs)
		if len(left) == 0 {
			if _, err := tx.Exec(ctx, `DELETE FROM relations WHERE bank_id = $1 AND id = $2`, bank, r.id); err != nil {
				return err
			}
			c.Relations++
			continue
		}
		if _, err := tx.Exec(ctx, `UPDATE relations SET fact_ids = $3 WHERE bank_id = $1 AND id = $2`, bank, r.id, left); err != nil {
			return err
		}
		c.RelationsShrunk++
	}
	obs, err := load(`SELECT id, source_fact_ids, evidence_count FROM observations WHERE bank_id = $1 AND source_fact_ids && $2::text[] ORDER BY id`)
	if err != nil {
		return fmt.Errorf("forget observation sources: %w", err)
	}
	for _, o := range obs {
		left := keep(o.refs)
		if len(left) == 0 {
			if _, err := tx.Exec(ctx, `DELETE FROM observations WHERE bank_id = $1 AND id = $2`, bank, o.id); err != nil {
				return err
			}
			c.Observations++
			continue
		}
		evidence := max(o.n-(len(o.refs)-len(left)), 0)
		if _, err := tx.Exec(ctx, `UPDATE observations SET source_fact_ids = $3, evidence_count = $4 WHERE bank_id = $1 AND id = $2`, bank, o.id, left, evidence); err != nil {
			return err
		}
		// The next consolidation revisits the observation through its
		// remaining sources.
		if _, err := tx.Exec(ctx, `UPDATE facts SET consolidated_at = NULL WHERE bank_id = $1 AND id = ANY($2)`, bank, left); err != nil {
			return err
		}
		c.Reconsolidate++
	}
	// A dream worded from a forgotten fact goes whole.
	ct, err := tx.Exec(ctx, `DELETE FROM dreams WHERE bank_id = $1 AND source_fact_ids && $2::text[]`, bank, ids)
	if err != nil {
		return fmt.Errorf("forget dreams: %w", err)
	}
	c.Dreams += int(ct.RowsAffected())
	return nil
}

// ForgetSelect implements memory.Forgetter.
func (s *Store) ForgetSelect(ctx context.Context, bankID string, sel memory.ForgetSelector) ([]string, error) {
	if err := memory.ValidateForgetSelector(sel); err != nil {
		return nil, err
	}
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	q := `SELECT id FROM facts WHERE bank_id = $1`
	args := []any{bankID}
	if sel.EntityID != "" {
		args = append(args, sel.EntityID)
		q += fmt.Sprintf(` AND id IN (SELECT fact_id FROM entity_refs WHERE bank_id = $1 AND entity_id = $%d)`, len(args))
	}
	if sel.DocumentID != "" {
		args = append(args, sel.DocumentID)
		q += fmt.Sprintf(` AND document_id = $%d`, len(args))
	}
	if sel.Item != "" {
		args = append(args, sel.Source, sel.Item)
		q += fmt.Sprintf(` AND document_id IN (SELECT id FROM documents WHERE bank_id = $1 AND source = $%[1]d AND item_id = $%[2]d
			UNION SELECT document_id FROM item_versions WHERE bank_id = $1 AND source = $%[1]d AND item_id = $%[2]d)`, len(args)-1, len(args))
	}
	if !sel.From.IsZero() {
		args = append(args, ts(sel.From))
		q += fmt.Sprintf(` AND event_time >= $%d`, len(args))
	}
	if !sel.To.IsZero() {
		args = append(args, ts(sel.To))
		q += fmt.Sprintf(` AND event_time < $%d`, len(args))
	}
	rows, err := s.pool.Query(ctx, q+` ORDER BY seq`, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// ForgetLog implements memory.Forgetter.
func (s *Store) ForgetLog(ctx context.Context, bankID string, limit int) ([]*memory.ForgetRecord, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	var lim any
	if limit > 0 {
		lim = limit
	}
	rows, err := s.pool.Query(ctx, `SELECT id, at, actor, selector, counts FROM forget_log WHERE bank_id = $1 ORDER BY at DESC, id DESC LIMIT $2`, bankID, lim)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*memory.ForgetRecord
	for rows.Next() {
		r := &memory.ForgetRecord{BankID: bankID}
		var sel, counts []byte
		if err := rows.Scan(&r.ID, &r.At, &r.Actor, &sel, &counts); err != nil {
			return nil, err
		}
		r.At = r.At.UTC()
		if err := errors.Join(json.Unmarshal(sel, &r.Selector), json.Unmarshal(counts, &r.Counts)); err != nil {
			return nil, fmt.Errorf("forget record %s: %w", r.ID, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
