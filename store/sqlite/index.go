package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"sync"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/sqlite/internal/mirror"
)

// source is the file as the search mirror reads it: the bank's change
// counter and read transactions over its facts (mirror.Source).
type source struct {
	stmts *stmtCache
}

var _ mirror.Source = source{}

// Bank implements mirror.Source.
func (src source) Bank(ctx context.Context, bank string) (version, created int64, err error) {
	r, err := src.stmts.bank(ctx, bank)
	return r.version, r.facts.created, err
}

// Embedding implements mirror.Source.
func (src source) Embedding(ctx context.Context, bank string, pk int64) ([]float32, error) {
	var blob []byte
	err := src.stmts.queryRow(ctx, `SELECT embedding FROM facts WHERE pk = ? AND bank_id = ?`, pk, bank).Scan(&blob)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil || len(blob) == 0 {
		return nil, err
	}
	return decodeVector(nil, blob), nil
}

// Read implements mirror.Source: one read-only transaction.
func (src source) Read(ctx context.Context, bank string) (mirror.Snapshot, error) {
	tx, err := src.stmts.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	return snapshot{tx: tx, bank: bank}, nil
}

// snapshot is a mirror.Snapshot: a read transaction over one bank.
type snapshot struct {
	tx   *sql.Tx
	bank string
}

// Version implements mirror.Snapshot.
func (s snapshot) Version(ctx context.Context) (int64, error) {
	var version int64
	err := s.tx.QueryRowContext(ctx, `SELECT version FROM banks WHERE id = ?`, s.bank).Scan(&version)
	return version, err
}

// Statuses implements mirror.Snapshot.
func (s snapshot) Statuses(ctx context.Context, upTo int64, fn func(pk int64, status memory.Status, expiredAt int64)) error {
	return s.statuses(ctx, `SELECT pk, status, coalesce(expired_at, 0) FROM facts WHERE bank_id = ? AND pk <= ?`, upTo, fn)
}

// statuses runs query (pk, status, expired_at of the bank's facts up to
// upTo) and hands fn each row.
func (s snapshot) statuses(ctx context.Context, query string, upTo int64, fn func(pk int64, status memory.Status, expiredAt int64)) error {
	rows, err := s.tx.QueryContext(ctx, query, s.bank, upTo)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var pk, expired int64
		var st string
		if err := rows.Scan(&pk, &st, &expired); err != nil {
			return err
		}
		fn(pk, memory.Status(st), expired)
	}
	return rows.Err()
}

// Changed implements mirror.Snapshot, from facts_bank_changed
// (migration 027).
func (s snapshot) Changed(ctx context.Context, upTo int64, fn func(pk int64, status memory.Status, expiredAt int64)) error {
	return s.statuses(ctx, `SELECT pk, status, coalesce(expired_at, 0) FROM facts
		WHERE bank_id = ? AND pk <= ? AND (status <> 'active' OR expired_at IS NOT NULL)`, upTo, fn)
}

// LastRow implements mirror.Snapshot: facts.pk is AUTOINCREMENT, so
// sqlite_sequence holds the highest row ever given.
func (s snapshot) LastRow(ctx context.Context) (int64, error) {
	var seq int64
	err := s.tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = 'facts'`).Scan(&seq)
	return seq, err
}

// Rows implements mirror.Snapshot, from facts_bank.
func (s snapshot) Rows(ctx context.Context, upTo int64) (n int, sum int64, err error) {
	err = s.tx.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(pk), 0) FROM facts WHERE bank_id = ? AND pk <= ?`, s.bank, upTo).Scan(&n, &sum)
	return n, sum, err
}

// Count implements mirror.Snapshot.
func (s snapshot) Count(ctx context.Context, upTo int64) (int, error) {
	var n int
	err := s.tx.QueryRowContext(ctx, `SELECT count(*) FROM facts WHERE bank_id = ? AND pk <= ?`, s.bank, upTo).Scan(&n)
	return n, err
}

// FactID implements mirror.Snapshot.
func (s snapshot) FactID(ctx context.Context, pk int64) (string, bool, error) {
	var id string
	err := s.tx.QueryRowContext(ctx, `SELECT id FROM facts WHERE pk = ? AND bank_id = ?`, pk, s.bank).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return id, err == nil, err
}

// Facts implements mirror.Snapshot.
func (s snapshot) Facts(ctx context.Context, after int64, fn func(*mirror.Row)) error {
	rows, err := s.tx.QueryContext(ctx, `SELECT pk, id, kind, category, status, sensitivity, tags, coalesce(event_time, ?), coalesce(created_at, 0),
		coalesce(expired_at, 0), speaker, text, embedding, document_id FROM facts WHERE bank_id = ? AND pk > ? ORDER BY pk`, int64(mirror.NoTime), s.bank, after)
	if err != nil {
		return err
	}
	defer rows.Close()
	var r mirror.Row
	for rows.Next() {
		if err := rows.Scan(&r.PK, &r.ID, &r.Kind, &r.Category, &r.Status, &r.Sensitivity, &r.Tags, &r.EventTime, &r.CreatedAt,
			&r.ExpiredAt, &r.Speaker, &r.Text, &r.Embedding, &r.Document); err != nil {
			return err
		}
		fn(&r)
	}
	return rows.Err()
}

// Documents implements mirror.Snapshot.
func (s snapshot) Documents(ctx context.Context, after int64, fn func(pk int64, id, document, body string)) error {
	rows, err := s.tx.QueryContext(ctx, `SELECT pk, id, document_id, speaker, text FROM facts WHERE bank_id = ? AND pk > ? ORDER BY pk`, s.bank, after)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var pk int64
		var id, doc, speaker, text string
		if err := rows.Scan(&pk, &id, &doc, &speaker, &text); err != nil {
			return err
		}
		fn(pk, id, doc, memory.Body(speaker, text))
	}
	return rows.Err()
}

// Close implements mirror.Snapshot: the read ends.
func (s snapshot) Close() error { return s.tx.Rollback() }

// IndexDir returns the folder beside the database at path where the
// search mirror keeps each bank's index file ("<path>-index", mode 0700,
// files 0600): a cache of the database, read by a process's first search
// of a bank instead of every fact row, checked against the bank and
// rebuilt when it does not hold. Deleting it loses nothing.
func IndexDir(path string) string { return path + "-index" }

// schemaTag names the schema the code migrates to: its last migration.
// An index file written under another schema is not read.
var schemaTag = sync.OnceValue(func() string {
	names, err := migrationFS.ReadDir("migrations")
	if err != nil || len(names) == 0 {
		return ""
	}
	last := names[0].Name()
	for _, n := range names {
		last = max(last, n.Name())
	}
	return last
})

// settings returns the search mirror's settings from the store's fields.
func (s *Store) settings() mirror.Settings {
	return mirror.Settings{ANNThreshold: s.ANNThreshold, FloatVectors: s.FloatVectors, IndexWorkers: s.IndexWorkers,
		EfSearch: s.EfSearch, SpillDir: filepath.Dir(s.path), IndexDir: IndexDir(s.path), IndexTag: schemaTag(),
		IndexReadOnly: s.readOnly != ""}
}

// SearchText implements memory.Store from the bank's search mirror:
// Okapi BM25 (k1 1.2, b 0.75, Lucene IDF: internal/bm25) over the words
// of each fact's speaker and text, stemmed (Porter2) with stopwords
// dropped, with the bank's own statistics. Terms are plain words:
// nothing in them is ever read as query syntax.
func (s *Store) SearchText(ctx context.Context, bankID string, terms []string, k int, f memory.Filter) ([]memory.Hit, error) {
	return s.mirror.SearchText(ctx, bankID, terms, k, f)
}
