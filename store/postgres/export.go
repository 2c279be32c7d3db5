package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/mnemo-ai/mnemo/memory"
)

// Export and import of a whole bank (memory.Exporter, memory.Importer):
// mnemo export / mnemo import move banks between stores with these.

var (
	_ memory.Exporter = (*Store)(nil)
	_ memory.Importer = (*Store)(nil)
)

// Export implements memory.Exporter from one repeatable-read snapshot.
func (s *Store) Export(ctx context.Context, bankID string, fn func(*memory.ExportRecord) error) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	b, err := scanBank(tx.QueryRow(ctx, `SELECT `+bankColumns+` FROM banks WHERE id = $1`, bankID))
	if errors.Is(err, pgx.ErrNoRows) {
		return memory.UnknownBank(bankID)
	}
	if err != nil {
		return err
	}
	if err := fn(&memory.ExportRecord{Kind: memory.RecordHeader, Version: memory.ExportVersion, Bank: memory.ExportedBank(b)}); err != nil {
		return err
	}
	// each runs q and hands fn the record scan makes of each row; a nil
	// record is one scan gathered for later.
	each := func(what, q string, scan func(r pgx.Rows) (*memory.ExportRecord, error), args ...any) error {
		rows, err := tx.Query(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("export %s: %w", what, err)
		}
		defer rows.Close()
		for rows.Next() {
			rec, err := scan(rows)
			if err != nil {
				return fmt.Errorf("export %s: %w", what, err)
			}
			if rec == nil {
				continue
			}
			if err := fn(rec); err != nil {
				return err
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("export %s: %w", what, err)
		}
		return nil
	}
	// Documents, each followed by its chunks: one ordered stream of both.
	err = each("documents", `SELECT d.id, d.source, d.item_id, d.content_hash, d.content, d.metadata, d.tags, d.occurred_at, d.created_at,
			NULL::text, NULL::integer, NULL::text, 0 AS part, 0 AS idx
		FROM documents d WHERE d.bank_id = $1
		UNION ALL
		SELECT c.document_id, '', '', '', '', '{}', '{}', NULL, NULL, c.id, c.idx, c.text, 1, c.idx
		FROM chunks c WHERE c.bank_id = $1
		ORDER BY 1, part, idx`, func(r pgx.Rows) (*memory.ExportRecord, error) {
		d := &memory.Document{BankID: bankID}
		var meta []byte
		var occurred, created *time.Time
		var chunkID, text *string
		var idx *int
		var part, ord int
		if err := r.Scan(&d.ID, &d.Source, &d.ItemID, &d.ContentHash, &d.Content, &meta, &d.Tags, &occurred, &created, &chunkID, &idx, &text, &part, &ord); err != nil {
			return nil, err
		}
		if part == 1 {
			return &memory.ExportRecord{Kind: memory.RecordChunk, Chunk: &memory.ExportChunk{ID: *chunkID, DocumentID: d.ID, Index: *idx, Text: *text}}, nil
		}
		if err := json.Unmarshal(meta, &d.Metadata); err != nil {
			return nil, err
		}
		d.OccurredAt, d.CreatedAt = tm(occurred), tm(created)
		return &memory.ExportRecord{Kind: memory.RecordDocument, Document: memory.ExportedDocument(d)}, nil
	}, bankID)
	if err != nil {
		return err
	}
	err = each("facts", `SELECT `+factColumns+`, f.embedding FROM facts f WHERE f.bank_id = $1 ORDER BY f.seq`, func(r pgx.Rows) (*memory.ExportRecord, error) {
		var vec *pgvector.Vector
		f, err := scanFact(bankID, r, &vec)
		if err != nil {
			return nil, err
		}
		if vec != nil {
			f.Embedding = vec.Slice()
		}
		return &memory.ExportRecord{Kind: memory.RecordFact, Fact: memory.ExportedFact(f)}, nil
	}, bankID)
	if err != nil {
		return err
	}
	err = each("entities", `SELECT `+entityColumns+`, e.embedding FROM entities e WHERE e.bank_id = $1 ORDER BY e.id`, func(r pgx.Rows) (*memory.ExportRecord, error) {
		var vec *pgvector.Vector
		e, err := scanEntity(bankID, r, &vec)
		if err != nil {
			return nil, err
		}
		var emb []float32
		if vec != nil {
			emb = vec.Slice()
		}
		return &memory.ExportRecord{Kind: memory.RecordEntity, Entity: memory.ExportedEntity(e, emb)}, nil
	}, bankID)
	if err != nil {
		return err
	}
	err = each("refs", `SELECT fact_id, entity_id, seq FROM entity_refs WHERE bank_id = $1 ORDER BY fact_id, entity_id`, func(r pgx.Rows) (*memory.ExportRecord, error) {
		var x memory.ExportRef
		err := r.Scan(&x.FactID, &x.EntityID, &x.Seq)
		return &memory.ExportRecord{Kind: memory.RecordRef, Ref: &x}, err
	}, bankID)
	if err != nil {
		return err
	}
	err = each("co-occurrences", `SELECT entity_a, entity_b, count FROM cooccurrences WHERE bank_id = $1 ORDER BY entity_a, entity_b`, func(r pgx.Rows) (*memory.ExportRecord, error) {
		var c memory.ExportCooccurrence
		err := r.Scan(&c.EntityA, &c.EntityB, &c.Count)
		return &memory.ExportRecord{Kind: memory.RecordCooccurrence, Cooccurrence: &c}, err
	}, bankID)
	if err != nil {
		return err
	}
	err = each("relations", `SELECT `+relationColumns+` FROM relations WHERE bank_id = $1 ORDER BY id`, func(r pgx.Rows) (*memory.ExportRecord, error) {
		rel, err := scanRelation(bankID, r)
		if err != nil {
			return nil, err
		}
		return &memory.ExportRecord{Kind: memory.RecordRelation, Relation: memory.ExportedRelation(rel)}, nil
	}, bankID)
	if err != nil {
		return err
	}
	err = each("links", `SELECT from_id, to_id, kind, entity_id, weight FROM links WHERE bank_id = $1 ORDER BY from_id, kind, to_id, entity_id`, func(r pgx.Rows) (*memory.ExportRecord, error) {
		var l memory.ExportLink
		var kind string
		err := r.Scan(&l.FromID, &l.ToID, &kind, &l.EntityID, &l.Weight)
		l.Kind = memory.LinkKind(kind)
		return &memory.ExportRecord{Kind: memory.RecordLink, Link: &l}, err
	}, bankID)
	if err != nil {
		return err
	}
	err = each("observations", `SELECT id, text, kind, source_fact_ids, evidence_count, history, status, access_count, last_accessed, created_at, updated_at, embedding
		FROM observations WHERE bank_id = $1 ORDER BY id`, func(r pgx.Rows) (*memory.ExportRecord, error) {
		o := &memory.Observation{BankID: bankID}
		var kind, status string
		var history []byte
		var last, created, updated *time.Time
		var vec *pgvector.Vector
		if err := r.Scan(&o.ID, &o.Text, &kind, &o.SourceFactIDs, &o.EvidenceCount, &history, &status, &o.AccessCount, &last, &created, &updated, &vec); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(history, &o.History); err != nil {
			return nil, err
		}
		o.Kind, o.Status = memory.ObservationKind(kind), memory.Status(status)
		o.LastAccessed, o.CreatedAt, o.UpdatedAt = tm(last), tm(created), tm(updated)
		if vec != nil {
			o.Embedding = vec.Slice()
		}
		return &memory.ExportRecord{Kind: memory.RecordObservation, Observation: memory.ExportedObservation(o)}, nil
	}, bankID)
	if err != nil {
		return err
	}
	err = each("watermarks", `SELECT source, last_item, last_error, updated_at FROM watermarks WHERE bank_id = $1 ORDER BY source`, func(r pgx.Rows) (*memory.ExportRecord, error) {
		var w memory.ExportWatermark
		var at time.Time
		err := r.Scan(&w.Source, &w.LastItem, &w.LastError, &at)
		w.UpdatedAt = at.UTC()
		return &memory.ExportRecord{Kind: memory.RecordWatermark, Watermark: &w}, err
	}, bankID)
	if err != nil {
		return err
	}
	// Sessions, each with its buffered messages: one ordered stream of
	// both, a session's row first (seq 0: message seqs start at 1).
	var sessions memory.SessionRows
	err = each("sessions", `SELECT session, next_seq, 0::bigint AS seq, '' AS role, '' AS message_id, '' AS speaker, '' AS text, NULL::timestamptz AS at, NULL::timestamptz AS received
		FROM sessions WHERE bank_id = $1
		UNION ALL
		SELECT session, 0, seq, role, message_id, speaker, text, at, received FROM session_messages WHERE bank_id = $1
		ORDER BY 1, 3`, func(r pgx.Rows) (*memory.ExportRecord, error) {
		var session string
		var next int64
		var m memory.ExportSessionMessage
		var role string
		var at, received *time.Time
		if err := r.Scan(&session, &next, &m.Seq, &role, &m.MessageID, &m.Speaker, &m.Text, &at, &received); err != nil {
			return nil, err
		}
		m.Role, m.At, m.Received = memory.Role(role), tm(at), tm(received)
		return sessions.Add(session, next, m)
	}, bankID)
	if err != nil {
		return err
	}
	if rec := sessions.Last(); rec != nil {
		if err := fn(rec); err != nil {
			return err
		}
	}
	// Blocks by name, directives by id, pinned questions by id.
	if err := exportRows(ctx, tx, fn, "blocks", `SELECT `+blockColumns+` FROM blocks WHERE bank_id = $1 ORDER BY name`, bankID,
		func(r pgx.CollectableRow) (*memory.ExportRecord, error) {
			b, err := scanBlock(bankID, r)
			if err != nil {
				return nil, err
			}
			return &memory.ExportRecord{Kind: memory.RecordBlock, Block: memory.ExportedBlock(b)}, nil
		}); err != nil {
		return err
	}
	if err := exportRows(ctx, tx, fn, "directives", `SELECT `+directiveColumns+` FROM directives WHERE bank_id = $1 ORDER BY id`, bankID,
		func(r pgx.CollectableRow) (*memory.ExportRecord, error) {
			d, err := scanDirective(bankID, r)
			if err != nil {
				return nil, err
			}
			return &memory.ExportRecord{Kind: memory.RecordDirective, Directive: memory.ExportedDirective(d)}, nil
		}); err != nil {
		return err
	}
	return exportRows(ctx, tx, fn, "standing questions", `SELECT `+standingColumns+` FROM standing_questions WHERE bank_id = $1 ORDER BY id`, bankID,
		func(r pgx.CollectableRow) (*memory.ExportRecord, error) {
			q, err := scanStanding(r, bankID)
			if err != nil {
				return nil, err
			}
			return &memory.ExportRecord{Kind: memory.RecordStanding, Standing: memory.ExportedStanding(q)}, nil
		})
}

// exportRows runs query (its one parameter the bank) inside Export's
// transaction, reads every row with record, then hands fn the records in
// order; what names the rows in errors.
func exportRows(ctx context.Context, tx pgx.Tx, fn func(*memory.ExportRecord) error, what, query, bank string,
	record func(pgx.CollectableRow) (*memory.ExportRecord, error)) error {
	rows, err := tx.Query(ctx, query, bank)
	if err != nil {
		return fmt.Errorf("export %s: %w", what, err)
	}
	recs, err := pgx.CollectRows(rows, record)
	if err != nil {
		return fmt.Errorf("export %s: %w", what, err)
	}
	for _, rec := range recs {
		if err := fn(rec); err != nil {
			return err
		}
	}
	return nil
}

// Import implements memory.Importer in one transaction under the bank's
// write lock: rows are copied in (COPY) type by type, and the bank's Seq
// counter, dimension and BM25 statistics follow.
func (s *Store) Import(ctx context.Context, bankID string, recs []*memory.ExportRecord) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockBank(ctx, tx, bankID); err != nil {
			return err
		}
		var dim int
		var nextSeq int64
		err := tx.QueryRow(ctx, `SELECT dimension, next_seq FROM banks WHERE id = $1`, bankID).Scan(&dim, &nextSeq)
		if errors.Is(err, pgx.ErrNoRows) {
			return memory.UnknownBank(bankID)
		}
		if err != nil {
			return err
		}
		rows := map[string][][]any{}
		var factIDs []string
		for _, rec := range recs {
			row, err := importRow(bankID, rec, &dim)
			if err != nil {
				return err
			}
			switch rec.Kind {
			case memory.RecordFact:
				nextSeq = max(nextSeq, rec.Fact.Seq+1)
				factIDs = append(factIDs, rec.Fact.ID)
			case memory.RecordEntity:
				e := rec.Entity
				for _, a := range append([]string{e.Name}, e.Aliases...) {
					if norm := memory.NormalizeName(a); norm != "" {
						rows["aliases"] = append(rows["aliases"], []any{bankID, norm, e.ID, a})
					}
				}
			case memory.RecordSession:
				x := rec.Session
				for _, m := range x.Messages {
					rows["session_messages"] = append(rows["session_messages"], []any{bankID, x.Session, m.Seq, string(m.Role), m.MessageID, m.Speaker, m.Text,
						ts(m.At), m.Received.UTC().Truncate(time.Microsecond)})
				}
			}
			rows[rec.Kind] = append(rows[rec.Kind], row)
		}
		for _, t := range importOrder {
			if len(rows[t.name]) == 0 {
				continue
			}
			var err error
			if t.name == "aliases" {
				// An alias may repeat under another spelling: keep the first.
				_, err = tx.Exec(ctx, `INSERT INTO entity_aliases (bank_id, norm, entity_id, alias)
					SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) ON CONFLICT DO NOTHING`, columns(rows[t.name])...)
			} else {
				_, err = tx.CopyFrom(ctx, pgx.Identifier{t.table}, t.columns, pgx.CopyFromRows(rows[t.name]))
			}
			if isCode(err, "23505") || isCode(err, "23503") {
				return memory.Errorf(memory.ECONFLICT, "import %s: already in bank %q, or its parent is missing: %v", t.name, bankID, err)
			}
			if err != nil {
				return fmt.Errorf("import %s: %w", t.name, err)
			}
		}
		var n, words int64
		if len(factIDs) > 0 {
			if _, err := tx.Exec(ctx, countLexemesSQL, bankID, factIDs); err != nil {
				return err
			}
			if err := tx.QueryRow(ctx, `SELECT count(*), coalesce(sum(words), 0) FROM facts WHERE bank_id = $1 AND id = ANY($2)`, bankID, factIDs).Scan(&n, &words); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `UPDATE banks SET next_seq = $2, dimension = $3, version = version + 1,
				fact_count = fact_count + $4, fact_words = fact_words + $5
			WHERE id = $1`, bankID, nextSeq, dim, n, words)
		return err
	})
}

// columns turns rows into one slice per column, for unnest.
func columns(rows [][]any) []any {
	out := make([]any, len(rows[0]))
	for j := range out {
		col := make([]string, len(rows))
		for i, r := range rows {
			col[i] = r[j].(string)
		}
		out[j] = col
	}
	return out
}

// importOrder is the order in which Import writes the record types, with
// the table and columns each is copied into.
var importOrder = []struct {
	name, table string
	columns     []string
}{
	{memory.RecordDocument, "documents", []string{"bank_id", "id", "source", "item_id", "content_hash", "content", "metadata", "tags", "occurred_at", "created_at"}},
	{memory.RecordChunk, "chunks", []string{"bank_id", "id", "document_id", "idx", "text"}},
	{memory.RecordFact, "facts", factCopyColumns},
	{memory.RecordEntity, "entities", []string{"bank_id", "id", "name", "type", "first_seen", "last_seen", "mention_count", "episode_count", "salience", "tier", "contradicted", "embedding"}},
	{"aliases", "entity_aliases", nil},
	{memory.RecordRef, "entity_refs", []string{"bank_id", "fact_id", "entity_id", "seq"}},
	{memory.RecordCooccurrence, "cooccurrences", []string{"bank_id", "entity_a", "entity_b", "count"}},
	{memory.RecordRelation, "relations", []string{"bank_id", "id", "subject_id", "predicate", "object_id", "confidence", "fact_ids", "valid_from", "valid_to", "created_at", "expired_at"}},
	{memory.RecordLink, "links", []string{"bank_id", "from_id", "to_id", "kind", "entity_id", "weight"}},
	{memory.RecordObservation, "observations", []string{"bank_id", "id", "text", "kind", "source_fact_ids", "evidence_count", "history", "embedding", "status",
		"access_count", "last_accessed", "created_at", "updated_at"}},
	{memory.RecordWatermark, "watermarks", []string{"bank_id", "source", "last_item", "last_error", "updated_at"}},
	{memory.RecordSession, "sessions", []string{"bank_id", "session", "next_seq"}},
	{"session_messages", "session_messages", []string{"bank_id", "session", "seq", "role", "message_id", "speaker", "text", "at", "received"}},
	{memory.RecordBlock, "blocks", blockCopyColumns},
	{memory.RecordDirective, "directives", []string{"bank_id", "id", "text", "scopes", "created_at", "updated_at"}},
	{memory.RecordStanding, "standing_questions", []string{"bank_id", "id", "question", "created_at", "answer", "memory_ids", "answered_at"}},
}

// importRow is a record as the values of its importOrder columns.
func importRow(bank string, rec *memory.ExportRecord, dim *int) ([]any, error) {
	switch {
	case rec.Kind == memory.RecordDocument && rec.Document != nil:
		d := rec.Document
		meta, err := json.Marshal(d.Metadata)
		if err != nil {
			return nil, err
		}
		if d.Metadata == nil {
			meta = []byte("{}")
		}
		return []any{bank, d.ID, d.Source, d.ItemID, d.ContentHash, d.Content, meta, strs(d.Tags), ts(d.OccurredAt), ts(d.CreatedAt)}, nil
	case rec.Kind == memory.RecordChunk && rec.Chunk != nil:
		c := rec.Chunk
		return []any{bank, c.ID, c.DocumentID, c.Index, c.Text}, nil
	case rec.Kind == memory.RecordFact && rec.Fact != nil:
		f, err := memory.ImportFact(bank, rec.Fact, dim)
		if err != nil {
			return nil, err
		}
		return factRow(bank, f), nil
	case rec.Kind == memory.RecordEntity && rec.Entity != nil:
		e := rec.Entity
		var vec any
		if len(e.Embedding) > 0 {
			vec = pgvector.NewVector(e.Embedding)
		}
		return []any{bank, e.ID, e.Name, string(e.Type), ts(e.FirstSeen), ts(e.LastSeen), e.MentionCount, e.EpisodeCount, e.Salience, string(e.Tier), e.Contradicted, vec}, nil
	case rec.Kind == memory.RecordRef && rec.Ref != nil:
		return []any{bank, rec.Ref.FactID, rec.Ref.EntityID, rec.Ref.Seq}, nil
	case rec.Kind == memory.RecordCooccurrence && rec.Cooccurrence != nil:
		c := rec.Cooccurrence
		return []any{bank, c.EntityA, c.EntityB, c.Count}, nil
	case rec.Kind == memory.RecordRelation && rec.Relation != nil:
		r := rec.Relation
		return []any{bank, r.ID, r.SubjectID, r.Predicate, r.ObjectID, r.Confidence, strs(r.FactIDs),
			ts(r.ValidFrom), ts(r.ValidTo), r.CreatedAt.UTC().Truncate(time.Microsecond), ts(r.ExpiredAt)}, nil
	case rec.Kind == memory.RecordLink && rec.Link != nil:
		l := rec.Link
		return []any{bank, l.FromID, l.ToID, string(l.Kind), l.EntityID, l.Weight}, nil
	case rec.Kind == memory.RecordObservation && rec.Observation != nil:
		o := rec.Observation
		if o.ID == "" || o.Text == "" {
			return nil, memory.Errorf(memory.EINVALID, "import: an observation needs an id and a text")
		}
		history := o.History
		if history == nil {
			history = []memory.ObservationChange{}
		}
		hj, err := json.Marshal(history)
		if err != nil {
			return nil, err
		}
		var vec any
		if len(o.Embedding) > 0 {
			vec = pgvector.NewVector(o.Embedding)
		}
		return []any{bank, o.ID, o.Text, string(o.Kind), strs(o.SourceFactIDs), o.EvidenceCount, hj, vec, string(o.Status),
			o.AccessCount, ts(o.LastAccessed), o.CreatedAt.UTC().Truncate(time.Microsecond), o.UpdatedAt.UTC().Truncate(time.Microsecond)}, nil
	case rec.Kind == memory.RecordWatermark && rec.Watermark != nil:
		w := rec.Watermark
		return []any{bank, w.Source, w.LastItem, w.LastError, w.UpdatedAt.UTC().Truncate(time.Microsecond)}, nil
	case rec.Kind == memory.RecordSession && rec.Session != nil:
		return []any{bank, rec.Session.Session, rec.Session.NextSeq}, nil
	case rec.Kind == memory.RecordBlock && rec.Block != nil:
		return importBlockRow(bank, rec.Block)
	case rec.Kind == memory.RecordDirective && rec.Directive != nil:
		d := rec.Directive.Directive(bank)
		if err := memory.ValidateDirective(d); err != nil {
			return nil, memory.Errorf(memory.EINVALID, "import: %s", memory.ErrorMessage(err))
		}
		return []any{bank, d.ID, d.Text, scopesParam(d.Scopes), ts(d.CreatedAt), ts(d.UpdatedAt)}, nil
	case rec.Kind == memory.RecordStanding && rec.Standing != nil:
		x := rec.Standing
		if err := memory.ValidateExportStanding(x); err != nil {
			return nil, memory.Errorf(memory.EINVALID, "import: %s", memory.ErrorMessage(err))
		}
		return []any{bank, x.ID, x.Question, ts(x.CreatedAt), x.Answer, strs(x.MemoryIDs), ts(x.AnsweredAt)}, nil
	}
	return nil, memory.Errorf(memory.EINVALID, "import: a record of kind %q cannot be imported (or is empty)", rec.Kind)
}
