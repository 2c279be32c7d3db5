package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/mnemo-ai/mnemo/memory"
)

// Write implements memory.Store: one transaction under the bank's write
// lock.
func (s *Store) Write(ctx context.Context, w *memory.WriteBatch) (*memory.WriteResult, error) {
	var res *memory.WriteResult
	var after bankState
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var err error
		res, after, err = s.apply(ctx, tx, w)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.afterWrite(w.BankID, after)
	return res, nil
}

var _ memory.BulkWriter = (*Store)(nil)

// WriteMany implements memory.BulkWriter: one transaction for all the
// batches, each inside its own savepoint, so a failing batch is rolled
// back alone and the others share one commit.
func (s *Store) WriteMany(ctx context.Context, ws []*memory.WriteBatch) []memory.WriteOutcome {
	out := make([]memory.WriteOutcome, len(ws))
	after := map[string]bankState{}
	err := s.tx(ctx, func(tx pgx.Tx) error {
		for i, w := range ws {
			if err := ctx.Err(); err != nil {
				return err
			}
			sp, err := tx.Begin(ctx) // a savepoint
			if err != nil {
				return err
			}
			res, n, err := s.apply(ctx, sp, w)
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
			after[w.BankID] = n
		}
		return nil
	})
	if err != nil {
		for i := range out {
			out[i] = memory.WriteOutcome{Err: err}
		}
		return out
	}
	for bank, st := range after {
		s.afterWrite(bank, st)
	}
	return out
}

// bankState is what a write left of a bank, for afterWrite.
type bankState struct {
	facts   int64 // fact_count
	indexed bool  // it has its HNSW index
}

// apply writes one batch inside tx.
func (s *Store) apply(ctx context.Context, tx pgx.Tx, w *memory.WriteBatch) (*memory.WriteResult, bankState, error) {
	var none bankState
	if w == nil || w.BankID == "" {
		return nil, none, memory.Errorf(memory.EINVALID, "write: a bank id is required")
	}
	bank := w.BankID
	if err := lockBank(ctx, tx, bank); err != nil {
		return nil, none, err
	}
	var dim int
	var nextSeq int64
	err := tx.QueryRow(ctx, `SELECT dimension, next_seq FROM banks WHERE id = $1`, bank).Scan(&dim, &nextSeq)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, none, unknownBank(bank)
	}
	if err != nil {
		return nil, none, err
	}
	for _, f := range w.Facts {
		if len(f.Embedding) == 0 {
			continue
		}
		if dim == 0 {
			dim = len(f.Embedding)
		}
		if len(f.Embedding) != dim {
			return nil, none, memory.Errorf(memory.EINVALID, "fact %s: embedding has dimension %d, bank %q holds dimension %d", f.ID, len(f.Embedding), bank, dim)
		}
	}
	res := &memory.WriteResult{}
	var delta counts
	var after bankState
	if d := w.Document; d != nil {
		dup, err := writeDocument(ctx, tx, bank, d, res, &delta)
		if err != nil {
			return nil, none, err
		}
		if dup {
			return res, none, nil
		}
	}
	if err := writeChunks(ctx, tx, bank, w.Chunks); err != nil {
		return nil, none, err
	}
	if err := writeFacts(ctx, tx, bank, w.Facts, &nextSeq, &delta); err != nil {
		return nil, none, err
	}
	if err := writeGraph(ctx, tx, w); err != nil {
		return nil, none, err
	}
	if err := writeLifecycle(ctx, tx, w); err != nil {
		return nil, none, err
	}
	if wm := w.Watermark; wm != nil {
		at := wm.UpdatedAt
		if at.IsZero() {
			at = s.Now()
		}
		if _, err := tx.Exec(ctx, `INSERT INTO watermarks (bank_id, source, last_item, last_error, updated_at) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (bank_id, source) DO UPDATE SET last_item = excluded.last_item, last_error = excluded.last_error, updated_at = excluded.updated_at`,
			bank, wm.Source, wm.LastItem, wm.LastError, ts(at)); err != nil {
			return nil, none, fmt.Errorf("watermark: %w", err)
		}
	}
	if d := w.DrainSession; d != nil {
		if err := drainSession(ctx, tx, bank, d); err != nil { // queue.go
			return nil, none, err
		}
	}
	err = tx.QueryRow(ctx, `UPDATE banks SET next_seq = $2, version = version + 1,
			dimension = CASE WHEN dimension = 0 THEN $3 ELSE dimension END,
			fact_count = fact_count + $4, fact_words = fact_words + $5
		WHERE id = $1 RETURNING fact_count, hnsw_dim = dimension`, bank, nextSeq, dim, delta.facts, delta.words).Scan(&after.facts, &after.indexed)
	if err != nil {
		return nil, none, err
	}
	res.Facts = len(w.Facts)
	return res, after, nil
}

// counts is what a write adds to a bank's BM25 statistics.
type counts struct {
	facts, words int64
}

// writeDocument stores the batch's document. It reports dup when the same
// content was stored before (nothing more is to be written) and removes an
// older version of the item with all it produced.
func writeDocument(ctx context.Context, tx pgx.Tx, bank string, d *memory.Document, res *memory.WriteResult, delta *counts) (dup bool, err error) {
	if d.ID == "" || d.Source == "" || d.ItemID == "" {
		return false, memory.Errorf(memory.EINVALID, "document: id, source and item id are required")
	}
	var oldID, oldHash string
	err = tx.QueryRow(ctx, `SELECT id, content_hash FROM documents WHERE bank_id = $1 AND source = $2 AND item_id = $3`, bank, d.Source, d.ItemID).Scan(&oldID, &oldHash)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return false, err
	case oldHash == d.ContentHash:
		res.Duplicate = true
		res.DocumentID = oldID
		return true, nil
	default:
		if err := deleteDocument(ctx, tx, bank, oldID, delta); err != nil {
			return false, fmt.Errorf("replace document %s: %w", oldID, err)
		}
		res.Replaced = true
	}
	meta, err := json.Marshal(d.Metadata)
	if err != nil {
		return false, err
	}
	if d.Metadata == nil {
		meta = []byte("{}")
	}
	_, err = tx.Exec(ctx, `INSERT INTO documents (bank_id, id, source, item_id, content_hash, content, metadata, tags, occurred_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		bank, d.ID, d.Source, d.ItemID, d.ContentHash, d.Content, meta, strs(d.Tags), ts(d.OccurredAt), ts(d.CreatedAt))
	if isCode(err, "23505") {
		return false, memory.Errorf(memory.ECONFLICT, "document %s already exists", d.ID)
	}
	if err != nil {
		return false, fmt.Errorf("insert document: %w", err)
	}
	res.DocumentID = d.ID
	return false, nil
}

// deleteDocument removes a document, its chunks and its facts with their
// refs and links, and takes the facts out of the bank's statistics.
func deleteDocument(ctx context.Context, tx pgx.Tx, bank, docID string, delta *counts) error {
	const ofDoc = `(SELECT id FROM facts WHERE bank_id = $1 AND document_id = $2)`
	b := &pgx.Batch{}
	b.Queue(`DELETE FROM links WHERE bank_id = $1 AND from_id IN `+ofDoc, bank, docID)
	b.Queue(`DELETE FROM links WHERE bank_id = $1 AND to_id IN `+ofDoc, bank, docID)
	b.Queue(`DELETE FROM entity_refs WHERE bank_id = $1 AND fact_id IN `+ofDoc, bank, docID)
	b.Queue(`WITH d AS (DELETE FROM facts WHERE bank_id = $1 AND document_id = $2 RETURNING words)
		SELECT count(*), coalesce(sum(words), 0) FROM d`, bank, docID).QueryRow(func(r pgx.Row) error {
		var n, words int64
		if err := r.Scan(&n, &words); err != nil {
			return err
		}
		delta.facts -= n
		delta.words -= words
		return nil
	})
	b.Queue(`DELETE FROM chunks WHERE bank_id = $1 AND document_id = $2`, bank, docID)
	b.Queue(`DELETE FROM documents WHERE bank_id = $1 AND id = $2`, bank, docID)
	return tx.SendBatch(ctx, b).Close()
}

func writeChunks(ctx context.Context, tx pgx.Tx, bank string, chunks []*memory.Chunk) error {
	if len(chunks) == 0 {
		return nil
	}
	rows := make([][]any, len(chunks))
	for i, c := range chunks {
		rows[i] = []any{bank, c.ID, c.DocumentID, c.Index, c.Text}
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"chunks"}, []string{"bank_id", "id", "document_id", "idx", "text"}, pgx.CopyFromRows(rows))
	if isCode(err, "23505") || isCode(err, "23503") {
		return memory.Errorf(memory.EINVALID, "chunks: a duplicate id, or an unknown document")
	}
	if err != nil {
		return fmt.Errorf("insert chunks: %w", err)
	}
	return nil
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

// writeFacts copies facts in, assigning Seq, and adds them to delta.
func writeFacts(ctx context.Context, tx pgx.Tx, bank string, facts []*memory.Fact, nextSeq *int64, delta *counts) error {
	if len(facts) == 0 {
		return nil
	}
	rows := make([][]any, 0, len(facts))
	ids := make([]string, 0, len(facts))
	seen := make(map[string]bool, len(facts))
	for _, f := range facts {
		if f.ID == "" {
			return memory.Errorf(memory.EINVALID, "fact without id")
		}
		if seen[f.ID] {
			return memory.Errorf(memory.ECONFLICT, "fact %s appears twice in the batch", f.ID)
		}
		seen[f.ID] = true
		if f.Status == "" {
			f.Status = memory.StatusActive
		}
		if f.Kind == "" {
			f.Kind = memory.KindWorld
		}
		if f.Sensitivity == "" {
			f.Sensitivity = memory.SensitivityOpen
		}
		f.BankID = bank
		f.Seq = *nextSeq
		*nextSeq++
		rows = append(rows, factRow(bank, f))
		ids = append(ids, f.ID)
	}
	if err := copyFacts(ctx, tx, rows); err != nil {
		return err
	}
	var words int64
	if err := tx.QueryRow(ctx, `SELECT coalesce(sum(words), 0) FROM facts WHERE bank_id = $1 AND id = ANY($2)`, bank, ids).Scan(&words); err != nil {
		return err
	}
	delta.facts += int64(len(facts))
	delta.words += words
	return nil
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

// upsertEntitySQL adds to an entity (or creates it) and records its
// aliases: the canonical name ($14 marks it) only when the entity is new.
// Counts are added in SQL, so concurrent upserts lose nothing.
const upsertEntitySQL = `WITH up AS (
	INSERT INTO entities AS e (bank_id, id, name, type, first_seen, last_seen, mention_count, episode_count, salience, tier, contradicted, embedding)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9, $10, $11)
	ON CONFLICT (bank_id, id) DO UPDATE SET
		mention_count = e.mention_count + excluded.mention_count,
		episode_count = e.episode_count + excluded.episode_count,
		first_seen = LEAST(e.first_seen, excluded.first_seen),
		last_seen = GREATEST(e.last_seen, excluded.last_seen),
		contradicted = e.contradicted OR excluded.contradicted,
		embedding = COALESCE(e.embedding, excluded.embedding)
	RETURNING (xmax = 0) AS created
)
INSERT INTO entity_aliases (bank_id, norm, entity_id, alias)
SELECT $1, a.norm, $2, a.alias FROM up, unnest($12::text[], $13::text[], $14::bool[]) AS a(norm, alias, canon)
WHERE up.created OR NOT a.canon
ON CONFLICT DO NOTHING`

// queueEntity queues the upsert of one entity.
func queueEntity(b *pgx.Batch, bank string, u memory.EntityUpsert) error {
	e := u.Entity
	if e.ID == "" || e.Name == "" {
		return memory.Errorf(memory.EINVALID, "entity without id or name")
	}
	if e.Type == "" {
		e.Type = memory.EntityThing
	}
	tier := e.Tier
	if tier == "" {
		tier = memory.TierEpisodic
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
		string(tier), e.Contradicted, vec, norms, aliases, canon)
	return nil
}

// requireFacts fails with EINVALID (what: "entity ref to", "link from")
// unless every id is a fact of the bank.
func requireFacts(ctx context.Context, tx pgx.Tx, bank string, ids []string, what string) error {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	rows, err := tx.Query(ctx, `SELECT id FROM facts WHERE bank_id = $1 AND id = ANY($2)`, bank, ids)
	if err != nil {
		return err
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
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
}

// writeGraph writes entities, refs, co-occurrences, links and relations.
func writeGraph(ctx context.Context, tx pgx.Tx, w *memory.WriteBatch) error {
	bank := w.BankID
	if len(w.Refs) > 0 {
		ids := make([]string, len(w.Refs))
		for i, r := range w.Refs {
			ids[i] = r.FactID
		}
		if err := requireFacts(ctx, tx, bank, ids, "entity ref to"); err != nil {
			return err
		}
	}
	if len(w.Links) > 0 {
		ids := make([]string, len(w.Links))
		for i, l := range w.Links {
			ids[i] = l.FromID
		}
		if err := requireFacts(ctx, tx, bank, ids, "link from"); err != nil {
			return err
		}
	}
	b := &pgx.Batch{}
	for _, u := range w.Entities {
		if err := queueEntity(b, bank, u); err != nil {
			return err
		}
	}
	if len(w.Refs) > 0 {
		facts, ents := make([]string, len(w.Refs)), make([]string, len(w.Refs))
		for i, r := range w.Refs {
			facts[i], ents[i] = r.FactID, r.EntityID
		}
		b.Queue(`INSERT INTO entity_refs (bank_id, fact_id, entity_id, seq)
			SELECT $1, r.fact_id, r.entity_id, f.seq FROM unnest($2::text[], $3::text[]) AS r(fact_id, entity_id)
			JOIN facts f ON f.bank_id = $1 AND f.id = r.fact_id
			ON CONFLICT DO NOTHING`, bank, facts, ents)
	}
	if len(w.Cooccurrences) > 0 {
		type pair struct{ a, b string }
		sum := map[pair]int{}
		for _, c := range w.Cooccurrences {
			p := pair{c.EntityA, c.EntityB}
			if p.b < p.a {
				p.a, p.b = p.b, p.a
			}
			sum[p] += c.Count
		}
		pairs := make([]pair, 0, len(sum))
		for p := range sum {
			pairs = append(pairs, p)
		}
		// A fixed order: concurrent upserts of the same pairs lock rows in
		// the same order.
		slices.SortFunc(pairs, func(x, y pair) int {
			if x.a != y.a {
				return cmpStr(x.a, y.a)
			}
			return cmpStr(x.b, y.b)
		})
		as, bs, ns := make([]string, len(pairs)), make([]string, len(pairs)), make([]int32, len(pairs))
		for i, p := range pairs {
			as[i], bs[i], ns[i] = p.a, p.b, int32(sum[p])
		}
		b.Queue(`INSERT INTO cooccurrences AS c (bank_id, entity_a, entity_b, count)
			SELECT $1, a, b, n FROM unnest($2::text[], $3::text[], $4::int[]) AS x(a, b, n)
			ON CONFLICT (bank_id, entity_a, entity_b) DO UPDATE SET count = c.count + excluded.count`, bank, as, bs, ns)
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
	if b.Len() == 0 {
		return nil
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("write graph: %w", err)
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

// writeLifecycle applies contradictions, reinforcements and supersessions
// to existing rows.
func writeLifecycle(ctx context.Context, tx pgx.Tx, w *memory.WriteBatch) error {
	bank := w.BankID
	if len(w.Contradicted) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE entities SET contradicted = true WHERE bank_id = $1 AND id = ANY($2)`, bank, w.Contradicted); err != nil {
			return fmt.Errorf("contradicted entities: %w", err)
		}
	}
	if len(w.Reinforce) > 0 {
		rows, err := tx.Query(ctx, `WITH r AS (SELECT id, count(*) AS n FROM unnest($2::text[]) AS id GROUP BY id)
			UPDATE facts f SET reinforcement_count = f.reinforcement_count + r.n FROM r
			WHERE f.bank_id = $1 AND f.id = r.id RETURNING f.id`, bank, w.Reinforce)
		if err != nil {
			return err
		}
		found, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("reinforce: %w", err)
		}
		for _, id := range w.Reinforce {
			if !slices.Contains(found, id) {
				return memory.Errorf(memory.ENOTFOUND, "reinforce: unknown fact %s", id)
			}
		}
	}
	for _, sp := range w.Supersede {
		tag, err := tx.Exec(ctx, `UPDATE facts SET status = 'superseded', superseded_by = $3, valid_to = $4, expired_at = $5
			WHERE bank_id = $1 AND id = $2`, bank, sp.FactID, sp.SupersededBy, ts(sp.ValidTo), ts(sp.ExpiredAt))
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return memory.Errorf(memory.ENOTFOUND, "supersede: unknown fact %s", sp.FactID)
		}
	}
	return nil
}
