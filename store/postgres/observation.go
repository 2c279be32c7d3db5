package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	pgvector "github.com/pgvector/pgvector-go"

	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.ObservationStore = (*Store)(nil)

// PutObservations implements memory.ObservationStore: an upsert per
// observation, all in one transaction.
func (s *Store) PutObservations(ctx context.Context, bankID string, obs []*memory.Observation) error {
	if err := memory.ValidateObservations(obs); err != nil {
		return err
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		for _, o := range obs {
			history := o.History
			if history == nil {
				history = []memory.ObservationChange{}
			}
			hj, err := json.Marshal(history)
			if err != nil {
				return err
			}
			status, kind := o.StatusKind()
			var vec any
			if len(o.Embedding) > 0 {
				vec = pgvector.NewVector(o.Embedding)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO observations (bank_id, id, text, kind, source_fact_ids, evidence_count, history, embedding, status, access_count, last_accessed, created_at, updated_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
				ON CONFLICT (bank_id, id) DO UPDATE SET text = excluded.text, kind = excluded.kind, source_fact_ids = excluded.source_fact_ids,
					evidence_count = excluded.evidence_count, history = excluded.history, embedding = excluded.embedding, status = excluded.status,
					access_count = excluded.access_count, last_accessed = excluded.last_accessed, updated_at = excluded.updated_at`,
				bankID, o.ID, o.Text, string(kind), strs(o.SourceFactIDs), o.EvidenceCount, hj, vec, string(status), o.AccessCount,
				ts(o.LastAccessed), ts(o.CreatedAt), ts(o.UpdatedAt)); err != nil {
				return fmt.Errorf("observation %s: %w", o.ID, err)
			}
		}
		return nil
	})
}

// Observations implements memory.ObservationStore.
func (s *Store) Observations(ctx context.Context, bankID string, ids []string) ([]*memory.Observation, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT id, text, kind, source_fact_ids, evidence_count, history, status, access_count, last_accessed, created_at, updated_at
		FROM observations WHERE bank_id = $1 AND id = ANY($2)`, bankID, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byID := map[string]*memory.Observation{}
	for rows.Next() {
		o := &memory.Observation{BankID: bankID}
		var kind, status string
		var history []byte
		var last, created, updated *time.Time
		if err := rows.Scan(&o.ID, &o.Text, &kind, &o.SourceFactIDs, &o.EvidenceCount, &history, &status, &o.AccessCount, &last, &created, &updated); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(history, &o.History); err != nil {
			return nil, fmt.Errorf("observation %s history: %w", o.ID, err)
		}
		if len(o.History) == 0 {
			o.History = nil
		}
		if len(o.SourceFactIDs) == 0 {
			o.SourceFactIDs = nil
		}
		o.Kind, o.Status = memory.ObservationKind(kind), memory.Status(status)
		o.LastAccessed, o.CreatedAt, o.UpdatedAt = tm(last), tm(created), tm(updated)
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
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	if k <= 0 || len(vec) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT id, 1 - (embedding <=> $2) AS score FROM observations
		WHERE bank_id = $1 AND status = 'active' AND embedding IS NOT NULL AND vector_dims(embedding) = $3
		ORDER BY score DESC, id LIMIT $4`, bankID, pgvector.NewVector(vec), len(vec), k)
	if err != nil {
		return nil, err
	}
	return scanHits(rows)
}

// SearchObservationsText implements memory.ObservationStore with
// PostgreSQL's own ranking (ts_rank) over the observations' tsvector; the
// words are plain text (plainto_tsquery), never query syntax.
func (s *Store) SearchObservationsText(ctx context.Context, bankID string, terms []string, k int) ([]memory.Hit, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	var words []string
	for _, t := range terms {
		if strings.TrimSpace(t) != "" {
			words = append(words, t)
		}
	}
	if k <= 0 || len(words) == 0 {
		return nil, nil
	}
	// Any of the words: an OR of each word's own plain query.
	// The text of a tsquery quotes its lexemes, so joining them with "|"
	// and casting back cannot inject syntax.
	rows, err := s.pool.Query(ctx, `WITH q AS (
			SELECT string_agg(q::text, ' | ')::tsquery AS q
			FROM (SELECT plainto_tsquery('english'::regconfig, w) AS q FROM unnest($2::text[]) w) x WHERE q::text <> ''
		)
		SELECT o.id, ts_rank(o.tsv, q.q)::float8 AS score FROM observations o, q
		WHERE q.q IS NOT NULL AND o.bank_id = $1 AND o.status = 'active' AND o.tsv @@ q.q
		ORDER BY score DESC, o.id LIMIT $3`, bankID, words, k)
	if err != nil {
		return nil, err
	}
	return scanHits(rows)
}
