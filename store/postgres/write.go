package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgvector/pgvector-go"

	"github.com/mnemo-ai/mnemo/memory"
)

// Write implements memory.Store: one transaction under the bank's write
// lock, in four round trips (lock and look-ups; facts copied in; the rest
// in one pipelined batch; the counters and commit), five when a document
// is replaced.
func (s *Store) Write(ctx context.Context, w *memory.WriteBatch) (*memory.WriteResult, error) {
	var res *memory.WriteResult
	var t *totals
	err := s.tx(ctx, func(tx pgx.Tx) error {
		t = newTotals()
		var err error
		if res, err = apply(ctx, tx, w, s.Now, t); err != nil {
			return err
		}
		return t.flush(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	s.noteFacts(t.added())
	return res, nil
}

var _ memory.BulkWriter = (*Store)(nil)

// WriteMany implements memory.BulkWriter: one transaction for all the
// batches, each inside its own savepoint, so a failing batch is rolled
// back alone and the others share one commit. The counters the batches
// add to (the bank's, entities', co-occurrences', document frequencies)
// are summed and written once, at the end: a row updated once per batch
// would grow a chain of versions inside the transaction that every later
// update walks.
func (s *Store) WriteMany(ctx context.Context, ws []*memory.WriteBatch) []memory.WriteOutcome {
	out := make([]memory.WriteOutcome, len(ws))
	var t *totals
	err := s.tx(ctx, func(tx pgx.Tx) error {
		t = newTotals()
		for i, w := range ws {
			if err := ctx.Err(); err != nil {
				return err
			}
			sp, err := tx.Begin(ctx) // a savepoint
			if err != nil {
				return err
			}
			res, err := apply(ctx, sp, w, s.Now, t)
			if err != nil {
				out[i].Err = err
				if err := sp.Rollback(ctx); err != nil {
					return err
				}
				continue
			}
			if err := sp.Commit(ctx); err != nil {
				return err
			}
			out[i].Result = res
		}
		return t.flush(ctx, tx)
	})
	if err != nil {
		for i := range out {
			out[i] = memory.WriteOutcome{Err: err}
		}
		return out
	}
	s.noteFacts(t.added())
	return out
}

// totals is what the batches of one transaction add to counters, written
// by flush before commit. Only batches that succeeded are added.
type totals struct {
	banks map[string]*bankTotals
	order []string
}

// bankTotals is one bank's part of totals.
type bankTotals struct {
	dim      int
	nextSeq  int64
	removed  counts   // facts replaced (stored before this transaction)
	added    []string // ids of facts added in this transaction
	addedSet map[string]bool
	ents     map[string]*memory.EntityUpsert
	entOrder []string
	cooc     map[[2]string]int
	contra   []string
}

func newTotals() *totals { return &totals{banks: map[string]*bankTotals{}} }

// add merges a succeeded batch's totals (p) into t.
func (t *totals) add(bank string, p *bankTotals) {
	cur := t.banks[bank]
	if cur == nil {
		cur = &bankTotals{addedSet: map[string]bool{}, ents: map[string]*memory.EntityUpsert{}, cooc: map[[2]string]int{}}
		t.banks[bank] = cur
		t.order = append(t.order, bank)
	}
	cur.dim, cur.nextSeq = p.dim, p.nextSeq
	cur.removed.facts += p.removed.facts
	cur.removed.words += p.removed.words
	for _, id := range p.added {
		if !cur.addedSet[id] {
			cur.addedSet[id] = true
			cur.added = append(cur.added, id)
		}
	}
	for _, id := range p.entOrder {
		u := p.ents[id]
		m := cur.ents[id]
		if m == nil {
			c := *u
			c.Entity.Aliases = slices.Clone(u.Entity.Aliases)
			cur.ents[id] = &c
			cur.entOrder = append(cur.entOrder, id)
			continue
		}
		m.Add(*u)
	}
	for k, n := range p.cooc {
		cur.cooc[k] += n
	}
	cur.contra = append(cur.contra, p.contra...)
}

// flush writes the totals in one pipelined batch: entities (then their
// contradictions), co-occurrences, document frequencies and the banks'
// counters.
func (t *totals) flush(ctx context.Context, tx pgx.Tx) error {
	b := &pgx.Batch{}
	for _, bank := range t.order {
		bt := t.banks[bank]
		for _, id := range bt.entOrder {
			if err := queueEntity(b, bank, *bt.ents[id]); err != nil {
				return err
			}
		}
		if len(bt.contra) > 0 {
			b.Queue(`UPDATE entities SET contradicted = true WHERE bank_id = $1 AND id = ANY($2)`, bank, bt.contra)
		}
		if len(bt.cooc) > 0 {
			pairs := make([][2]string, 0, len(bt.cooc))
			for p := range bt.cooc {
				pairs = append(pairs, p)
			}
			// A fixed order: concurrent upserts lock rows in the same order.
			slices.SortFunc(pairs, func(x, y [2]string) int {
				if c := cmpStr(x[0], y[0]); c != 0 {
					return c
				}
				return cmpStr(x[1], y[1])
			})
			as, bs, ns := make([]string, len(pairs)), make([]string, len(pairs)), make([]int32, len(pairs))
			for i, p := range pairs {
				as[i], bs[i], ns[i] = p[0], p[1], int32(bt.cooc[p])
			}
			b.Queue(`INSERT INTO cooccurrences AS c (bank_id, entity_a, entity_b, count)
				SELECT $1, a, b, n FROM unnest($2::text[], $3::text[], $4::int[]) AS x(a, b, n)
				ON CONFLICT (bank_id, entity_a, entity_b) DO UPDATE SET count = c.count + excluded.count`, bank, as, bs, ns)
		}
		ids := bt.added
		if ids == nil {
			ids = []string{}
		}
		if len(ids) > 0 {
			b.Queue(countLexemesSQL, bank, ids)
		}
		b.Queue(`UPDATE banks SET next_seq = $2, version = version + 1,
				dimension = CASE WHEN dimension = 0 THEN $3 ELSE dimension END,
				fact_count = fact_count + $4 + (SELECT count(*) FROM facts WHERE bank_id = $1 AND id = ANY($6)),
				fact_words = fact_words + $5 + (SELECT coalesce(sum(words), 0) FROM facts WHERE bank_id = $1 AND id = ANY($6))
			WHERE id = $1`, bank, bt.nextSeq, bt.dim, bt.removed.facts, bt.removed.words, ids)
	}
	if b.Len() == 0 {
		return nil
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("write counters: %w", err)
	}
	return nil
}

// onResult sets what a queued statement's result goes through: its error
// mapped by mapErr, then check (when set) on its command tag.
func onResult(q *pgx.QueuedQuery, mapErr func(error) error, check func(pgconn.CommandTag) error) {
	q.Fn = func(br pgx.BatchResults) error {
		ct, err := br.Exec()
		if err != nil {
			if mapErr != nil {
				return mapErr(err)
			}
			return err
		}
		if check != nil {
			return check(ct)
		}
		return nil
	}
}

// apply writes one batch inside tx.
func apply(ctx context.Context, tx pgx.Tx, w *memory.WriteBatch, now func() time.Time, t *totals) (*memory.WriteResult, error) {
	if w == nil || w.BankID == "" {
		return nil, memory.Errorf(memory.EINVALID, "write: a bank id is required")
	}
	bank := w.BankID
	d := w.Document
	if d != nil {
		if err := memory.ValidateDocument(d); err != nil {
			return nil, err
		}
	}
	// Round trip 1: the bank's write lock (held to commit: writers of one
	// bank queue here), its counters, the stored version of the document.
	var dim int
	var nextSeq int64
	var found, stored bool
	var oldID, oldHash string
	var pending []string // facts of the bank added earlier in this transaction
	b := &pgx.Batch{}
	if cur := t.banks[bank]; cur != nil {
		// Locked and read by an earlier batch of this transaction.
		dim, nextSeq, found, pending = cur.dim, cur.nextSeq, true, cur.added
	} else {
		b.Queue(`SELECT pg_advisory_xact_lock($1)`, bankLock(bank))
		b.Queue(`SELECT dimension, next_seq FROM banks WHERE id = $1`, bank).QueryRow(func(r pgx.Row) error {
			err := r.Scan(&dim, &nextSeq)
			found = err == nil
			if errors.Is(err, pgx.ErrNoRows) {
				return nil
			}
			return err
		})
	}
	if d != nil {
		b.Queue(`SELECT id, content_hash FROM documents WHERE bank_id = $1 AND source = $2 AND item_id = $3`, bank, d.Source, d.ItemID).QueryRow(func(r pgx.Row) error {
			err := r.Scan(&oldID, &oldHash)
			stored = err == nil
			if errors.Is(err, pgx.ErrNoRows) {
				return nil
			}
			return err
		})
	}
	if b.Len() > 0 {
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return nil, err
		}
	}
	if !found {
		return nil, memory.UnknownBank(bank)
	}
	dim, err := memory.FitDimension(bank, dim, w.Facts)
	if err != nil {
		return nil, err
	}
	res := &memory.WriteResult{}
	var removed counts
	if d != nil && w.Continue {
		// A later segment of a stored document (memory.WriteBatch.Continue).
		if !stored || oldID != d.ID {
			return nil, memory.DocumentGone(d)
		}
		stored = false // nothing of the document is replaced
	}
	if d != nil && stored {
		if oldHash == d.ContentHash {
			res.Duplicate = true
			res.DocumentID = oldID
			return res, nil
		}
		if oldID != d.ID {
			if err := supersedeDocument(ctx, tx, bank, oldID, d, now); err != nil {
				return nil, fmt.Errorf("replace document %s: %w", oldID, err)
			}
		}
		// The new version takes the old one's ids (its document id reused),
		// or those of an earlier version with this content (A, B, then A
		// again): the facts under its id go.
		if err := deleteDocument(ctx, tx, bank, d.ID, pending, &removed); err != nil {
			return nil, fmt.Errorf("replace document %s: %w", d.ID, err)
		}
		res.Replaced = true
	}
	// Round trip 2: the facts, copied in.
	ids, err := writeFacts(ctx, tx, bank, w.Facts, &nextSeq)
	if err != nil {
		return nil, err
	}
	// Round trip 3: everything else, pipelined. A failed check fails the
	// batch and the transaction is rolled back whole.
	b = &pgx.Batch{}
	switch {
	case d != nil && w.Continue:
		// The content is compared in the server: a segment's batch carries
		// none, the last one the whole text, which replaces the empty one.
		b.Queue(`UPDATE documents SET content_hash = $3, content = $4
			WHERE bank_id = $1 AND id = $2 AND (content_hash <> $3 OR content <> $4)`, bank, d.ID, d.ContentHash, d.Content)
		res.DocumentID = d.ID
	case d != nil:
		if err := queueDocument(b, bank, d); err != nil {
			return nil, err
		}
		res.DocumentID = d.ID
	}
	queueChunks(b, bank, w.Chunks)
	p := &bankTotals{dim: dim, nextSeq: nextSeq, removed: removed, added: ids,
		ents: map[string]*memory.EntityUpsert{}, cooc: map[[2]string]int{}, contra: w.Contradicted}
	if err := queueGraph(b, w, p); err != nil {
		return nil, err
	}
	queueLifecycle(b, w)
	if wm := w.Watermark; wm != nil {
		at := wm.UpdatedAt
		if at.IsZero() {
			at = now()
		}
		b.Queue(`INSERT INTO watermarks (bank_id, source, last_item, last_error, updated_at) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (bank_id, source) DO UPDATE SET last_item = excluded.last_item, last_error = excluded.last_error, updated_at = excluded.updated_at`,
			bank, wm.Source, wm.LastItem, wm.LastError, ts(at))
	}
	if dr := w.DrainSession; dr != nil {
		if err := dr.Validate(); err != nil {
			return nil, err
		}
		b.Queue(`DELETE FROM session_messages WHERE bank_id = $1 AND session = $2 AND seq <= $3`, bank, dr.Session, dr.UpTo)
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, err
	}
	t.add(bank, p)
	res.Facts = len(w.Facts)
	return res, nil
}

// countLexemesSQL adds new facts ($2) to the bank's BM25 statistics: the
// facts' postings (fact_lexemes), their document frequencies with the bounds of their term frequencies
// and lengths (lexemes), and their documents' lengths and term
// frequencies (doc_stats, doc_lexemes). One statement: the import
// (export.go) runs it too.
const countLexemesSQL = `WITH f AS (SELECT id, seq, document_id, words, tsv FROM facts WHERE bank_id = $1 AND id = ANY($2)),
	u AS (SELECT f.seq, f.document_id, f.words, x.lexeme, cardinality(x.positions) AS tf FROM f, unnest(f.tsv) x),
	ds AS (INSERT INTO doc_stats AS s (bank_id, document_id, words, first_seq)
		SELECT $1, document_id, sum(words), min(seq) FROM f WHERE document_id <> '' GROUP BY document_id ORDER BY document_id
		ON CONFLICT (bank_id, document_id) DO UPDATE SET words = s.words + excluded.words, first_seq = LEAST(s.first_seq, excluded.first_seq)),
	fl AS (INSERT INTO fact_lexemes (bank_id, lexeme, seq, tf, words) SELECT $1, lexeme, seq, tf, words FROM u),
	dl AS (INSERT INTO doc_lexemes AS d (bank_id, lexeme, document_id, tf)
		SELECT $1, lexeme, document_id, sum(tf) FROM u WHERE document_id <> '' GROUP BY lexeme, document_id ORDER BY lexeme, document_id
		ON CONFLICT (bank_id, lexeme, document_id) DO UPDATE SET tf = d.tf + excluded.tf)
	INSERT INTO lexemes AS l (bank_id, lexeme, df, max_tf, min_words)
	SELECT $1, lexeme, count(*), max(tf), min(words) FROM u GROUP BY lexeme ORDER BY lexeme
	ON CONFLICT (bank_id, lexeme) DO UPDATE SET df = l.df + excluded.df,
		max_tf = GREATEST(l.max_tf, excluded.max_tf), min_words = LEAST(l.min_words, excluded.min_words)`

// counts is what a write takes from a bank's BM25 statistics.
type counts struct {
	facts, words int64
}

// queueDocument queues the insert of the batch's document.
func queueDocument(b *pgx.Batch, bank string, d *memory.Document) error {
	meta, err := json.Marshal(d.Metadata)
	if err != nil {
		return err
	}
	if d.Metadata == nil {
		meta = []byte("{}")
	}
	onResult(b.Queue(`INSERT INTO documents (bank_id, id, source, item_id, content_hash, content, metadata, tags, occurred_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		bank, d.ID, d.Source, d.ItemID, d.ContentHash, d.Content, meta, strs(d.Tags), ts(d.OccurredAt), ts(d.CreatedAt)),
		func(err error) error {
			if isCode(err, "23505") {
				return memory.Errorf(memory.ECONFLICT, "document %s already exists", d.ID)
			}
			return fmt.Errorf("insert document: %w", err)
		}, nil)
	return nil
}

// deleteDocument removes a document, its chunks and its facts with their
// refs and links, and counts the facts removed that were stored before
// this transaction (pending: the ids added since, not counted yet).
func deleteDocument(ctx context.Context, tx pgx.Tx, bank, docID string, pending []string, removed *counts) error {
	if pending == nil {
		pending = []string{}
	}
	const ofDoc = `(SELECT id FROM facts WHERE bank_id = $1 AND document_id = $2)`
	b := &pgx.Batch{}
	b.Queue(`DELETE FROM links WHERE bank_id = $1 AND from_id IN `+ofDoc, bank, docID)
	b.Queue(`DELETE FROM links WHERE bank_id = $1 AND to_id IN `+ofDoc, bank, docID)
	b.Queue(`DELETE FROM entity_refs WHERE bank_id = $1 AND fact_id IN `+ofDoc, bank, docID)
	b.Queue(`UPDATE lexemes l SET df = l.df - d.n FROM (SELECT u.lexeme, count(*) AS n FROM facts f, unnest(f.tsv) u
		WHERE f.bank_id = $1 AND f.document_id = $2 AND NOT f.id = ANY($3) GROUP BY u.lexeme) d
		WHERE l.bank_id = $1 AND l.lexeme = d.lexeme`, bank, docID, pending)
	// The document's statistics go whole (every fact of it goes); those
	// of pending facts were not written yet (totals.flush writes them, for
	// the facts that still exist then).
	b.Queue(`DELETE FROM doc_lexemes WHERE bank_id = $1 AND document_id = $2 AND lexeme IN
		(SELECT u.lexeme FROM facts f, unnest(f.tsv) u WHERE f.bank_id = $1 AND f.document_id = $2)`, bank, docID)
	b.Queue(`DELETE FROM doc_stats WHERE bank_id = $1 AND document_id = $2`, bank, docID)
	b.Queue(`DELETE FROM fact_lexemes p USING (SELECT u.lexeme, f.seq FROM facts f, unnest(f.tsv) u
		WHERE f.bank_id = $1 AND f.document_id = $2) d
		WHERE p.bank_id = $1 AND p.lexeme = d.lexeme AND p.seq = d.seq`, bank, docID)
	b.Queue(`WITH d AS (DELETE FROM facts WHERE bank_id = $1 AND document_id = $2 RETURNING id, words)
		SELECT count(*), coalesce(sum(words), 0) FROM d WHERE NOT id = ANY($3)`, bank, docID, pending).QueryRow(func(r pgx.Row) error {
		var n, words int64
		if err := r.Scan(&n, &words); err != nil {
			return err
		}
		removed.facts -= n
		removed.words -= words
		return nil
	})
	b.Queue(`DELETE FROM chunks WHERE bank_id = $1 AND document_id = $2`, bank, docID)
	b.Queue(`DELETE FROM documents WHERE bank_id = $1 AND id = $2`, bank, docID)
	return tx.SendBatch(ctx, b).Close()
}

// supersedeDocument retires the stored version oldID of d's item: its
// document row and chunks make way for d, and its facts stay, their
// document id kept, the active ones superseded and expired at d's
// CreatedAt (the clock when zero). Their words stay in the statistics:
// the facts stay searchable by history and as-of reads.
func supersedeDocument(ctx context.Context, tx pgx.Tx, bank, oldID string, d *memory.Document, now func() time.Time) error {
	at := d.CreatedAt
	if at.IsZero() {
		at = now()
	}
	b := &pgx.Batch{}
	b.Queue(`UPDATE facts SET status = 'superseded', expired_at = $3 WHERE bank_id = $1 AND document_id = $2 AND status = 'active'`, bank, oldID, ts(at))
	b.Queue(`UPDATE facts SET chunk_id = '' WHERE bank_id = $1 AND document_id = $2 AND chunk_id <> ''`, bank, oldID)
	b.Queue(`DELETE FROM chunks WHERE bank_id = $1 AND document_id = $2`, bank, oldID)
	b.Queue(`DELETE FROM documents WHERE bank_id = $1 AND id = $2`, bank, oldID)
	// The version is remembered, so that forgetting the item reaches it.
	b.Queue(`INSERT INTO item_versions (bank_id, source, item_id, document_id, superseded_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT DO NOTHING`, bank, d.Source, d.ItemID, oldID, ts(at))
	return tx.SendBatch(ctx, b).Close()
}

// queueChunks queues the insert of chunks.
func queueChunks(b *pgx.Batch, bank string, chunks []*memory.Chunk) {
	if len(chunks) == 0 {
		return
	}
	ids, docs, idx, texts := make([]string, len(chunks)), make([]string, len(chunks)), make([]int32, len(chunks)), make([]string, len(chunks))
	for i, c := range chunks {
		ids[i], docs[i], idx[i], texts[i] = c.ID, c.DocumentID, int32(c.Index), c.Text
	}
	onResult(b.Queue(`INSERT INTO chunks (bank_id, id, document_id, idx, text)
		SELECT $1, id, doc, idx, text FROM unnest($2::text[], $3::text[], $4::int[], $5::text[]) AS c(id, doc, idx, text)`, bank, ids, docs, idx, texts),
		func(err error) error {
			if isCode(err, "23505") || isCode(err, "23503") {
				return memory.Errorf(memory.EINVALID, "chunks: a duplicate id, or an unknown document")
			}
			return fmt.Errorf("insert chunks: %w", err)
		}, nil)
}

// factCopyColumns are the columns writeFacts copies (tsv and words are
// generated).
var factCopyColumns = []string{"bank_id", "id", "seq", "document_id", "chunk_id", "source_ref", "text", "kind", "category",
	"confidence", "importance", "sensitivity", "speaker", "evidence", "tags", "embedding",
	"occurred_start", "occurred_end", "mentioned_at", "valid_from", "valid_to", "created_at", "expired_at", "event_time",
	"access_count", "last_accessed", "reinforcement_count", "decay_score", "status", "superseded_by", "consolidated_at", "expires_at"}

// factRow is a fact as the values of factCopyColumns.
func factRow(bank string, f *memory.Fact) []any {
	var vec any
	if len(f.Embedding) > 0 {
		vec = pgvector.NewVector(f.Embedding)
	}
	return []any{bank, f.ID, f.Seq, f.DocumentID, f.ChunkID, f.SourceRef, f.Text, string(f.Kind), string(f.Category),
		f.Confidence, f.Importance, string(f.Sensitivity), f.Speaker, f.Evidence, strs(f.Tags), vec,
		ts(f.OccurredStart), ts(f.OccurredEnd), ts(f.MentionedAt), ts(f.ValidFrom), ts(f.ValidTo),
		ts(f.CreatedAt), ts(f.ExpiredAt), ts(f.EventTime()),
		f.AccessCount, ts(f.LastAccessed), f.ReinforcementCount, f.DecayScore, string(f.Status), f.SupersededBy,
		ts(f.ConsolidatedAt), ts(f.ExpiresAt)}
}

// writeFacts copies facts in, assigning Seq, and returns their ids.
func writeFacts(ctx context.Context, tx pgx.Tx, bank string, facts []*memory.Fact, nextSeq *int64) ([]string, error) {
	if len(facts) == 0 {
		return []string{}, nil
	}
	next, err := memory.PrepareFacts(bank, facts, *nextSeq)
	if err != nil {
		return nil, err
	}
	*nextSeq = next
	rows := make([][]any, 0, len(facts))
	ids := make([]string, 0, len(facts))
	for _, f := range facts {
		rows = append(rows, factRow(bank, f))
		ids = append(ids, f.ID)
	}
	return ids, copyFacts(ctx, tx, rows)
}

func copyFacts(ctx context.Context, tx pgx.Tx, rows [][]any) error {
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"facts"}, factCopyColumns, pgx.CopyFromRows(rows))
	if isCode(err, "23505") {
		return memory.Errorf(memory.ECONFLICT, "a fact of the batch already exists")
	}
	if err != nil {
		return fmt.Errorf("insert facts: %w", err)
	}
	return nil
}

// upsertEntitySQL adds to an entity (or creates it) by
// memory.MergeEntity's rule, spelled in SQL, and records its aliases: the
// canonical name ($14 marks it, listed first) only when the entity is
// new. Counts are
// added in SQL, so concurrent upserts lose nothing without a read of the
// row (and the row lock a read-merge-write would hold to the commit).
const upsertEntitySQL = `WITH up AS (
	INSERT INTO entities AS e (bank_id, id, name, type, first_seen, last_seen, mention_count, episode_count, salience, tier, contradicted, embedding)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9, $10, $11)
	ON CONFLICT (bank_id, id) DO UPDATE SET
		mention_count = e.mention_count + excluded.mention_count,
		episode_count = e.episode_count + excluded.episode_count,
		first_seen = LEAST(e.first_seen, excluded.first_seen),
		last_seen = GREATEST(e.last_seen, excluded.last_seen),
		contradicted = e.contradicted OR excluded.contradicted,
		type = CASE WHEN e.type = 'thing' THEN excluded.type ELSE e.type END,
		embedding = COALESCE(e.embedding, excluded.embedding)
	RETURNING (xmax = 0) AS created
)
INSERT INTO entity_aliases (bank_id, norm, entity_id, alias)
SELECT $1, a.norm, $2, a.alias FROM up, unnest($12::text[], $13::text[], $14::bool[]) AS a(norm, alias, canon)
WHERE up.created OR NOT a.canon
ON CONFLICT DO NOTHING`

// queueEntity queues the upsert of one entity.
func queueEntity(b *pgx.Batch, bank string, u memory.EntityUpsert) error {
	e, err := u.Stored()
	if err != nil {
		return err
	}
	var vec any
	if len(u.Embedding) > 0 {
		vec = pgvector.NewVector(u.Embedding)
	}
	norms, aliases, canon := []string{}, []string{}, []bool{}
	if n := memory.NormalizeName(e.Name); n != "" {
		norms, aliases, canon = append(norms, n), append(aliases, e.Name), append(canon, true)
	}
	for _, a := range e.Aliases {
		if n := memory.NormalizeName(a); n != "" {
			norms, aliases, canon = append(norms, n), append(aliases, a), append(canon, false)
		}
	}
	b.Queue(upsertEntitySQL, bank, e.ID, e.Name, string(e.Type), ts(e.FirstSeen), ts(e.LastSeen), u.Mentions, u.Episodes,
		string(e.Tier), e.Contradicted, vec, norms, aliases, canon)
	return nil
}

// queueRequireFacts queues a check that fails with EINVALID (what:
// "entity ref to", "link from") unless every id is a fact of the bank.
func queueRequireFacts(b *pgx.Batch, bank string, ids []string, what string) {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	q := b.Queue(`SELECT coalesce(array_agg(id), '{}') FROM facts WHERE bank_id = $1 AND id = ANY($2)`, bank, ids)
	q.QueryRow(func(r pgx.Row) error {
		var found []string
		if err := r.Scan(&found); err != nil {
			return err
		}
		if len(found) == len(ids) {
			return nil
		}
		for _, id := range ids {
			if !slices.Contains(found, id) {
				return memory.Errorf(memory.EINVALID, "%s unknown fact %s", what, id)
			}
		}
		return nil
	})
}

// queueGraph queues the writes of entities, refs, co-occurrences, links
// and relations, after the checks that refs and links start at facts.
func queueGraph(b *pgx.Batch, w *memory.WriteBatch, p *bankTotals) error {
	bank := w.BankID
	if len(w.Refs) > 0 {
		ids := make([]string, len(w.Refs))
		for i, r := range w.Refs {
			ids[i] = r.FactID
		}
		queueRequireFacts(b, bank, ids, "entity ref to")
	}
	if len(w.Links) > 0 {
		ids := make([]string, len(w.Links))
		for i, l := range w.Links {
			ids[i] = l.FromID
		}
		queueRequireFacts(b, bank, ids, "link from")
	}
	// Entities and co-occurrences are counters: summed into p, written by
	// totals.flush.
	for _, u := range w.Entities {
		if err := u.Validate(); err != nil {
			return err
		}
		if m := p.ents[u.Entity.ID]; m != nil {
			m.Add(u)
			continue
		}
		c := u
		c.Entity.Aliases = slices.Clone(u.Entity.Aliases)
		p.ents[u.Entity.ID] = &c
		p.entOrder = append(p.entOrder, u.Entity.ID)
	}
	for _, c := range w.Cooccurrences {
		k := [2]string{c.EntityA, c.EntityB}
		if k[1] < k[0] {
			k[0], k[1] = k[1], k[0]
		}
		p.cooc[k] += c.Count
	}
	if len(w.Refs) > 0 {
		facts, ents := make([]string, len(w.Refs)), make([]string, len(w.Refs))
		// A fact of the batch lists its refs in rank order
		// (memory.RankEntities); a ref to a fact of an earlier batch has no
		// known rank (-1, stored as NULL).
		inBatch := make(map[string]int32, len(w.Facts))
		for _, f := range w.Facts {
			inBatch[f.ID] = 0
		}
		ords := make([]int32, len(w.Refs))
		for i, r := range w.Refs {
			facts[i], ents[i] = r.FactID, r.EntityID
			ords[i] = -1
			if n, ok := inBatch[r.FactID]; ok {
				ords[i] = n
				inBatch[r.FactID] = n + 1
			}
		}
		b.Queue(`INSERT INTO entity_refs (bank_id, fact_id, entity_id, seq, ord)
			SELECT $1, r.fact_id, r.entity_id, f.seq, NULLIF(r.ord, -1) FROM unnest($2::text[], $3::text[], $4::int[]) AS r(fact_id, entity_id, ord)
			JOIN facts f ON f.bank_id = $1 AND f.id = r.fact_id
			ON CONFLICT DO NOTHING`, bank, facts, ents, ords)
	}
	if len(w.Links) > 0 {
		// The last of a link given twice wins, as a second upsert would.
		type key struct{ from, kind, to, entity string }
		last := map[key]float64{}
		var order []key
		for _, l := range w.Links {
			k := key{l.FromID, string(l.Kind), l.ToID, l.EntityID}
			if _, ok := last[k]; !ok {
				order = append(order, k)
			}
			last[k] = l.Weight
		}
		from, kind, to, ent, weight := make([]string, len(order)), make([]string, len(order)), make([]string, len(order)), make([]string, len(order)), make([]float64, len(order))
		for i, k := range order {
			from[i], kind[i], to[i], ent[i], weight[i] = k.from, k.kind, k.to, k.entity, last[k]
		}
		b.Queue(`INSERT INTO links (bank_id, from_id, kind, to_id, entity_id, weight)
			SELECT $1, f, k, t, e, w FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::float8[]) AS x(f, k, t, e, w)
			ON CONFLICT (bank_id, from_id, kind, to_id, entity_id) DO UPDATE SET weight = excluded.weight`, bank, from, kind, to, ent, weight)
	}
	for _, r := range w.Relations {
		b.Queue(`INSERT INTO relations (bank_id, id, subject_id, predicate, object_id, confidence, fact_ids, valid_from, valid_to, created_at, expired_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			ON CONFLICT (bank_id, id) DO UPDATE SET confidence = excluded.confidence, fact_ids = excluded.fact_ids,
				valid_from = excluded.valid_from, valid_to = excluded.valid_to, expired_at = excluded.expired_at`,
			bank, r.ID, r.SubjectID, r.Predicate, r.ObjectID, r.Confidence, strs(r.FactIDs),
			ts(r.ValidFrom), ts(r.ValidTo), r.CreatedAt.UTC().Truncate(time.Microsecond), ts(r.ExpiredAt))
	}
	// Each close takes the edge's row in relation_closes: its primary key
	// lets an edge be closed once, whoever closes it (migration 028); a
	// concurrent writer's uncommitted close makes this insert wait for
	// its end.
	for _, c := range w.RelationCloses {
		onResult(b.Queue(`INSERT INTO relation_closes (bank_id, closed_id, by_id, closed_at) VALUES ($1, $2, $3, $4)`,
			bank, c.ClosedID, c.ByID, ts(c.At)), func(err error) error {
			switch {
			case isCode(err, "23505"):
				return memory.RelationClosedMeanwhile(c.ClosedID)
			case isCode(err, "23503"):
				return memory.Errorf(memory.EINVALID, "relation close %s by %s: no such relation", c.ClosedID, c.ByID)
			}
			return fmt.Errorf("relation close %s: %w", c.ClosedID, err)
		}, nil)
	}
	return nil
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// queueLifecycle queues contradictions, reinforcements and supersessions
// of existing rows, each checked: an unknown fact fails with ENOTFOUND.
func queueLifecycle(b *pgx.Batch, w *memory.WriteBatch) {
	bank := w.BankID
	if len(w.Reinforce) > 0 {
		b.Queue(`WITH r AS (SELECT id, count(*) AS n FROM unnest($2::text[]) AS id GROUP BY id),
				u AS (UPDATE facts f SET reinforcement_count = f.reinforcement_count + r.n FROM r
					WHERE f.bank_id = $1 AND f.id = r.id RETURNING f.id)
			SELECT coalesce(array_agg(id), '{}') FROM u`, bank, w.Reinforce).QueryRow(func(r pgx.Row) error {
			var found []string
			if err := r.Scan(&found); err != nil {
				return fmt.Errorf("reinforce: %w", err)
			}
			for _, id := range w.Reinforce {
				if !slices.Contains(found, id) {
					return memory.Errorf(memory.ENOTFOUND, "reinforce: unknown fact %s", id)
				}
			}
			return nil
		})
	}
	for _, sp := range w.Supersede {
		// A fact is superseded once, while active: the row lock makes a
		// second writer wait for the first and then find it superseded.
		// The outer select reads the status as it was before this update.
		b.Queue(`WITH u AS (UPDATE facts SET status = 'superseded', superseded_by = $3, valid_to = $4, expired_at = $5
				WHERE bank_id = $1 AND id = $2 AND status = 'active' RETURNING 1)
			SELECT (SELECT count(*) FROM u), (SELECT status FROM facts WHERE bank_id = $1 AND id = $2)`,
			bank, sp.FactID, sp.SupersededBy, ts(sp.ValidTo), ts(sp.ExpiredAt)).QueryRow(func(r pgx.Row) error {
			var n int
			var status *string
			if err := r.Scan(&n, &status); err != nil {
				return fmt.Errorf("supersede: %w", err)
			}
			switch {
			case n > 0:
				return nil
			case status == nil:
				return memory.Errorf(memory.ENOTFOUND, "supersede: unknown fact %s", sp.FactID)
			}
			return memory.FactSupersededMeanwhile(sp.FactID, memory.Status(*status))
		})
	}
}
