package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"

	"github.com/viterin/vek/vek32"

	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.ObservationStore = (*Store)(nil)

// PutObservations implements memory.ObservationStore. Each observation is
// one row (replaced whole on a second put, keeping its row key, so its
// full-text entry is replaced too); all of them are written in one
// transaction.
func (s *Store) PutObservations(ctx context.Context, bankID string, obs []*memory.Observation) error {
	if err := memory.ValidateObservations(obs); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM banks WHERE id = ?`, bankID).Scan(&one); errors.Is(err, sql.ErrNoRows) {
			return memory.UnknownBank(bankID)
		} else if err != nil {
			return err
		}
		return putObservations(ctx, tx, bankID, obs)
	})
}

// putObservations stores observations of an existing bank inside tx: the
// one write of PutObservations and Import.
func putObservations(ctx context.Context, tx *sql.Tx, bankID string, obs []*memory.Observation) error {
	for _, o := range obs {
		sources := stringsJSON(o.SourceFactIDs)
		history, err := marshalJSON(o.History)
		if err != nil {
			return err
		}
		if o.History == nil {
			history = "[]"
		}
		status, kind := o.StatusKind()
		var vec any
		if len(o.Embedding) > 0 {
			vec = encodeVector(o.Embedding)
		}
		var pk int64
		err = tx.QueryRowContext(ctx, `INSERT INTO observations (bank_id, id, text, kind, source_fact_ids, evidence_count, history, embedding, status, access_count, last_accessed, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (bank_id, id) DO UPDATE SET text = excluded.text, kind = excluded.kind, source_fact_ids = excluded.source_fact_ids,
				evidence_count = excluded.evidence_count, history = excluded.history, embedding = excluded.embedding, status = excluded.status,
				access_count = excluded.access_count, last_accessed = excluded.last_accessed, updated_at = excluded.updated_at
			RETURNING pk`,
			bankID, o.ID, o.Text, string(kind), sources, o.EvidenceCount, history, vec, string(status), o.AccessCount,
			toMicro(o.LastAccessed), o.CreatedAt.UnixMicro(), o.UpdatedAt.UnixMicro()).Scan(&pk)
		if err != nil {
			return fmt.Errorf("observation %s: %w", o.ID, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM observations_fts WHERE rowid = ?`, pk); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO observations_fts (rowid, bank, body) VALUES (?, ?, ?)`, pk, bankToken(bankID), o.Text); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE banks SET observations = (SELECT count(*) FROM observations WHERE bank_id = ?1 AND status = 'active') WHERE id = ?1`, bankID)
	return err
}

// activeObservations returns how many active observations a bank holds,
// or ENOTFOUND: the searches' bank check, which spares a bank without
// observations any further query.
func (s *Store) activeObservations(ctx context.Context, bankID string) (int, error) {
	r, err := s.stmts.bank(ctx, bankID)
	return int(r.observations), err
}

// Observations implements memory.ObservationStore.
func (s *Store) Observations(ctx context.Context, bankID string, ids []string) ([]*memory.Observation, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	inIDs, args := in(ids, bankID)
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, text, kind, source_fact_ids, evidence_count, history, status, access_count, last_accessed, created_at, updated_at
		FROM observations WHERE bank_id = ? AND id IN `+inIDs, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byID := map[string]*memory.Observation{}
	for rows.Next() {
		o := &memory.Observation{BankID: bankID}
		var kind, sources, history, status string
		var last sql.NullInt64
		var created, updated int64
		if err := rows.Scan(&o.ID, &o.Text, &kind, &sources, &o.EvidenceCount, &history, &status, &o.AccessCount, &last, &created, &updated); err != nil {
			return nil, err
		}
		if err := unmarshalJSON(sources, &o.SourceFactIDs); err != nil {
			return nil, fmt.Errorf("observation %s sources: %w", o.ID, err)
		}
		if err := unmarshalJSON(history, &o.History); err != nil {
			return nil, fmt.Errorf("observation %s history: %w", o.ID, err)
		}
		if len(o.History) == 0 {
			o.History = nil
		}
		o.Kind, o.Status = memory.ObservationKind(kind), memory.Status(status)
		o.LastAccessed, o.CreatedAt, o.UpdatedAt = fromNullMicro(last), fromMicro(created), fromMicro(updated)
		byID[o.ID] = o
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return memory.OrderByIDs(ids, byID), nil
}

// SearchObservationsVector implements memory.ObservationStore with an
// exact scan: a bank holds far fewer observations than facts.
func (s *Store) SearchObservationsVector(ctx context.Context, bankID string, vec []float32, k int) ([]memory.Hit, error) {
	n, err := s.activeObservations(ctx, bankID)
	if err != nil {
		return nil, err
	}
	if n == 0 || k <= 0 || len(vec) == 0 {
		return nil, nil
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, embedding FROM observations WHERE bank_id = ? AND status = 'active' AND embedding IS NOT NULL`, bankID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []memory.Hit
	buf := make([]float32, 0, len(vec))
	for rows.Next() {
		var id string
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return nil, err
		}
		if len(blob) != 4*len(vec) {
			continue
		}
		hits = append(hits, memory.Hit{ID: id, Score: float64(vek32.Dot(vec, decodeVector(buf[:0], blob)))})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	return hits[:min(k, len(hits))], nil
}

// SearchObservationsText implements memory.ObservationStore with FTS5's
// bm25 over observations_fts (negated: higher is better).
func (s *Store) SearchObservationsText(ctx context.Context, bankID string, terms []string, k int) ([]memory.Hit, error) {
	n, err := s.activeObservations(ctx, bankID)
	if err != nil {
		return nil, err
	}
	q := ftsQuery(bankID, terms)
	if n == 0 || k <= 0 || q == "" {
		return nil, nil
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT o.id, -bm25(observations_fts) AS score FROM observations_fts
		JOIN observations o ON o.pk = observations_fts.rowid
		WHERE observations_fts MATCH ? AND o.bank_id = ? AND o.status = 'active'
		ORDER BY score DESC, o.id LIMIT ?`, q, bankID, k)
	if err != nil {
		return nil, err
	}
	return scanHits(rows)
}
