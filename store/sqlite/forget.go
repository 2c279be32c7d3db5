package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/sqlite/internal/mirror"
)

// Deleted text stays off the disk three ways: the writer connection runs
// with PRAGMA secure_delete (freed cells and pages are zeroed: Open's
// DSN), the observations' full-text table has FTS5's 'secure-delete' option (a
// deleted row's tokens leave the index segments at once: migration
// 005_forget.sql), and a forget ends with a WAL checkpoint that
// truncates the WAL file, which held the pages as they were.

var _ memory.Forgetter = (*Store)(nil)

// checkpointTries is how many times a forget's WAL checkpoint is tried
// when a reader holds an old snapshot.
const checkpointTries = 20

// Forget implements memory.Forgetter.
func (s *Store) Forget(ctx context.Context, bankID string, ids []string, rec *memory.ForgetRecord) (*memory.ForgetRecord, error) {
	defer s.mirror.Begin(bankID)()
	ids, err := memory.ValidateForgetIDs(ids)
	if err != nil {
		return nil, err
	}
	out := forgetRecord(bankID, rec, s.Now)
	var change mirror.Change
	var version int64
	err = s.write(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT version FROM banks WHERE id = ?`, bankID).Scan(&version); err != nil {
			if err == sql.ErrNoRows {
				return memory.UnknownBank(bankID)
			}
			return err
		}
		pks, err := forgetFacts(ctx, tx, bankID, ids, &out.Counts)
		if err != nil {
			return err
		}
		change.Remove(pks...)
		sel, err := marshalJSON(out.Selector)
		if err != nil {
			return err
		}
		counts, err := marshalJSON(out.Counts)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO forget_log (bank_id, id, at, actor, selector, counts) VALUES (?, ?, ?, ?, ?, ?)`,
			bankID, out.ID, out.At.UnixMicro(), out.Actor, sel, counts); err != nil {
			if isConstraint(err) {
				return memory.Errorf(memory.ECONFLICT, "forget record %s already exists", out.ID)
			}
			return fmt.Errorf("forget record: %w", err)
		}
		// secure-delete takes a deleted row's entries out of the
		// segments, but a term left with no rows can stay as a key of its
		// leaf page: optimize rewrites the index into one segment without
		// it (a cost proportional to the whole index, paid per forget).
		if _, err := tx.ExecContext(ctx, `INSERT INTO observations_fts(observations_fts) VALUES('optimize')`); err != nil {
			return fmt.Errorf("optimize observations_fts: %w", err)
		}
		version++
		_, err = tx.ExecContext(ctx, `UPDATE banks SET version = ? WHERE id = ?`, version, bankID)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.mirror.Apply(bankID, version, &change)
	s.mirror.Forgot(bankID) // the bank's index file held them too
	s.checkpoint(ctx)
	return out, nil
}

// forgetRecord returns a copy of rec (or a new record) with its id,
// bank and time set.
func forgetRecord(bankID string, rec *memory.ForgetRecord, now func() time.Time) *memory.ForgetRecord {
	out := &memory.ForgetRecord{}
	if rec != nil {
		*out = *rec
	}
	out.BankID = bankID
	out.Counts = memory.ForgetCounts{}
	if out.At.IsZero() {
		out.At = now()
	}
	out.At = out.At.UTC().Truncate(time.Microsecond)
	if out.ID == "" {
		out.ID = memory.ForgetRecordID(out.At)
	}
	return out
}

// checkpoint copies the WAL into the database file and truncates it, so
// the pages a forget replaced leave the disk. A reader holding an old
// snapshot makes it fail busy; it is tried again a few times, and a
// checkpoint that never completes is left to the next one (the forget
// itself is committed).
func (s *Store) checkpoint(ctx context.Context) {
	for range checkpointTries {
		var busy, logFrames, done int
		err := s.wdb.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &done)
		if err == nil && busy == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// forgetFacts removes the facts ids of bank and every trace of them
// inside tx, counting in c, and returns their rows for the mirror.
func forgetFacts(ctx context.Context, tx *sql.Tx, bank string, ids []string, c *memory.ForgetCounts) ([]int64, error) {
	list := idList(ids)
	const F = `(SELECT value FROM json_each(?2))`

	// The facts, with where they came from.
	rows, err := tx.QueryContext(ctx, `SELECT pk, id, document_id, chunk_id FROM facts WHERE bank_id = ?1 AND id IN `+F, bank, list)
	if err != nil {
		return nil, err
	}
	var pks []int64
	found := map[string]bool{}
	docs, chunks := map[string]bool{}, map[string]bool{}
	for rows.Next() {
		var pk int64
		var id, doc, chunk string
		if err := rows.Scan(&pk, &id, &doc, &chunk); err != nil {
			rows.Close()
			return nil, err
		}
		pks = append(pks, pk)
		found[id] = true
		if doc != "" {
			docs[doc] = true
		}
		if chunk != "" {
			chunks[chunk] = true
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(found) < len(ids) {
		var missing []string
		for _, id := range ids {
			if !found[id] {
				missing = append(missing, id)
			}
		}
		return nil, memory.Errorf(memory.ENOTFOUND, "forget: unknown fact(s) in bank %q: %s", bank, strings.Join(missing, ", "))
	}
	c.Facts = len(ids)

	// Entity refs: mentions per entity, entities per fact.
	perEntity := map[string]int{}
	perFact := map[string][]memory.RankedRef{}
	rows, err = tx.QueryContext(ctx, `SELECT fact_id, entity_id, coalesce(ord, -1) FROM entity_refs WHERE bank_id = ?1 AND fact_id IN `+F, bank, list)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var f, e string
		var ord int
		if err := rows.Scan(&f, &e, &ord); err != nil {
			rows.Close()
			return nil, err
		}
		perEntity[e]++
		perFact[f] = append(perFact[f], memory.RankedRef{EntityID: e, Rank: ord})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, n := range perEntity {
		c.Refs += n
	}

	exec := func(q string, args ...any) (int, error) {
		r, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return 0, err
		}
		n, _ := r.RowsAffected()
		return int(n), nil
	}
	// Two deletes, each by its index: one with OR walks the bank's links.
	if c.Links, err = exec(`DELETE FROM links WHERE bank_id = ?1 AND from_id IN `+F, bank, list); err != nil {
		return nil, fmt.Errorf("forget links: %w", err)
	}
	n, err := exec(`DELETE FROM links INDEXED BY links_to WHERE bank_id = ?1 AND to_id IN `+F, bank, list)
	if err != nil {
		return nil, fmt.Errorf("forget links: %w", err)
	}
	c.Links += n
	if _, err := exec(`DELETE FROM entity_refs WHERE bank_id = ?1 AND fact_id IN `+F, bank, list); err != nil {
		return nil, fmt.Errorf("forget refs: %w", err)
	}
	if _, err := exec(`DELETE FROM fact_verdicts WHERE bank_id = ?1 AND (fact_a IN `+F+` OR fact_b IN `+F+`)`, bank, list); err != nil {
		return nil, fmt.Errorf("forget verdicts: %w", err)
	}
	if err := forgetEntities(ctx, tx, bank, perEntity, perFact, c); err != nil {
		return nil, err
	}
	if err := forgetSupport(ctx, tx, bank, list, c); err != nil {
		return nil, err
	}
	// Supersession pointers to the facts; theirs go with their rows.
	if _, err := exec(`UPDATE facts SET superseded_by = '' WHERE bank_id = ?1 AND superseded_by IN `+F, bank, list); err != nil {
		return nil, err
	}
	if _, err := exec(`DELETE FROM facts WHERE bank_id = ?1 AND id IN `+F, bank, list); err != nil {
		return nil, fmt.Errorf("forget facts: %w", err)
	}
	// Chunks the facts came from held their words.
	chunkList := idList(sortedKeys(chunks))
	if c.Chunks, err = exec(`DELETE FROM chunks WHERE bank_id = ?1 AND id IN (SELECT value FROM json_each(?2))`, bank, chunkList); err != nil {
		return nil, err
	}
	if _, err := exec(`UPDATE facts SET chunk_id = '' WHERE bank_id = ?1 AND chunk_id IN (SELECT value FROM json_each(?2))`, bank, chunkList); err != nil {
		return nil, err
	}
	// Documents: gone when no fact is left, their raw content cleared
	// otherwise.
	for _, d := range sortedKeys(docs) {
		var left int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM facts WHERE bank_id = ? AND document_id = ?`, bank, d).Scan(&left); err != nil {
			return nil, err
		}
		if left > 0 {
			if _, err := exec(`UPDATE documents SET content = '' WHERE bank_id = ? AND id = ?`, bank, d); err != nil {
				return nil, err
			}
			continue
		}
		n, err := exec(`DELETE FROM chunks WHERE bank_id = ? AND document_id = ?`, bank, d)
		if err != nil {
			return nil, err
		}
		c.Chunks += n
		if n, err = exec(`DELETE FROM documents WHERE bank_id = ? AND id = ?`, bank, d); err != nil {
			return nil, err
		}
		c.Documents += n
	}
	return pks, nil
}

// forgetEntities takes the forgotten facts' mentions off their entities
// and co-occurrences, and removes the entities left with no refs.
func forgetEntities(ctx context.Context, tx *sql.Tx, bank string, perEntity map[string]int, perFact map[string][]memory.RankedRef, c *memory.ForgetCounts) error {
	for _, e := range sortedKeys(perEntity) {
		if _, err := tx.ExecContext(ctx, `UPDATE entities SET mention_count = max(mention_count - ?, 0) WHERE bank_id = ? AND id = ?`, perEntity[e], bank, e); err != nil {
			return err
		}
	}
	for p, n := range memory.ForgetCooccurrences(perFact) {
		if _, err := tx.ExecContext(ctx, `UPDATE cooccurrences SET count = count - ? WHERE bank_id = ? AND entity_a = ? AND entity_b = ?`, n, bank, p[0], p[1]); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM cooccurrences WHERE bank_id = ? AND count <= 0`, bank); err != nil {
		return err
	}
	for _, e := range sortedKeys(perEntity) {
		var refs int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM entity_refs WHERE bank_id = ? AND entity_id = ?`, bank, e).Scan(&refs); err != nil {
			return err
		}
		if refs > 0 {
			continue
		}
		for _, q := range []string{
			`DELETE FROM entity_aliases WHERE bank_id = ?1 AND entity_id = ?2`,
			`DELETE FROM cooccurrences WHERE bank_id = ?1 AND (entity_a = ?2 OR entity_b = ?2)`,
		} {
			if _, err := tx.ExecContext(ctx, q, bank, e); err != nil {
				return err
			}
		}
		r, err := tx.ExecContext(ctx, `DELETE FROM links WHERE bank_id = ?1 AND entity_id = ?2`, bank, e)
		if err != nil {
			return err
		}
		n, _ := r.RowsAffected()
		c.Links += int(n)
		if r, err = tx.ExecContext(ctx, `DELETE FROM relations WHERE bank_id = ?1 AND (subject_id = ?2 OR object_id = ?2)`, bank, e); err != nil {
			return err
		}
		n, _ = r.RowsAffected()
		c.Relations += int(n)
		if r, err = tx.ExecContext(ctx, `DELETE FROM entities WHERE bank_id = ? AND id = ?`, bank, e); err != nil {
			return err
		}
		n, _ = r.RowsAffected()
		c.Entities += int(n)
	}
	return nil
}

// forgetSupport takes the forgotten facts (list, a JSON array) out of the
// relations they support and the observations they are a source of.
func forgetSupport(ctx context.Context, tx *sql.Tx, bank, list string, c *memory.ForgetCounts) error {
	gone := map[string]bool{}
	var ids []string
	if err := unmarshalJSON(list, &ids); err != nil {
		return err
	}
	for _, id := range ids {
		gone[id] = true
	}
	type row struct {
		pk   int64
		id   string
		refs []string
		n    int
	}
	load := func(q string) ([]row, error) {
		rows, err := tx.QueryContext(ctx, q, bank, list)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []row
		for rows.Next() {
			var r row
			var refs string
			if err := rows.Scan(&r.pk, &r.id, &refs, &r.n); err != nil {
				return nil, err
			}
			if err := unmarshalJSON(refs, &r.refs); err != nil {
				return nil, fmt.Errorf("%s: %w", r.id, err)
			}
			out = append(out, r)
		}
		return out, rows.Err()
	}
	keep := func(refs []string) []string {
		return slices.DeleteFunc(slices.Clone(refs), func(id string) bool { return gone[id] })
	}

	rels, err := load(`SELECT 0, id, fact_ids, 0 FROM relations WHERE bank_id = ?1
		AND EXISTS (SELECT 1 FROM json_each(relations.fact_ids) j WHERE j.value IN (SELECT value FROM json_each(?2)))`)
	if err != nil {
		return fmt.Errorf("forget relation support: %w", err)
	}
	for _, r := range rels {
		left := keep(r.refs)
		if len(left) == 0 {
			if _, err := tx.ExecContext(ctx, `DELETE FROM relations WHERE bank_id = ? AND id = ?`, bank, r.id); err != nil {
				return err
			}
			c.Relations++
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE relations SET fact_ids = ? WHERE bank_id = ? AND id = ?`, stringsJSON(left), bank, r.id); err != nil {
			return err
		}
		c.RelationsShrunk++
	}

	obs, err := load(`SELECT pk, id, source_fact_ids, evidence_count FROM observations WHERE bank_id = ?1
		AND EXISTS (SELECT 1 FROM json_each(observations.source_fact_ids) j WHERE j.value IN (SELECT value FROM json_each(?2)))`)
	if err != nil {
		return fmt.Errorf("forget observation sources: %w", err)
	}
	for _, o := range obs {
		left := keep(o.refs)
		if len(left) == 0 {
			if _, err := tx.ExecContext(ctx, `DELETE FROM observations_fts WHERE rowid = ?`, o.pk); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM observations WHERE pk = ?`, o.pk); err != nil {
				return err
			}
			c.Observations++
			continue
		}
		evidence := max(o.n-(len(o.refs)-len(left)), 0)
		if _, err := tx.ExecContext(ctx, `UPDATE observations SET source_fact_ids = ?, evidence_count = ? WHERE pk = ?`, stringsJSON(left), evidence, o.pk); err != nil {
			return err
		}
		// The next consolidation revisits the observation through its
		// remaining sources.
		if _, err := tx.ExecContext(ctx, `UPDATE facts SET consolidated_at = NULL WHERE bank_id = ?1 AND id IN (SELECT value FROM json_each(?2))`, bank, stringsJSON(left)); err != nil {
			return err
		}
		c.Reconsolidate++
	}
	if len(obs) > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE banks SET observations = (SELECT count(*) FROM observations WHERE bank_id = ?1 AND status = 'active') WHERE id = ?1`, bank); err != nil {
			return err
		}
	}
	// A dream worded from a forgotten fact goes whole.
	res, err := tx.ExecContext(ctx, `DELETE FROM dreams WHERE bank_id = ?1
		AND EXISTS (SELECT 1 FROM json_each(dreams.source_fact_ids) j WHERE j.value IN (SELECT value FROM json_each(?2)))`, bank, list)
	if err != nil {
		return fmt.Errorf("forget dreams: %w", err)
	}
	n, err := res.RowsAffected()
	c.Dreams += int(n)
	return err
}

// ForgetSelect implements memory.Forgetter.
func (s *Store) ForgetSelect(ctx context.Context, bankID string, sel memory.ForgetSelector) ([]string, error) {
	if err := memory.ValidateForgetSelector(sel); err != nil {
		return nil, err
	}
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	q := `SELECT id FROM facts WHERE bank_id = ?`
	args := []any{bankID}
	if sel.EntityID != "" {
		q += ` AND id IN (SELECT fact_id FROM entity_refs WHERE bank_id = ? AND entity_id = ?)`
		args = append(args, bankID, sel.EntityID)
	}
	if sel.DocumentID != "" {
		q += ` AND document_id = ?`
		args = append(args, sel.DocumentID)
	}
	if sel.Item != "" {
		q += ` AND document_id IN (SELECT id FROM documents WHERE bank_id = ? AND source = ? AND item_id = ?
			UNION SELECT document_id FROM item_versions WHERE bank_id = ? AND source = ? AND item_id = ?)`
		args = append(args, bankID, sel.Source, sel.Item, bankID, sel.Source, sel.Item)
	}
	if !sel.From.IsZero() {
		q += ` AND event_time >= ?`
		args = append(args, sel.From.UnixMicro())
	}
	if !sel.To.IsZero() {
		q += ` AND event_time < ?`
		args = append(args, sel.To.UnixMicro())
	}
	rows, err := s.rdb.QueryContext(ctx, q+` ORDER BY seq`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanStrings(rows)
}

// ForgetLog implements memory.Forgetter.
func (s *Store) ForgetLog(ctx context.Context, bankID string, limit int) ([]*memory.ForgetRecord, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, at, actor, selector, counts FROM forget_log WHERE bank_id = ? ORDER BY at DESC, id DESC LIMIT ?`, bankID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*memory.ForgetRecord
	for rows.Next() {
		r := &memory.ForgetRecord{BankID: bankID}
		var at int64
		var sel, counts string
		if err := rows.Scan(&r.ID, &at, &r.Actor, &sel, &counts); err != nil {
			return nil, err
		}
		r.At = fromMicro(at)
		if err := unmarshalJSON(sel, &r.Selector); err != nil {
			return nil, fmt.Errorf("forget record %s: %w", r.ID, err)
		}
		if err := unmarshalJSON(counts, &r.Counts); err != nil {
			return nil, fmt.Errorf("forget record %s: %w", r.ID, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// sortedKeys returns a set's or counter's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
