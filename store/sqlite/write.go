package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/sqlite/internal/mirror"
)

// Write implements memory.Store.
func (s *Store) Write(ctx context.Context, w *memory.WriteBatch) (*memory.WriteResult, error) {
	if w != nil {
		defer s.mirror.Begin(w.BankID)()
	}
	var a applied
	err := s.write(ctx, func(tx *sql.Tx) error {
		ctx := withBulkStatements(ctx, tx, false, s.bulk)
		var err error
		if a, err = s.apply(ctx, tx, w); err != nil || a.res.Duplicate {
			return err
		}
		var g graphTotals
		g.add(w)
		return g.write(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return a.finish(s, w), nil
}

var _ memory.BulkWriter = (*Store)(nil)

// WriteMany implements memory.BulkWriter: one transaction for all the
// batches, each inside its own savepoint, so a failing batch is rolled back
// alone and the others share one commit.
func (s *Store) WriteMany(ctx context.Context, ws []*memory.WriteBatch) []memory.WriteOutcome {
	out := make([]memory.WriteOutcome, len(ws))
	done := make([]applied, len(ws))
	began := map[string]bool{}
	for _, w := range ws {
		if w != nil && !began[w.BankID] {
			began[w.BankID] = true
			defer s.mirror.Begin(w.BankID)()
		}
	}
	var fresh []string // statements first prepared in the transaction
	err := s.write(ctx, func(tx *sql.Tx) error {
		ctx := withBulkStatements(ctx, tx, true, s.bulk)
		defer func() { fresh = bulkCache(ctx).fresh }()
		var g graphTotals
		for i, w := range ws {
			if err := ctx.Err(); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `SAVEPOINT batch`); err != nil {
				return err
			}
			a, err := s.apply(ctx, tx, w)
			if err != nil {
				out[i].Err = err
				if _, err := tx.ExecContext(ctx, `ROLLBACK TO batch`); err != nil {
					return err
				}
			} else {
				done[i] = a
				if !a.res.Duplicate {
					g.add(w)
				}
			}
			if _, err := tx.ExecContext(ctx, `RELEASE batch`); err != nil {
				return err
			}
		}
		return g.write(ctx, tx)
	})
	for i, w := range ws {
		switch {
		case err != nil:
			out[i] = memory.WriteOutcome{Err: err}
		case out[i].Err == nil:
			out[i].Result = done[i].finish(s, w)
		}
	}
	if err == nil {
		s.keepBulk(ctx, fresh) // after the mirror has the batches: searches wait for that
	}
	if err == nil && bulkText(ws) >= shrinkAfterText {
		// Every page is clean after the commit. Most of what a bulk write
		// of long text brought into the writer's page cache is the text's
		// overflow pages (documents, chunks, facts), never read again by
		// the writer: kept, they took the cache's whole 64 MiB on a 5.5 MB
		// import, and the next group reads the few index pages it needs
		// from the OS's cache. A failure costs memory, not correctness.
		_, _ = s.wdb.ExecContext(ctx, `PRAGMA shrink_memory`)
		s.checkpointBehind()
	}
	return out
}

// checkpointBehind starts a passive WAL checkpoint on a reader
// connection, unless one is running: it copies what the commits so far
// put in the WAL into the database file while the writer goes on. A
// bulk import's WAL otherwise grows to the size of everything it wrote
// (wal_autocheckpoint is 40 MiB), and the checkpoint that copies it all
// runs at Close, alone, at the end of the import. A passive checkpoint
// never waits for the writer nor holds it up; what it leaves, Close or
// an automatic checkpoint copies. A failure leaves the WAL as it was.
func (s *Store) checkpointBehind() {
	if !s.checkpointing.CompareAndSwap(false, true) {
		return
	}
	s.mu.Lock()
	select {
	case <-s.closing:
		s.mu.Unlock()
		s.checkpointing.Store(false)
		return
	default:
	}
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		defer s.checkpointing.Store(false)
		_, _ = s.rdb.Exec(`PRAGMA wal_checkpoint(PASSIVE)`)
	}()
}

// shrinkAfterText is how much text a WriteMany writes before it releases
// the writer's page cache.
const shrinkAfterText = 512 << 10

// bulkText is the text the batches of ws write: facts and chunks.
func bulkText(ws []*memory.WriteBatch) int {
	n := 0
	for _, w := range ws {
		if w == nil {
			continue
		}
		for _, f := range w.Facts {
			n += len(f.Text)
		}
		for _, c := range w.Chunks {
			n += len(c.Text)
		}
	}
	return n
}

// applied is what apply did, for finish to report and index after commit.
type applied struct {
	res     memory.WriteResult
	change  mirror.Change
	version int64 // the bank's version after the batch
}

// finish reports a committed batch and brings the bank's index up to date.
func (a *applied) finish(s *Store, w *memory.WriteBatch) *memory.WriteResult {
	res := a.res
	if res.Duplicate {
		return &res
	}
	res.Facts = len(w.Facts)
	if s.mirror.Holds(w.BankID) {
		a.change.Count() // outside the index's lock
	}
	s.mirror.Apply(w.BankID, a.version, &a.change)
	return &res
}

// apply writes one batch inside tx.
func (s *Store) apply(ctx context.Context, tx *sql.Tx, w *memory.WriteBatch) (a applied, err error) {
	if w == nil || w.BankID == "" {
		return a, memory.Errorf(memory.EINVALID, "write: a bank id is required")
	}
	var dim int
	var nextSeq int64
	err = tx.QueryRowContext(ctx, `SELECT dimension, next_seq, version FROM banks WHERE id = ?`, w.BankID).Scan(&dim, &nextSeq, &a.version)
	if errors.Is(err, sql.ErrNoRows) {
		return a, memory.UnknownBank(w.BankID)
	}
	if err != nil {
		return a, err
	}
	// The first embedding sets the dimension of a bank that has none.
	if fit, err := memory.FitDimension(w.BankID, dim, w.Facts); err != nil {
		return a, err
	} else if fit != dim {
		if _, err := tx.ExecContext(ctx, `UPDATE banks SET dimension = ? WHERE id = ?`, fit, w.BankID); err != nil {
			return a, err
		}
	}
	if d := w.Document; d != nil && w.Continue {
		if err := continueDocument(ctx, tx, w.BankID, d, &a.res); err != nil { // segment.go
			return a, err
		}
	} else if d != nil {
		dup, err := s.writeDocument(ctx, tx, w.BankID, d, &a.res, &a.change)
		if err != nil || dup {
			return a, err
		}
	}
	if err := s.writeChunks(ctx, tx, w.BankID, w.Chunks); err != nil {
		return a, err
	}
	if err := s.writeFacts(ctx, tx, w.BankID, w.Facts, &nextSeq, &a.change); err != nil {
		return a, err
	}
	if err := writeGraph(ctx, tx, w); err != nil {
		return a, err
	}
	if err := s.writeLifecycle(ctx, tx, w, &a.change); err != nil {
		return a, err
	}
	if wm := w.Watermark; wm != nil {
		at := wm.UpdatedAt
		if at.IsZero() {
			at = s.Now()
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO watermarks (bank_id, source, last_item, last_error, updated_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (bank_id, source) DO UPDATE SET last_item = excluded.last_item, last_error = excluded.last_error, updated_at = excluded.updated_at`,
			w.BankID, wm.Source, wm.LastItem, wm.LastError, at.UnixMicro()); err != nil {
			return a, fmt.Errorf("watermark: %w", err)
		}
	}
	if d := w.DrainSession; d != nil {
		if err := drainSession(ctx, tx, w.BankID, d); err != nil { // queue.go
			return a, err
		}
	}
	a.version++
	_, err = tx.ExecContext(ctx, `UPDATE banks SET next_seq = ?, version = ? WHERE id = ?`, nextSeq, a.version, w.BankID)
	return a, err
}

// writeDocument stores the batch's document. It reports dup when the same
// content was stored before (nothing more is to be written) and
// supersedes an older version of the item (supersedeDocument), or
// removes it when the new version reuses its document id.
func (s *Store) writeDocument(ctx context.Context, tx *sql.Tx, bank string, d *memory.Document, res *memory.WriteResult, change *mirror.Change) (dup bool, err error) {
	if err := memory.ValidateDocument(d); err != nil {
		return false, err
	}
	var oldID, oldHash string
	err = tx.QueryRowContext(ctx, `SELECT id, content_hash FROM documents WHERE bank_id = ? AND source = ? AND item_id = ?`, bank, d.Source, d.ItemID).Scan(&oldID, &oldHash)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return false, err
	case oldHash == d.ContentHash:
		res.Duplicate = true
		res.DocumentID = oldID
		return true, nil
	case oldID == d.ID:
		// The new version takes the old one's ids: the old rows go.
		removed, err := deleteDocument(ctx, tx, bank, oldID)
		if err != nil {
			return false, fmt.Errorf("replace document %s: %w", oldID, err)
		}
		change.Remove(removed...)
		res.Replaced = true
	default:
		if err := s.supersedeDocument(ctx, tx, bank, oldID, d, change); err != nil {
			return false, fmt.Errorf("replace document %s: %w", oldID, err)
		}
		// An earlier version with this content (A, then B, then A again)
		// left facts under d's id: the new ones take their ids.
		removed, err := deleteDocument(ctx, tx, bank, d.ID)
		if err != nil {
			return false, fmt.Errorf("replace document %s: %w", d.ID, err)
		}
		change.Remove(removed...)
		res.Replaced = true
	}
	meta, err := marshalJSON(d.Metadata)
	if err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO documents (bank_id, id, source, item_id, content_hash, content, metadata, tags, occurred_at, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		bank, d.ID, d.Source, d.ItemID, d.ContentHash, d.Content, meta, stringsJSON(d.Tags), toMicro(d.OccurredAt), toMicro(d.CreatedAt)); err != nil {
		if isConstraint(err) {
			return false, memory.Errorf(memory.ECONFLICT, "document %s already exists", d.ID)
		}
		return false, fmt.Errorf("insert document: %w", err)
	}
	res.DocumentID = d.ID
	return false, nil
}

// supersedeDocument retires the stored version oldID of d's item: its
// document row and chunks make way for d, and its facts stay, their
// document id kept, the active ones superseded and expired at d's
// CreatedAt (the store's clock when zero). Nothing is erased: recall's
// history and as-of still find them, and forget removes them.
func (s *Store) supersedeDocument(ctx context.Context, tx *sql.Tx, bank, oldID string, d *memory.Document, change *mirror.Change) error {
	at := d.CreatedAt
	if at.IsZero() {
		at = s.Now()
	}
	rows, err := tx.QueryContext(ctx, `UPDATE facts SET status = 'superseded', expired_at = ?, chunk_id = ''
		WHERE bank_id = ? AND document_id = ? AND status = 'active' RETURNING pk`, toMicro(at), bank, oldID)
	if err != nil {
		return err
	}
	var pks []int64
	for rows.Next() {
		var pk int64
		if err := rows.Scan(&pk); err != nil {
			rows.Close()
			return err
		}
		pks = append(pks, pk)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, pk := range pks {
		change.SetStatus(pk, memory.StatusSuperseded, at)
	}
	// The version is remembered, so that forgetting the item reaches it.
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO item_versions (bank_id, source, item_id, document_id, superseded_at) VALUES (?, ?, ?, ?, ?)`,
		bank, d.Source, d.ItemID, oldID, toMicro(at)); err != nil {
		return err
	}
	// The facts the update left (already inactive) lose their chunks too.
	for _, q := range []string{
		`UPDATE facts SET chunk_id = '' WHERE bank_id = ?1 AND document_id = ?2 AND chunk_id <> ''`,
		`DELETE FROM chunks WHERE bank_id = ?1 AND document_id = ?2`,
		`DELETE FROM documents WHERE bank_id = ?1 AND id = ?2`,
	} {
		if _, err := tx.ExecContext(ctx, q, bank, oldID); err != nil {
			return err
		}
	}
	return nil
}

// deleteDocument removes a document, its chunks and its facts with their
// refs and links, and returns the removed facts' rowids.
func deleteDocument(ctx context.Context, tx *sql.Tx, bank, docID string) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT pk FROM facts WHERE bank_id = ? AND document_id = ?`, bank, docID)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	stmts := []string{
		// Two deletes, each by its index: one with OR walks the bank's
		// links.
		`DELETE FROM links WHERE bank_id = ?1 AND from_id IN (SELECT id FROM facts WHERE bank_id = ?1 AND document_id = ?2)`,
		`DELETE FROM links INDEXED BY links_to WHERE bank_id = ?1 AND to_id IN (SELECT id FROM facts WHERE bank_id = ?1 AND document_id = ?2)`,
		`DELETE FROM entity_refs WHERE bank_id = ?1 AND fact_id IN (SELECT id FROM facts WHERE bank_id = ?1 AND document_id = ?2)`,
		`DELETE FROM facts WHERE bank_id = ?1 AND document_id = ?2`,
		`DELETE FROM chunks WHERE bank_id = ?1 AND document_id = ?2`,
		`DELETE FROM documents WHERE bank_id = ?1 AND id = ?2`,
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q, bank, docID); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

const insertFactHead = `INSERT INTO facts (bank_id, id, seq, document_id, chunk_id, source_ref, text, kind, category,
	confidence, importance, sensitivity, speaker, evidence, tags, embedding,
	occurred_start, occurred_end, mentioned_at, valid_from, valid_to, created_at, expired_at, event_time,
	access_count, last_accessed, reinforcement_count, decay_score, status, superseded_by, consolidated_at, expires_at)`

// factRow is a fact as the values of insertFactHead's columns.
func factRow(bank string, f *memory.Fact) []any {
	return []any{bank, f.ID, f.Seq, f.DocumentID, f.ChunkID, f.SourceRef, f.Text, string(f.Kind), string(f.Category),
		f.Confidence, f.Importance, string(f.Sensitivity), f.Speaker, f.Evidence, stringsJSON(f.Tags), encodeVector(f.Embedding),
		toMicro(f.OccurredStart), toMicro(f.OccurredEnd), toMicro(f.MentionedAt), toMicro(f.ValidFrom), toMicro(f.ValidTo),
		toMicro(f.CreatedAt), toMicro(f.ExpiredAt), toMicro(f.EventTime()),
		f.AccessCount, toMicro(f.LastAccessed), f.ReinforcementCount, f.DecayScore, string(f.Status), f.SupersededBy,
		toMicro(f.ConsolidatedAt), toMicro(f.ExpiresAt)}
}

// writeFacts inserts facts, assigning Seq.
func (s *Store) writeFacts(ctx context.Context, tx *sql.Tx, bank string, facts []*memory.Fact, nextSeq *int64, change *mirror.Change) error {
	if len(facts) == 0 {
		return nil
	}
	next, err := memory.PrepareFacts(bank, facts, *nextSeq)
	if err != nil {
		return err
	}
	*nextSeq = next
	pks, err := insertFacts(ctx, tx, bank, facts)
	if err != nil {
		return err
	}
	for _, f := range facts {
		// Every fact enters the index: keyword search covers facts with no
		// embedding too.
		change.Add(pks[f.ID], f)
	}
	return nil
}

// insertFacts inserts facts as they are (Seq included) and returns each
// one's pk by id: the one insert of writeFacts and Import.
func insertFacts(ctx context.Context, tx *sql.Tx, bank string, facts []*memory.Fact) (map[string]int64, error) {
	rows := make([][]any, 0, len(facts))
	for _, f := range facts {
		rows = append(rows, factRow(bank, f))
	}
	// One multi-row insert per bulkRows facts; RETURNING gives each its pk.
	pks := make(map[string]int64, len(facts))
	err := bulkQuery(ctx, tx, insertFactHead, ` RETURNING pk, id`, rows, func(r *sql.Rows) error {
		var pk int64
		var id string
		if err := r.Scan(&pk, &id); err != nil {
			return err
		}
		pks[id] = pk
		return nil
	})
	if err != nil {
		if isConstraint(err) {
			return nil, memory.Errorf(memory.ECONFLICT, "a fact of the batch already exists")
		}
		return nil, fmt.Errorf("insert facts: %w", err)
	}
	return pks, nil
}

func (s *Store) writeChunks(ctx context.Context, tx *sql.Tx, bank string, chunks []*memory.Chunk) error {
	if len(chunks) == 0 {
		return nil
	}
	rows := make([][]any, len(chunks))
	for i, c := range chunks {
		rows[i] = []any{bank, c.ID, c.DocumentID, c.Index, c.Text}
	}
	if err := bulkInsert(ctx, tx, `INSERT INTO chunks (bank_id, id, document_id, idx, text)`, ``, rows); err != nil {
		if isConstraint(err) {
			return memory.Errorf(memory.EINVALID, "chunks: a duplicate id, or an unknown document")
		}
		return fmt.Errorf("insert chunks: %w", err)
	}
	return nil
}

// writeEntities upserts entities by memory.MergeEntity's rule, spelled in
// SQL: counts add up, first/last seen widen, contradicted sticks, the
// first embedding stays, aliases merge (the entity_aliases key keeps one
// spelling per normalised name, the first).
func writeEntities(ctx context.Context, tx *sql.Tx, bank string, ups []memory.EntityUpsert) error {
	if len(ups) > 0 {
		var ents, aliases [][]any
		for _, u := range ups {
			e, err := u.Stored()
			if err != nil {
				return err
			}
			var vec any
			if len(u.Embedding) > 0 {
				vec = encodeVector(u.Embedding)
			}
			ents = append(ents, []any{bank, e.ID, e.Name, string(e.Type), toMicro(e.FirstSeen), toMicro(e.LastSeen), u.Mentions, u.Episodes, 1.0, string(e.Tier), e.Contradicted, vec})
			for _, a := range e.Aliases {
				if norm := memory.NormalizeName(a); norm != "" {
					aliases = append(aliases, []any{bank, norm, e.ID, a})
				}
			}
		}
		// Entities new to the bank (most of an import's) are inserted
		// many rows per statement, with their canonical name as an alias;
		// the rest are upserted one by one.
		known, err := knownEntities(ctx, tx, bank, ents)
		if err != nil {
			return err
		}
		var fresh [][]any
		old := ents[:0:0]
		for _, row := range ents {
			if known[row[1].(string)] {
				old = append(old, row)
				continue
			}
			fresh = append(fresh, row)
			known[row[1].(string)] = true // a repeat of it upserts
			if name := row[2].(string); memory.NormalizeName(name) != "" {
				aliases = append(aliases, []any{bank, memory.NormalizeName(name), row[1], name})
			}
		}
		if err := bulkInsert(ctx, tx, `INSERT INTO entities (bank_id, id, name, type, first_seen, last_seen, mention_count, episode_count, salience, tier, contradicted, embedding)`, ``, fresh); err != nil {
			return fmt.Errorf("insert entities: %w", err)
		}
		ents = old
		// One prepared upsert per entity: measured faster than a multi-row
		// upsert, which SQLite evaluates row by row through a co-routine.
		ent, err := tx.PrepareContext(ctx, `INSERT INTO entities (bank_id, id, name, type, first_seen, last_seen, mention_count, episode_count, salience, tier, contradicted, embedding)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (bank_id, id) DO UPDATE SET
				mention_count = mention_count + excluded.mention_count,
				episode_count = episode_count + excluded.episode_count,
				first_seen = CASE WHEN first_seen IS NULL OR excluded.first_seen < first_seen THEN excluded.first_seen ELSE first_seen END,
				last_seen = CASE WHEN last_seen IS NULL OR excluded.last_seen > last_seen THEN excluded.last_seen ELSE last_seen END,
				contradicted = MAX(contradicted, excluded.contradicted),
				type = CASE WHEN type = 'thing' THEN excluded.type ELSE type END,
				embedding = COALESCE(embedding, excluded.embedding)
			RETURNING mention_count = ?7 AND episode_count = ?8`)
		if err != nil {
			return err
		}
		defer ent.Close()
		for _, row := range ents {
			// The canonical name is an alias from the entity's first upsert
			// on; later upserts skip the insert.
			var created bool
			if err := ent.QueryRowContext(ctx, row...).Scan(&created); err != nil {
				return fmt.Errorf("upsert entity %s: %w", row[1], err)
			}
			if name := row[2].(string); created && memory.NormalizeName(name) != "" {
				aliases = append(aliases, []any{bank, memory.NormalizeName(name), row[1], name})
			}
		}
		if err := bulkInsert(ctx, tx, `INSERT OR IGNORE INTO entity_aliases (bank_id, norm, entity_id, alias)`, ``, aliases); err != nil {
			return fmt.Errorf("entity aliases: %w", err)
		}
	}
	return nil
}

// knownEntities returns which of the entities of rows (writeEntities'
// rows: the id second) bank already holds.
func knownEntities(ctx context.Context, tx *sql.Tx, bank string, rows [][]any) (map[string]bool, error) {
	known := map[string]bool{}
	for len(rows) > 0 {
		n := min(len(rows), maxInList)
		ids := make([]string, n)
		for i, row := range rows[:n] {
			ids[i] = row[1].(string)
		}
		list, args := in(ids, bank)
		r, err := tx.QueryContext(ctx, `SELECT id FROM entities WHERE bank_id = ? AND id IN `+list, args...)
		if err != nil {
			return nil, err
		}
		for r.Next() {
			var id string
			if err := r.Scan(&id); err != nil {
				r.Close()
				return nil, err
			}
			known[id] = true
		}
		r.Close()
		if err := r.Err(); err != nil {
			return nil, err
		}
		rows = rows[n:]
	}
	return known, nil
}

// writeCooccurrences adds co-occurrence counts.
func writeCooccurrences(ctx context.Context, tx *sql.Tx, bank string, cs []memory.Cooccurrence) error {
	if len(cs) > 0 {
		type pair struct{ a, b string }
		counts := map[pair]int{}
		var order []pair
		for _, c := range cs {
			p := pair{c.EntityA, c.EntityB}
			if p.b < p.a {
				p.a, p.b = p.b, p.a
			}
			if _, ok := counts[p]; !ok {
				order = append(order, p)
			}
			counts[p] += c.Count
		}
		rows := make([][]any, len(order))
		for i, p := range order {
			rows[i] = []any{bank, p.a, p.b, counts[p]}
		}
		if err := bulkInsert(ctx, tx, `INSERT INTO cooccurrences (bank_id, entity_a, entity_b, count)`,
			` ON CONFLICT (bank_id, entity_a, entity_b) DO UPDATE SET count = count + excluded.count`, rows); err != nil {
			return fmt.Errorf("co-occurrences: %w", err)
		}
	}
	return nil
}

// graphTotals gathers the entity upserts and co-occurrences of the
// batches of one transaction, so each entity and pair is written once per
// commit instead of once per batch: they are counters, and the sum is the
// same. Only batches that succeeded are added.
type graphTotals struct {
	ents  map[[2]string]*memory.EntityUpsert // by (bank, entity id)
	order [][2]string
	cooc  map[string][]memory.Cooccurrence // by bank
	banks []string
}

func (g *graphTotals) add(w *memory.WriteBatch) {
	if g.ents == nil {
		g.ents, g.cooc = map[[2]string]*memory.EntityUpsert{}, map[string][]memory.Cooccurrence{}
	}
	for _, u := range w.Entities {
		k := [2]string{w.BankID, u.Entity.ID}
		t := g.ents[k]
		if t == nil {
			c := u
			c.Entity.Aliases = slices.Clone(u.Entity.Aliases)
			g.ents[k] = &c
			g.order = append(g.order, k)
			continue
		}
		t.Add(u)
	}
	if len(w.Cooccurrences) > 0 {
		if _, ok := g.cooc[w.BankID]; !ok {
			g.banks = append(g.banks, w.BankID)
		}
		g.cooc[w.BankID] = append(g.cooc[w.BankID], w.Cooccurrences...)
	}
}

// write writes the totals inside tx.
func (g *graphTotals) write(ctx context.Context, tx *sql.Tx) error {
	byBank := map[string][]memory.EntityUpsert{}
	var banks []string
	for _, k := range g.order {
		if _, ok := byBank[k[0]]; !ok {
			banks = append(banks, k[0])
		}
		byBank[k[0]] = append(byBank[k[0]], *g.ents[k])
	}
	for _, b := range banks {
		if err := writeEntities(ctx, tx, b, byBank[b]); err != nil {
			return err
		}
	}
	for _, b := range g.banks {
		if err := writeCooccurrences(ctx, tx, b, g.cooc[b]); err != nil {
			return err
		}
	}
	return nil
}

// writeGraph writes refs, links and relations (entities and
// co-occurrences go through graphTotals).
func writeGraph(ctx context.Context, tx *sql.Tx, w *memory.WriteBatch) error {
	bank := w.BankID
	for _, u := range w.Entities {
		if err := u.Validate(); err != nil {
			return err
		}
	}
	if len(w.Refs) > 0 {
		seqs := make(map[string]int64, len(w.Facts))
		for _, f := range w.Facts {
			seqs[f.ID] = f.Seq
		}
		// A fact of the batch lists its refs in rank order (memory.RankEntities);
		// a ref to a fact of an earlier batch has no known rank.
		ords := make(map[string]int64, len(w.Facts))
		rows := make([][]any, 0, len(w.Refs))
		for _, r := range w.Refs {
			seq, ok := seqs[r.FactID]
			var ord any
			if ok {
				ord = ords[r.FactID]
				ords[r.FactID]++
			} else {
				// A ref to a fact of an earlier batch.
				err := tx.QueryRowContext(ctx, `SELECT seq FROM facts WHERE bank_id = ? AND id = ?`, bank, r.FactID).Scan(&seq)
				if errors.Is(err, sql.ErrNoRows) {
					return memory.Errorf(memory.EINVALID, "entity ref to unknown fact %s", r.FactID)
				}
				if err != nil {
					return err
				}
				seqs[r.FactID] = seq
			}
			rows = append(rows, []any{bank, r.FactID, r.EntityID, seq, ord})
		}
		if err := bulkInsert(ctx, tx, `INSERT OR IGNORE INTO entity_refs (bank_id, fact_id, entity_id, seq, ord)`, ``, rows); err != nil {
			return fmt.Errorf("entity refs: %w", err)
		}
	}
	if len(w.Links) > 0 {
		inBatch := make(map[string]bool, len(w.Facts))
		for _, f := range w.Facts {
			inBatch[f.ID] = true
		}
		rows := make([][]any, len(w.Links))
		for i, l := range w.Links {
			if !inBatch[l.FromID] {
				// A link from a fact of an earlier batch.
				var one int
				err := tx.QueryRowContext(ctx, `SELECT 1 FROM facts WHERE bank_id = ? AND id = ?`, bank, l.FromID).Scan(&one)
				if errors.Is(err, sql.ErrNoRows) {
					return memory.Errorf(memory.EINVALID, "link from unknown fact %s", l.FromID)
				}
				if err != nil {
					return err
				}
				inBatch[l.FromID] = true
			}
			rows[i] = []any{bank, l.FromID, l.ToID, string(l.Kind), l.EntityID, l.Weight}
		}
		if err := bulkInsert(ctx, tx, `INSERT INTO links (bank_id, from_id, to_id, kind, entity_id, weight)`,
			` ON CONFLICT (bank_id, from_id, kind, to_id, entity_id) DO UPDATE SET weight = excluded.weight`, rows); err != nil {
			if isConstraint(err) {
				return memory.Errorf(memory.EINVALID, "a link starts at an unknown fact")
			}
			return fmt.Errorf("links: %w", err)
		}
	}
	for _, r := range w.Relations {
		if _, err := tx.ExecContext(ctx, `INSERT INTO relations (bank_id, id, subject_id, predicate, object_id, confidence, fact_ids, valid_from, valid_to, created_at, expired_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (bank_id, id) DO UPDATE SET confidence = excluded.confidence, fact_ids = excluded.fact_ids,
				valid_from = excluded.valid_from, valid_to = excluded.valid_to, expired_at = excluded.expired_at`,
			bank, r.ID, r.SubjectID, r.Predicate, r.ObjectID, r.Confidence, stringsJSON(r.FactIDs),
			toMicro(r.ValidFrom), toMicro(r.ValidTo), r.CreatedAt.UnixMicro(), toMicro(r.ExpiredAt)); err != nil {
			return fmt.Errorf("relation %s: %w", r.ID, err)
		}
	}
	// Each close takes the edge's row in relation_closes: its primary key
	// lets an edge be closed once, whoever closes it (migration 028).
	for _, c := range w.RelationCloses {
		if _, err := tx.ExecContext(ctx, `INSERT INTO relation_closes (bank_id, closed_id, by_id, closed_at) VALUES (?, ?, ?, ?)`,
			bank, c.ClosedID, c.ByID, c.At.UnixMicro()); err != nil {
			if isUnique(err) {
				return memory.RelationClosedMeanwhile(c.ClosedID)
			}
			if isConstraint(err) {
				return memory.Errorf(memory.EINVALID, "relation close %s by %s: no such relation", c.ClosedID, c.ByID)
			}
			return fmt.Errorf("relation close %s: %w", c.ClosedID, err)
		}
	}
	return nil
}

// writeLifecycle applies reinforcements and supersessions to existing facts.
func (s *Store) writeLifecycle(ctx context.Context, tx *sql.Tx, w *memory.WriteBatch, change *mirror.Change) error {
	if len(w.Contradicted) > 0 {
		// Entities new in this batch carry the flag in their upsert; this
		// marks the ones stored before.
		inIDs, args := in(w.Contradicted, w.BankID)
		if _, err := tx.ExecContext(ctx, `UPDATE entities SET contradicted = 1 WHERE bank_id = ? AND id IN `+inIDs, args...); err != nil {
			return fmt.Errorf("contradicted entities: %w", err)
		}
	}
	for _, id := range w.Reinforce {
		r, err := tx.ExecContext(ctx, `UPDATE facts SET reinforcement_count = reinforcement_count + 1 WHERE bank_id = ? AND id = ?`, w.BankID, id)
		if err != nil {
			return err
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return memory.Errorf(memory.ENOTFOUND, "reinforce: unknown fact %s", id)
		}
	}
	for _, sp := range w.Supersede {
		var rowid int64
		// A fact is superseded once, while active: a writer that read it
		// active loses to one that superseded it since (supersededOnce).
		err := tx.QueryRowContext(ctx, `UPDATE facts SET status = 'superseded', superseded_by = ?, valid_to = ?, expired_at = ?
			WHERE bank_id = ? AND id = ? AND status = 'active' RETURNING pk`,
			sp.SupersededBy, toMicro(sp.ValidTo), toMicro(sp.ExpiredAt), w.BankID, sp.FactID).Scan(&rowid)
		if errors.Is(err, sql.ErrNoRows) {
			return supersededOnce(ctx, tx, w.BankID, sp.FactID)
		}
		if err != nil {
			return err
		}
		change.SetStatus(rowid, memory.StatusSuperseded, sp.ExpiredAt)
	}
	return nil
}

// supersededOnce is the error of a supersession of fact id that changed
// no row: ENOTFOUND for an unknown fact, ErrFactSuperseded for one no
// longer active.
func supersededOnce(ctx context.Context, tx *sql.Tx, bank, id string) error {
	var status string
	err := tx.QueryRowContext(ctx, `SELECT status FROM facts WHERE bank_id = ? AND id = ?`, bank, id).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) {
		return memory.Errorf(memory.ENOTFOUND, "supersede: unknown fact %s", id)
	}
	if err != nil {
		return err
	}
	return memory.FactSupersededMeanwhile(id, memory.Status(status))
}

// bulkQuery is bulkInsert for statements that return rows (RETURNING):
// each returned row is handed to scan.
func bulkQuery(ctx context.Context, tx *sql.Tx, head, tail string, rows [][]any, scan func(*sql.Rows) error) error {
	for len(rows) > 0 {
		n := bulkCache(ctx).size(len(rows))
		q, args := bulkStatement(head, tail, rows[:n])
		var r *sql.Rows
		var err error
		if st := preparedBulk(ctx, tx, q, n); st != nil {
			r, err = st.QueryContext(ctx, args...)
		} else {
			r, err = tx.QueryContext(ctx, q, args...)
		}
		if err != nil {
			return err
		}
		for r.Next() {
			if err := scan(r); err != nil {
				r.Close()
				return err
			}
		}
		if err := r.Close(); err != nil {
			return err
		}
		if err := r.Err(); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// bulkRows bounds the rows of one multi-row INSERT (and so its bound
// parameters, well under SQLite's limit).
const bulkRows = 256

// bulkInsert runs head + " VALUES (…), (…), …" + tail over rows, in
// statements of at most bulkRows rows: one statement per many rows is far
// cheaper than one per row. Every row has the same width.
//
// Inside a Write (ctx from withBulkStatements), a statement of bulkRows
// rows is prepared once for the transaction. Inside a WriteMany, every
// statement is: parsing a statement of hundreds of rows costs about as
// much as running it, and an import runs the same few again and again. So
// that they are few, a WriteMany's rows go in statements of a power of two
// rows each (bulkStatements.size): 300 rows are statements of 256, 32, 8
// and 4. A single Write runs each once, so splitting would only add
// statements.
func bulkInsert(ctx context.Context, tx *sql.Tx, head, tail string, rows [][]any) error {
	for len(rows) > 0 {
		n := bulkCache(ctx).size(len(rows))
		q, args := bulkStatement(head, tail, rows[:n])
		var err error
		if st := preparedBulk(ctx, tx, q, n); st != nil {
			_, err = st.ExecContext(ctx, args...)
		} else {
			_, err = tx.ExecContext(ctx, q, args...)
		}
		if err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// bulkStatements keeps bulkInsert's statements prepared for one
// transaction: the full-size ones, or with many (a WriteMany's) all of
// them; they close with it. Those the store keeps across transactions
// (kept) are taken from there, and the ones a WriteMany prepared afresh
// are listed in fresh, for the store to keep after the commit.
type bulkStatements struct {
	tx    *sql.Tx
	many  bool
	stmts map[string]*sql.Stmt
	kept  *stmtCache
	fresh []string
}

// bulkCache returns the statement cache ctx carries, or nil.
func bulkCache(ctx context.Context) *bulkStatements {
	c, _ := ctx.Value(bulkStatementsKey{}).(*bulkStatements)
	return c
}

type bulkStatementsKey struct{}

// withBulkStatements returns ctx carrying a statement cache for tx; many
// is for a WriteMany's transaction, kept the writer's statements kept
// across transactions (nil: none).
func withBulkStatements(ctx context.Context, tx *sql.Tx, many bool, kept *stmtCache) context.Context {
	return context.WithValue(ctx, bulkStatementsKey{}, &bulkStatements{tx: tx, many: many, stmts: map[string]*sql.Stmt{}, kept: kept})
}

// size is how many of n rows (n > 0) the next multi-row statement takes:
// at most bulkRows, and in a WriteMany a power of two. A nil c is no
// WriteMany's.
func (c *bulkStatements) size(n int) int {
	switch {
	case n >= bulkRows:
		return bulkRows
	case c == nil || !c.many:
		return n
	}
	return 1 << (bits.Len(uint(n)) - 1)
}

// preparedBulk returns q, a statement of n rows, prepared in tx when ctx
// carries tx's cache and it keeps such statements, or nil: run q
// unprepared.
func preparedBulk(ctx context.Context, tx *sql.Tx, q string, n int) *sql.Stmt {
	c := bulkCache(ctx)
	if c == nil || c.tx != tx || !c.many && n != bulkRows {
		return nil
	}
	if st, ok := c.stmts[q]; ok {
		return st
	}
	if c.kept != nil {
		if kept := c.kept.cached(q); kept != nil {
			// Prepared on the writer's one connection already: the
			// transaction's copy shares it, unparsed.
			st := tx.StmtContext(ctx, kept)
			c.stmts[q] = st
			return st
		}
	}
	st, err := tx.PrepareContext(ctx, q)
	if err != nil {
		return nil // the plain Exec reports it
	}
	c.stmts[q] = st
	if c.many {
		c.fresh = append(c.fresh, q)
	}
	return st
}

// keepBulk prepares the statements qs on the writer, outside any
// transaction, and keeps them for the next transactions (preparedBulk).
// A transaction can only prepare statements that close with it, and an
// import's transactions run the same few dozen multi-row statements,
// each as costly to parse as to run: kept, each is parsed twice in all
// rather than once per transaction. A statement that fails to prepare,
// or one beyond the cache's bound, is not kept.
func (s *Store) keepBulk(ctx context.Context, qs []string) {
	for _, q := range qs {
		if st, err := s.bulk.stmt(ctx, q); err != nil || st == nil {
			return
		}
	}
}

// bulkStatement spells head + " VALUES (?,…),(?,…)…" + tail for rows and
// returns it with the rows' values as arguments.
func bulkStatement(head, tail string, rows [][]any) (string, []any) {
	var b strings.Builder
	b.WriteString(head)
	b.WriteString(" VALUES ")
	args := make([]any, 0, len(rows)*len(rows[0]))
	for i, r := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for j := range r {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('?')
		}
		b.WriteByte(')')
		args = append(args, r...)
	}
	b.WriteString(tail)
	return b.String(), args
}

// isUnique reports whether err is a primary key or UNIQUE violation (not
// another constraint: a foreign key, a CHECK, NOT NULL).
func isUnique(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "UNIQUE constraint failed") || strings.Contains(err.Error(), "PRIMARY KEY constraint failed"))
}
