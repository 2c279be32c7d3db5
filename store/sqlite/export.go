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

// exportFactColumns are the columns of a fact as exported, embedding last.
const exportFactColumns = `id, seq, document_id, chunk_id, source_ref, text, kind, category, confidence, importance, sensitivity,
	speaker, evidence, tags, occurred_start, occurred_end, mentioned_at, valid_from, valid_to, created_at, expired_at,
	access_count, last_accessed, reinforcement_count, decay_score, status, superseded_by, consolidated_at, expires_at, embedding`

// Export implements memory.Exporter from one read transaction.
func (s *Store) Export(ctx context.Context, bankID string, fn func(*memory.ExportRecord) error) error {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	b, err := scanBank(tx.QueryRowContext(ctx, `SELECT id, name, settings, embedder, dimension, created_at FROM banks WHERE id = ?`, bankID))
	if errors.Is(err, sql.ErrNoRows) {
		return unknownBank(bankID)
	}
	if err != nil {
		return err
	}
	if err := fn(&memory.ExportRecord{Type: memory.RecordBank, Version: memory.ExportVersion, Bank: b}); err != nil {
		return err
	}
	each := func(q string, scan func(r *sql.Rows) (*memory.ExportRecord, error), args ...any) error {
		rows, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			rec, err := scan(rows)
			if err != nil {
				return err
			}
			if rec == nil {
				continue // gathered by scan itself
			}
			if err := fn(rec); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	// Documents, each followed by its chunks.
	var docs []*memory.Document
	err = each(`SELECT id, source, item_id, content_hash, content, metadata, tags, occurred_at, created_at FROM documents WHERE bank_id = ? ORDER BY id`,
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
			if len(d.Metadata) == 0 {
				d.Metadata = nil
			}
			if len(d.Tags) == 0 {
				d.Tags = nil
			}
			d.OccurredAt, d.CreatedAt = fromNullMicro(occurred), fromNullMicro(created)
			docs = append(docs, d)
			return nil, nil
		}, bankID)
	if err != nil {
		return fmt.Errorf("export documents: %w", err)
	}
	for _, d := range docs {
		if err := fn(&memory.ExportRecord{Type: memory.RecordDocument, Document: d}); err != nil {
			return err
		}
		err := each(`SELECT id, document_id, idx, text FROM chunks WHERE bank_id = ? AND document_id = ? ORDER BY idx`, func(r *sql.Rows) (*memory.ExportRecord, error) {
			c := &memory.Chunk{BankID: bankID}
			err := r.Scan(&c.ID, &c.DocumentID, &c.Index, &c.Text)
			return &memory.ExportRecord{Type: memory.RecordChunk, Chunk: c}, err
		}, bankID, d.ID)
		if err != nil {
			return fmt.Errorf("export chunks: %w", err)
		}
	}
	err = each(`SELECT `+exportFactColumns+` FROM facts WHERE bank_id = ? ORDER BY seq`, func(r *sql.Rows) (*memory.ExportRecord, error) {
		f := &memory.Fact{BankID: bankID}
		var kind, category, sens, tags, status string
		var occS, occE, ment, vf, vt, created, exp, lastAcc, cons, expires sql.NullInt64
		var blob []byte
		if err := r.Scan(&f.ID, &f.Seq, &f.DocumentID, &f.ChunkID, &f.SourceRef, &f.Text, &kind, &category, &f.Confidence, &f.Importance, &sens,
			&f.Speaker, &f.Evidence, &tags, &occS, &occE, &ment, &vf, &vt, &created, &exp,
			&f.AccessCount, &lastAcc, &f.ReinforcementCount, &f.DecayScore, &status, &f.SupersededBy, &cons, &expires, &blob); err != nil {
			return nil, err
		}
		f.Kind, f.Category, f.Sensitivity, f.Status = memory.FactKind(kind), memory.Category(category), memory.Sensitivity(sens), memory.Status(status)
		if err := unmarshalJSON(tags, &f.Tags); err != nil {
			return nil, err
		}
		if len(f.Tags) == 0 {
			f.Tags = nil
		}
		f.OccurredStart, f.OccurredEnd, f.MentionedAt = fromNullMicro(occS), fromNullMicro(occE), fromNullMicro(ment)
		f.ValidFrom, f.ValidTo, f.CreatedAt, f.ExpiredAt = fromNullMicro(vf), fromNullMicro(vt), fromNullMicro(created), fromNullMicro(exp)
		f.LastAccessed, f.ConsolidatedAt, f.ExpiresAt = fromNullMicro(lastAcc), fromNullMicro(cons), fromNullMicro(expires)
		if len(blob) > 0 {
			f.Embedding = decodeVector(make([]float32, 0, len(blob)/4), blob)
		}
		return &memory.ExportRecord{Type: memory.RecordFact, Fact: f}, nil
	}, bankID)
	if err != nil {
		return fmt.Errorf("export facts: %w", err)
	}
	err = each(`SELECT id, name, type, first_seen, last_seen, mention_count, episode_count, salience, tier, contradicted, embedding,
			(SELECT json_group_array(alias) FROM (SELECT alias FROM entity_aliases a WHERE a.bank_id = e.bank_id AND a.entity_id = e.id AND a.alias != e.name ORDER BY alias))
		FROM entities e WHERE bank_id = ? ORDER BY id`, func(r *sql.Rows) (*memory.ExportRecord, error) {
		e := &memory.ExportEntity{Entity: memory.Entity{BankID: bankID}}
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
		if len(e.Aliases) == 0 {
			e.Aliases = nil
		}
		if len(blob) > 0 {
			e.Embedding = decodeVector(make([]float32, 0, len(blob)/4), blob)
		}
		return &memory.ExportRecord{Type: memory.RecordEntity, Entity: e}, nil
	}, bankID)
	if err != nil {
		return fmt.Errorf("export entities: %w", err)
	}
	err = each(`SELECT fact_id, entity_id, seq FROM entity_refs WHERE bank_id = ? ORDER BY fact_id, entity_id`, func(r *sql.Rows) (*memory.ExportRecord, error) {
		var x memory.ExportRef
		err := r.Scan(&x.FactID, &x.EntityID, &x.Seq)
		return &memory.ExportRecord{Type: memory.RecordRef, Ref: &x}, err
	}, bankID)
	if err != nil {
		return fmt.Errorf("export refs: %w", err)
	}
	err = each(`SELECT entity_a, entity_b, count FROM cooccurrences WHERE bank_id = ? ORDER BY entity_a, entity_b`, func(r *sql.Rows) (*memory.ExportRecord, error) {
		var c memory.Cooccurrence
		err := r.Scan(&c.EntityA, &c.EntityB, &c.Count)
		return &memory.ExportRecord{Type: memory.RecordCooccurrence, Cooccurrence: &c}, err
	}, bankID)
	if err != nil {
		return fmt.Errorf("export co-occurrences: %w", err)
	}
	err = each(`SELECT id, subject_id, predicate, object_id, confidence, fact_ids, valid_from, valid_to, created_at, expired_at
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
		if len(rel.FactIDs) == 0 {
			rel.FactIDs = nil
		}
		rel.ValidFrom, rel.ValidTo, rel.CreatedAt, rel.ExpiredAt = fromNullMicro(vf), fromNullMicro(vt), fromMicro(created), fromNullMicro(exp)
		return &memory.ExportRecord{Type: memory.RecordRelation, Relation: rel}, nil
	}, bankID)
	if err != nil {
		return fmt.Errorf("export relations: %w", err)
	}
	err = each(`SELECT from_id, to_id, kind, entity_id, weight FROM links WHERE bank_id = ? ORDER BY from_id, kind, to_id, entity_id`, func(r *sql.Rows) (*memory.ExportRecord, error) {
		l := &memory.Link{BankID: bankID}
		var kind string
		err := r.Scan(&l.FromID, &l.ToID, &kind, &l.EntityID, &l.Weight)
		l.Kind = memory.LinkKind(kind)
		return &memory.ExportRecord{Type: memory.RecordLink, Link: l}, err
	}, bankID)
	if err != nil {
		return fmt.Errorf("export links: %w", err)
	}
	err = each(`SELECT source, last_item, last_error, updated_at FROM watermarks WHERE bank_id = ? ORDER BY source`, func(r *sql.Rows) (*memory.ExportRecord, error) {
		w := &memory.Watermark{BankID: bankID}
		var at int64
		err := r.Scan(&w.Source, &w.LastItem, &w.LastError, &at)
		w.UpdatedAt = fromMicro(at)
		return &memory.ExportRecord{Type: memory.RecordWatermark, Watermark: w}, err
	}, bankID)
	if err != nil {
		return fmt.Errorf("export watermarks: %w", err)
	}
	return nil
}

// Import implements memory.Importer in one write transaction. Facts enter
// the full-text index too, and the bank's change counter moves, so every
// process's search index picks them up.
func (s *Store) Import(ctx context.Context, bankID string, recs []*memory.ExportRecord) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		var dim int
		var nextSeq int64
		err := tx.QueryRowContext(ctx, `SELECT dimension, next_seq FROM banks WHERE id = ?`, bankID).Scan(&dim, &nextSeq)
		if errors.Is(err, sql.ErrNoRows) {
			return unknownBank(bankID)
		}
		if err != nil {
			return err
		}
		tok := bankToken(bankID)
		for i, rec := range recs {
			if err := s.importRecord(ctx, tx, bankID, tok, rec, &dim, &nextSeq); err != nil {
				if isConstraint(err) {
					return memory.Errorf(memory.ECONFLICT, "import record %d (%s): already in bank %q, or its parent is missing: %v", i+1, rec.Type, bankID, err)
				}
				if memory.ErrorCode(err) != memory.EINTERNAL {
					return err
				}
				return fmt.Errorf("import record %d (%s): %w", i+1, rec.Type, err)
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE banks SET next_seq = ?, dimension = ?, version = version + 1 WHERE id = ?`, nextSeq, dim, bankID)
		return err
	})
}

func (s *Store) importRecord(ctx context.Context, tx *sql.Tx, bank, tok string, rec *memory.ExportRecord, dim *int, nextSeq *int64) error {
	exec := func(q string, args ...any) error {
		_, err := tx.ExecContext(ctx, q, args...)
		return err
	}
	switch {
	case rec.Type == memory.RecordDocument && rec.Document != nil:
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
	case rec.Type == memory.RecordChunk && rec.Chunk != nil:
		c := rec.Chunk
		return exec(`INSERT INTO chunks (bank_id, id, document_id, idx, text) VALUES (?, ?, ?, ?, ?)`, bank, c.ID, c.DocumentID, c.Index, c.Text)
	case rec.Type == memory.RecordFact && rec.Fact != nil:
		f := rec.Fact
		if f.ID == "" || f.Seq <= 0 {
			return memory.Errorf(memory.EINVALID, "import: a fact needs an id and a positive Seq")
		}
		if n := len(f.Embedding); n > 0 {
			if *dim == 0 {
				*dim = n
			}
			if n != *dim {
				return memory.Errorf(memory.EINVALID, "import: fact %s has dimension %d, bank %q holds dimension %d", f.ID, n, bank, *dim)
			}
		}
		var pk int64
		err := tx.QueryRowContext(ctx, `INSERT INTO facts (bank_id, id, seq, document_id, chunk_id, source_ref, text, kind, category,
			confidence, importance, sensitivity, speaker, evidence, tags, embedding,
			occurred_start, occurred_end, mentioned_at, valid_from, valid_to, created_at, expired_at, event_time,
			access_count, last_accessed, reinforcement_count, decay_score, status, superseded_by, consolidated_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk`,
			bank, f.ID, f.Seq, f.DocumentID, f.ChunkID, f.SourceRef, f.Text, string(f.Kind), string(f.Category),
			f.Confidence, f.Importance, string(f.Sensitivity), f.Speaker, f.Evidence, stringsJSON(f.Tags), encodeVector(f.Embedding),
			toMicro(f.OccurredStart), toMicro(f.OccurredEnd), toMicro(f.MentionedAt), toMicro(f.ValidFrom), toMicro(f.ValidTo),
			toMicro(f.CreatedAt), toMicro(f.ExpiredAt), toMicro(f.EventTime()),
			f.AccessCount, toMicro(f.LastAccessed), f.ReinforcementCount, f.DecayScore, string(f.Status), f.SupersededBy,
			toMicro(f.ConsolidatedAt), toMicro(f.ExpiresAt)).Scan(&pk)
		if err != nil {
			return err
		}
		*nextSeq = max(*nextSeq, f.Seq+1)
		return exec(`INSERT INTO facts_fts (rowid, bank, body) VALUES (?, ?, ?)`, pk, tok, ftsBody(f))
	case rec.Type == memory.RecordEntity && rec.Entity != nil:
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
	case rec.Type == memory.RecordRef && rec.Ref != nil:
		r := rec.Ref
		return exec(`INSERT INTO entity_refs (bank_id, fact_id, entity_id, seq) VALUES (?, ?, ?, ?)`, bank, r.FactID, r.EntityID, r.Seq)
	case rec.Type == memory.RecordCooccurrence && rec.Cooccurrence != nil:
		c := rec.Cooccurrence
		return exec(`INSERT INTO cooccurrences (bank_id, entity_a, entity_b, count) VALUES (?, ?, ?, ?)`, bank, c.EntityA, c.EntityB, c.Count)
	case rec.Type == memory.RecordRelation && rec.Relation != nil:
		r := rec.Relation
		return exec(`INSERT INTO relations (bank_id, id, subject_id, predicate, object_id, confidence, fact_ids, valid_from, valid_to, created_at, expired_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			bank, r.ID, r.SubjectID, r.Predicate, r.ObjectID, r.Confidence, stringsJSON(r.FactIDs),
			toMicro(r.ValidFrom), toMicro(r.ValidTo), r.CreatedAt.UnixMicro(), toMicro(r.ExpiredAt))
	case rec.Type == memory.RecordLink && rec.Link != nil:
		l := rec.Link
		return exec(`INSERT INTO links (bank_id, from_id, to_id, kind, entity_id, weight) VALUES (?, ?, ?, ?, ?, ?)`,
			bank, l.FromID, l.ToID, string(l.Kind), l.EntityID, l.Weight)
	case rec.Type == memory.RecordWatermark && rec.Watermark != nil:
		w := rec.Watermark
		return exec(`INSERT INTO watermarks (bank_id, source, last_item, last_error, updated_at) VALUES (?, ?, ?, ?, ?)`,
			bank, w.Source, w.LastItem, w.LastError, w.UpdatedAt.UnixMicro())
	}
	return memory.Errorf(memory.EINVALID, "import: record of type %q cannot be imported (or is empty)", rec.Type)
}
