package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mnemo-ai/mnemo/memory"
)

// Export and import of a whole bank (memory.Exporter, memory.Importer):
// mnemo export / mnemo import move banks between stores with these.

var (
	_ memory.Exporter = (*Store)(nil)
	_ memory.Importer = (*Store)(nil)
)

// Export implements memory.Exporter from one read transaction.
func (s *Store) Export(ctx context.Context, bankID string, fn func(*memory.ExportRecord) error) error {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	b, err := scanBank(tx.QueryRowContext(ctx, `SELECT id, name, settings, embedder, dimension, created_at FROM banks WHERE id = ?`, bankID))
	if errors.Is(err, sql.ErrNoRows) {
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
	each := func(what, q string, scan func(r *sql.Rows) (*memory.ExportRecord, error), args ...any) error {
		rows, err := tx.QueryContext(ctx, q, args...)
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
	// Documents, each followed by its chunks.
	var docs []*memory.Document
	err = each("documents", `SELECT id, source, item_id, content_hash, content, metadata, tags, occurred_at, created_at FROM documents WHERE bank_id = ? ORDER BY id`,
		func(r *sql.Rows) (*memory.ExportRecord, error) {
			d := &memory.Document{BankID: bankID}
			var meta, tags string
			var occurred, created sql.NullInt64
			if err := r.Scan(&d.ID, &d.Source, &d.ItemID, &d.ContentHash, &d.Content, &meta, &tags, &occurred, &created); err != nil {
				return nil, err
			}
			if err := unmarshalJSON(meta, &d.Metadata); err != nil {
				return nil, err
			}
			if err := unmarshalJSON(tags, &d.Tags); err != nil {
				return nil, err
			}
			d.OccurredAt, d.CreatedAt = fromNullMicro(occurred), fromNullMicro(created)
			docs = append(docs, d)
			return nil, nil
		}, bankID)
	if err != nil {
		return err
	}
	for _, d := range docs {
		if err := fn(&memory.ExportRecord{Kind: memory.RecordDocument, Document: memory.ExportedDocument(d)}); err != nil {
			return err
		}
		err := each("chunks", `SELECT id, document_id, idx, text FROM chunks WHERE bank_id = ? AND document_id = ? ORDER BY idx`, func(r *sql.Rows) (*memory.ExportRecord, error) {
			c := &memory.Chunk{BankID: bankID}
			err := r.Scan(&c.ID, &c.DocumentID, &c.Index, &c.Text)
			return &memory.ExportRecord{Kind: memory.RecordChunk, Chunk: memory.ExportedChunk(c)}, err
		}, bankID, d.ID)
		if err != nil {
			return err
		}
	}
	err = each("facts", `SELECT embedding, `+factColumns+` FROM facts WHERE bank_id = ? ORDER BY seq`, func(r *sql.Rows) (*memory.ExportRecord, error) {
		var blob []byte
		f, err := scanFact(bankID, r, &blob)
		if err != nil {
			return nil, err
		}
		if len(blob) > 0 {
			f.Embedding = decodeVector(make([]float32, 0, len(blob)/4), blob)
		}
		return &memory.ExportRecord{Kind: memory.RecordFact, Fact: memory.ExportedFact(f)}, nil
	}, bankID)
	if err != nil {
		return err
	}
	err = each("entities", `SELECT id, name, type, first_seen, last_seen, mention_count, episode_count, salience, tier, contradicted, embedding,
			(SELECT json_group_array(alias) FROM (SELECT alias FROM entity_aliases a WHERE a.bank_id = e.bank_id AND a.entity_id = e.id AND a.alias != e.name ORDER BY alias))
		FROM entities e WHERE bank_id = ? ORDER BY id`, func(r *sql.Rows) (*memory.ExportRecord, error) {
		e := &memory.Entity{BankID: bankID}
		var typ, tier, aliases string
		var first, last sql.NullInt64
		var blob []byte
		if err := r.Scan(&e.ID, &e.Name, &typ, &first, &last, &e.MentionCount, &e.EpisodeCount, &e.Salience, &tier, &e.Contradicted, &blob, &aliases); err != nil {
			return nil, err
		}
		e.Type, e.Tier, e.FirstSeen, e.LastSeen = memory.EntityType(typ), memory.Tier(tier), fromNullMicro(first), fromNullMicro(last)
		if err := unmarshalJSON(aliases, &e.Aliases); err != nil {
			return nil, err
		}
		var vec []float32
		if len(blob) > 0 {
			vec = decodeVector(make([]float32, 0, len(blob)/4), blob)
		}
		return &memory.ExportRecord{Kind: memory.RecordEntity, Entity: memory.ExportedEntity(e, vec)}, nil
	}, bankID)
	if err != nil {
		return err
	}
	err = each("refs", `SELECT fact_id, entity_id, seq FROM entity_refs WHERE bank_id = ? ORDER BY fact_id, entity_id`, func(r *sql.Rows) (*memory.ExportRecord, error) {
		var x memory.ExportRef
		err := r.Scan(&x.FactID, &x.EntityID, &x.Seq)
		return &memory.ExportRecord{Kind: memory.RecordRef, Ref: &x}, err
	}, bankID)
	if err != nil {
		return err
	}
	err = each("co-occurrences", `SELECT entity_a, entity_b, count FROM cooccurrences WHERE bank_id = ? ORDER BY entity_a, entity_b`, func(r *sql.Rows) (*memory.ExportRecord, error) {
		var c memory.ExportCooccurrence
		err := r.Scan(&c.EntityA, &c.EntityB, &c.Count)
		return &memory.ExportRecord{Kind: memory.RecordCooccurrence, Cooccurrence: &c}, err
	}, bankID)
	if err != nil {
		return err
	}
	err = each("relations", `SELECT id, subject_id, predicate, object_id, confidence, fact_ids, valid_from, valid_to, created_at, expired_at
		FROM relations WHERE bank_id = ? ORDER BY id`, func(r *sql.Rows) (*memory.ExportRecord, error) {
		rel := &memory.Relation{BankID: bankID}
		var facts string
		var vf, vt, exp sql.NullInt64
		var created int64
		if err := r.Scan(&rel.ID, &rel.SubjectID, &rel.Predicate, &rel.ObjectID, &rel.Confidence, &facts, &vf, &vt, &created, &exp); err != nil {
			return nil, err
		}
		if err := unmarshalJSON(facts, &rel.FactIDs); err != nil {
			return nil, err
		}
		rel.ValidFrom, rel.ValidTo, rel.CreatedAt, rel.ExpiredAt = fromNullMicro(vf), fromNullMicro(vt), fromMicro(created), fromNullMicro(exp)
		return &memory.ExportRecord{Kind: memory.RecordRelation, Relation: memory.ExportedRelation(rel)}, nil
	}, bankID)
	if err != nil {
		return err
	}
	err = each("links", `SELECT from_id, to_id, kind, entity_id, weight FROM links WHERE bank_id = ? ORDER BY from_id, kind, to_id, entity_id`, func(r *sql.Rows) (*memory.ExportRecord, error) {
		var l memory.ExportLink
		err := r.Scan(&l.FromID, &l.ToID, &l.Kind, &l.EntityID, &l.Weight)
		return &memory.ExportRecord{Kind: memory.RecordLink, Link: &l}, err
	}, bankID)
	if err != nil {
		return err
	}
	err = each("observations", `SELECT id, text, kind, source_fact_ids, evidence_count, history, status, access_count, last_accessed, created_at, updated_at, embedding
		FROM observations WHERE bank_id = ? ORDER BY id`, func(r *sql.Rows) (*memory.ExportRecord, error) {
		o := &memory.Observation{BankID: bankID}
		var kind, sources, history, status string
		var last sql.NullInt64
		var created, updated int64
		var blob []byte
		if err := r.Scan(&o.ID, &o.Text, &kind, &sources, &o.EvidenceCount, &history, &status, &o.AccessCount, &last, &created, &updated, &blob); err != nil {
			return nil, err
		}
		if err := unmarshalJSON(sources, &o.SourceFactIDs); err != nil {
			return nil, err
		}
		if err := unmarshalJSON(history, &o.History); err != nil {
			return nil, err
		}
		o.Kind, o.Status = memory.ObservationKind(kind), memory.Status(status)
		o.LastAccessed, o.CreatedAt, o.UpdatedAt = fromNullMicro(last), fromMicro(created), fromMicro(updated)
		if len(blob) > 0 {
			o.Embedding = decodeVector(make([]float32, 0, len(blob)/4), blob)
		}
		return &memory.ExportRecord{Kind: memory.RecordObservation, Observation: memory.ExportedObservation(o)}, nil
	}, bankID)
	if err != nil {
		return err
	}
	err = each("watermarks", `SELECT source, last_item, last_error, updated_at FROM watermarks WHERE bank_id = ? ORDER BY source`, func(r *sql.Rows) (*memory.ExportRecord, error) {
		var w memory.ExportWatermark
		var at int64
		err := r.Scan(&w.Source, &w.LastItem, &w.LastError, &at)
		w.UpdatedAt = fromMicro(at)
		return &memory.ExportRecord{Kind: memory.RecordWatermark, Watermark: &w}, err
	}, bankID)
	if err != nil {
		return err
	}
	// Sessions, each with its buffered messages: one ordered stream of
	// both, a session's row first (seq 0: message seqs start at 1).
	var sessions memory.SessionRows
	err = each("sessions", `SELECT session, next_seq, 0, '', '', '', '', NULL, 0 FROM sessions WHERE bank_id = ?1
		UNION ALL
		SELECT session, 0, seq, role, message_id, speaker, text, at, received FROM session_messages WHERE bank_id = ?1
		ORDER BY 1, 3`, func(r *sql.Rows) (*memory.ExportRecord, error) {
		var session string
		var next int64
		var m memory.ExportSessionMessage
		var at sql.NullInt64
		var received int64
		if err := r.Scan(&session, &next, &m.Seq, &m.Role, &m.MessageID, &m.Speaker, &m.Text, &at, &received); err != nil {
			return nil, err
		}
		m.At, m.Received = fromNullMicro(at), fromMicro(received)
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
	if err := exportRows(ctx, tx, fn, "blocks", `SELECT `+blockColumns+` FROM blocks WHERE bank_id = ? ORDER BY name`, bankID,
		func(r *sql.Rows) (*memory.ExportRecord, error) {
			b, err := scanBlock(bankID, r)
			if err != nil {
				return nil, err
			}
			return &memory.ExportRecord{Kind: memory.RecordBlock, Block: memory.ExportedBlock(b)}, nil
		}); err != nil {
		return err
	}
	if err := exportRows(ctx, tx, fn, "directives", `SELECT `+directiveColumns+` FROM directives WHERE bank_id = ? ORDER BY id`, bankID,
		func(r *sql.Rows) (*memory.ExportRecord, error) {
			d, err := scanDirective(bankID, r)
			if err != nil {
				return nil, err
			}
			return &memory.ExportRecord{Kind: memory.RecordDirective, Directive: memory.ExportedDirective(d)}, nil
		}); err != nil {
		return err
	}
	return exportRows(ctx, tx, fn, "standing questions", `SELECT `+standingColumns+` FROM standing_questions WHERE bank_id = ? ORDER BY id`, bankID,
		func(r *sql.Rows) (*memory.ExportRecord, error) {
			q, err := scanStanding(r, bankID)
			if err != nil {
				return nil, err
			}
			return &memory.ExportRecord{Kind: memory.RecordStanding, Standing: memory.ExportedStanding(q)}, nil
		})
}

// exportRows runs query (its one parameter the bank) inside Export's read
// transaction and hands fn each row as record reads it; what names the
// rows in errors.
func exportRows(ctx context.Context, tx *sql.Tx, fn func(*memory.ExportRecord) error, what, query, bank string,
	record func(*sql.Rows) (*memory.ExportRecord, error)) error {
	rows, err := tx.QueryContext(ctx, query, bank)
	if err != nil {
		return fmt.Errorf("export %s: %w", what, err)
	}
	defer rows.Close()
	for rows.Next() {
		rec, err := record(rows)
		if err != nil {
			return fmt.Errorf("export %s: %w", what, err)
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Import implements memory.Importer in one write transaction. The bank's
// change counter moves, so every process's search index picks the facts
// up.
func (s *Store) Import(ctx context.Context, bankID string, recs []*memory.ExportRecord) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		var dim int
		var nextSeq int64
		err := tx.QueryRowContext(ctx, `SELECT dimension, next_seq FROM banks WHERE id = ?`, bankID).Scan(&dim, &nextSeq)
		if errors.Is(err, sql.ErrNoRows) {
			return memory.UnknownBank(bankID)
		}
		if err != nil {
			return err
		}
		// Facts go in runs, one multi-row insert each.
		var facts []*memory.Fact
		first := 0 // the record number of facts[0]
		flush := func() error {
			if len(facts) == 0 {
				return nil
			}
			_, err := insertFacts(ctx, tx, bankID, facts)
			if err != nil {
				return importError(err, bankID, fmt.Sprintf("records %d-%d (%s)", first, first+len(facts)-1, memory.RecordFact))
			}
			facts = facts[:0]
			return nil
		}
		for i, rec := range recs {
			if rec.Kind == memory.RecordFact && rec.Fact != nil {
				f, err := memory.ImportFact(bankID, rec.Fact, &dim)
				if err != nil {
					return err
				}
				if len(facts) == 0 {
					first = i + 1
				}
				facts = append(facts, f)
				nextSeq = max(nextSeq, f.Seq+1)
				continue
			}
			if err := flush(); err != nil {
				return err
			}
			if err := importRecord(ctx, tx, bankID, rec); err != nil {
				return importError(err, bankID, fmt.Sprintf("record %d (%s)", i+1, rec.Kind))
			}
		}
		if err := flush(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE banks SET next_seq = ?, dimension = ?, version = version + 1 WHERE id = ?`, nextSeq, dim, bankID)
		return err
	})
}

// importError names the records of an import that err is about: a broken
// constraint is ECONFLICT, an error of the store's own kept as it is.
func importError(err error, bank, what string) error {
	switch {
	case isConstraint(err):
		return memory.Errorf(memory.ECONFLICT, "import %s: already in bank %q, or its parent is missing: %v", what, bank, err)
	case memory.ErrorCode(err) != memory.EINTERNAL:
		return err
	}
	return fmt.Errorf("import %s: %w", what, err)
}

// importRecord stores one record of any kind but a fact.
func importRecord(ctx context.Context, tx *sql.Tx, bank string, rec *memory.ExportRecord) error {
	exec := func(q string, args ...any) error {
		_, err := tx.ExecContext(ctx, q, args...)
		return err
	}
	switch {
	case rec.Kind == memory.RecordDocument && rec.Document != nil:
		d := rec.Document
		meta, err := json.Marshal(d.Metadata)
		if err != nil {
			return err
		}
		if d.Metadata == nil {
			meta = []byte("{}")
		}
		return exec(`INSERT INTO documents (bank_id, id, source, item_id, content_hash, content, metadata, tags, occurred_at, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			bank, d.ID, d.Source, d.ItemID, d.ContentHash, d.Content, string(meta), stringsJSON(d.Tags), toMicro(d.OccurredAt), toMicro(d.CreatedAt))
	case rec.Kind == memory.RecordChunk && rec.Chunk != nil:
		c := rec.Chunk
		return exec(`INSERT INTO chunks (bank_id, id, document_id, idx, text) VALUES (?, ?, ?, ?, ?)`, bank, c.ID, c.DocumentID, c.Index, c.Text)
	case rec.Kind == memory.RecordEntity && rec.Entity != nil:
		e := rec.Entity
		var vec any
		if len(e.Embedding) > 0 {
			vec = encodeVector(e.Embedding)
		}
		if err := exec(`INSERT INTO entities (bank_id, id, name, type, first_seen, last_seen, mention_count, episode_count, salience, tier, contradicted, embedding)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			bank, e.ID, e.Name, string(e.Type), toMicro(e.FirstSeen), toMicro(e.LastSeen), e.MentionCount, e.EpisodeCount, e.Salience, string(e.Tier), e.Contradicted, vec); err != nil {
			return err
		}
		for _, a := range append([]string{e.Name}, e.Aliases...) {
			if norm := memory.NormalizeName(a); norm != "" {
				if err := exec(`INSERT OR IGNORE INTO entity_aliases (bank_id, norm, entity_id, alias) VALUES (?, ?, ?, ?)`, bank, norm, e.ID, a); err != nil {
					return err
				}
			}
		}
		return nil
	case rec.Kind == memory.RecordRef && rec.Ref != nil:
		r := rec.Ref
		return exec(`INSERT INTO entity_refs (bank_id, fact_id, entity_id, seq) VALUES (?, ?, ?, ?)`, bank, r.FactID, r.EntityID, r.Seq)
	case rec.Kind == memory.RecordCooccurrence && rec.Cooccurrence != nil:
		c := rec.Cooccurrence
		return exec(`INSERT INTO cooccurrences (bank_id, entity_a, entity_b, count) VALUES (?, ?, ?, ?)`, bank, c.EntityA, c.EntityB, c.Count)
	case rec.Kind == memory.RecordRelation && rec.Relation != nil:
		r := rec.Relation
		return exec(`INSERT INTO relations (bank_id, id, subject_id, predicate, object_id, confidence, fact_ids, valid_from, valid_to, created_at, expired_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			bank, r.ID, r.SubjectID, r.Predicate, r.ObjectID, r.Confidence, stringsJSON(r.FactIDs),
			toMicro(r.ValidFrom), toMicro(r.ValidTo), r.CreatedAt.UnixMicro(), toMicro(r.ExpiredAt))
	case rec.Kind == memory.RecordLink && rec.Link != nil:
		l := rec.Link
		return exec(`INSERT INTO links (bank_id, from_id, to_id, kind, entity_id, weight) VALUES (?, ?, ?, ?, ?, ?)`,
			bank, l.FromID, l.ToID, string(l.Kind), l.EntityID, l.Weight)
	case rec.Kind == memory.RecordObservation && rec.Observation != nil:
		o := rec.Observation.Observation(bank)
		if o.ID == "" || o.Text == "" {
			return memory.Errorf(memory.EINVALID, "import: an observation needs an id and a text")
		}
		// putObservations replaces; an import adds only.
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM observations WHERE bank_id = ? AND id = ?`, bank, o.ID).Scan(&one)
		if err == nil {
			return memory.Errorf(memory.ECONFLICT, "import: observation %s is already in bank %q", o.ID, bank)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		return putObservations(ctx, tx, bank, []*memory.Observation{o})
	case rec.Kind == memory.RecordWatermark && rec.Watermark != nil:
		w := rec.Watermark
		return exec(`INSERT INTO watermarks (bank_id, source, last_item, last_error, updated_at) VALUES (?, ?, ?, ?, ?)`,
			bank, w.Source, w.LastItem, w.LastError, w.UpdatedAt.UnixMicro())
	case rec.Kind == memory.RecordSession && rec.Session != nil:
		x := rec.Session
		if err := exec(`INSERT INTO sessions (bank_id, session, next_seq) VALUES (?, ?, ?)`, bank, x.Session, x.NextSeq); err != nil {
			return err
		}
		rows := make([][]any, 0, len(x.Messages))
		for _, m := range x.Messages {
			rows = append(rows, []any{bank, x.Session, m.Seq, string(m.Role), m.MessageID, m.Speaker, m.Text, toMicro(m.At), m.Received.UnixMicro()})
		}
		return bulkInsert(ctx, tx, `INSERT INTO session_messages (bank_id, session, seq, role, message_id, speaker, text, at, received)`, ``, rows)
	case rec.Kind == memory.RecordBlock && rec.Block != nil:
		return importBlock(ctx, tx, bank, rec.Block)
	case rec.Kind == memory.RecordDirective && rec.Directive != nil:
		return importDirective(ctx, tx, bank, rec.Directive)
	case rec.Kind == memory.RecordStanding && rec.Standing != nil:
		return importStanding(ctx, tx, bank, rec.Standing)
	}
	return memory.Errorf(memory.EINVALID, "import: a record of kind %q cannot be imported (or is empty)", rec.Kind)
}
