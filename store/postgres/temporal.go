package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/memory"
)

// The temporal pass's reads and marks (memory.EntityTimelines) and the
// importance scores (memory.ImportanceScores), over migration 011's
// entity_marks table and facts.importance_scored_at.

var (
	_ memory.EntityTimelines  = (*Store)(nil)
	_ memory.ImportanceScores = (*Store)(nil)
)

// eventWindow appends the bounds of [from, to] on f.event_time.
func eventWindow(b *strings.Builder, p *params, from, to time.Time) {
	b.WriteString(` AND f.event_time IS NOT NULL`)
	if !from.IsZero() {
		b.WriteString(` AND f.event_time >= ` + p.add(ts(from)))
	}
	if !to.IsZero() {
		b.WriteString(` AND f.event_time <= ` + p.add(ts(to)))
	}
}

// BusyEntities implements memory.EntityTimelines: the facts of the
// window come from the event-time index (facts_event_time), their refs
// by primary key, grouped by entity; a mark is one primary-key lookup
// per group.
func (s *Store) BusyEntities(ctx context.Context, bankID string, q memory.BusyQuery) ([]memory.BusyEntity, error) {
	q, err := q.Validate()
	if err != nil {
		return nil, err
	}
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	var b strings.Builder
	p := &params{}
	bank := p.add(bankID)
	b.WriteString(`WITH recent AS (
		SELECT r.entity_id, count(*) AS n, max(f.seq) AS newest
		FROM facts f JOIN entity_refs r ON r.bank_id = f.bank_id AND r.fact_id = f.id
		WHERE f.bank_id = ` + bank + ` AND f.status = 'active'`)
	eventWindow(&b, p, q.From, q.To)
	// Without a pass no mark matches (marks always name one).
	b.WriteString(` GROUP BY r.entity_id HAVING count(*) >= ` + p.add(q.MinFacts) + `)
		SELECT e.id, e.name, e.type, recent.n, recent.newest FROM recent
		JOIN entities e ON e.bank_id = ` + bank + ` AND e.id = recent.entity_id
		WHERE recent.newest > COALESCE((SELECT m.seq FROM entity_marks m
			WHERE m.bank_id = ` + bank + ` AND m.pass = ` + p.add(q.Pass) + ` AND m.entity_id = recent.entity_id), 0)
		ORDER BY recent.n DESC, e.id LIMIT ` + p.add(q.Limit))
	rows, err := s.pool.Query(ctx, b.String(), *p...)
	if err != nil {
		return nil, fmt.Errorf("busy entities: %w", err)
	}
	defer rows.Close()
	out := []memory.BusyEntity{}
	for rows.Next() {
		var e memory.BusyEntity
		var typ string
		if err := rows.Scan(&e.ID, &e.Name, &typ, &e.Facts, &e.NewestSeq); err != nil {
			return nil, err
		}
		e.Type = memory.EntityType(typ)
		out = append(out, e)
	}
	return out, rows.Err()
}

// EntityTimeline implements memory.EntityTimelines: the entity's refs
// from entity_refs_entity, their facts by primary key.
func (s *Store) EntityTimeline(ctx context.Context, bankID, entityID string, from, to time.Time, limit int) ([]*memory.Fact, error) {
	limit, err := memory.PageLimit(limit)
	if err != nil {
		return nil, err
	}
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	var b strings.Builder
	p := &params{}
	bank := p.add(bankID)
	b.WriteString(`SELECT ` + factColumns + ` FROM facts f WHERE f.bank_id = ` + bank + ` AND f.status = 'active'
		AND f.id IN (SELECT r.fact_id FROM entity_refs r WHERE r.bank_id = ` + bank + ` AND r.entity_id = ` + p.add(entityID) + `)`)
	eventWindow(&b, p, from, to)
	b.WriteString(` ORDER BY f.event_time DESC, f.seq DESC LIMIT ` + p.add(limit))
	fs, err := s.queryFacts(ctx, bankID, b.String(), *p...)
	if err != nil {
		return nil, fmt.Errorf("entity timeline: %w", err)
	}
	slices.Reverse(fs)
	return fs, nil
}

// queryFacts runs a query selecting factColumns.
func (s *Store) queryFacts(ctx context.Context, bankID, query string, args ...any) ([]*memory.Fact, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*memory.Fact{}
	for rows.Next() {
		f, err := scanFact(bankID, rows)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// MarkEntities implements memory.EntityTimelines: one upsert that keeps
// the larger seq.
func (s *Store) MarkEntities(ctx context.Context, bankID, pass string, marks []memory.EntityMark) error {
	if err := memory.CheckMarks(pass, marks); err != nil {
		return err
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		for _, m := range marks {
			if _, err := tx.Exec(ctx, `INSERT INTO entity_marks (bank_id, pass, entity_id, seq, at) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (bank_id, pass, entity_id) DO UPDATE SET seq = GREATEST(entity_marks.seq, excluded.seq), at = excluded.at`,
				bankID, pass, m.EntityID, m.Seq, ts(m.At)); err != nil {
				return fmt.Errorf("mark entity %s: %w", m.EntityID, err)
			}
		}
		return nil
	})
}

// UnscoredFacts implements memory.ImportanceScores from the partial
// index facts_unscored.
func (s *Store) UnscoredFacts(ctx context.Context, bankID string, limit int) ([]*memory.Fact, error) {
	limit, err := memory.PageLimit(limit)
	if err != nil {
		return nil, err
	}
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	fs, err := s.queryFacts(ctx, bankID, `SELECT `+factColumns+` FROM facts f
		WHERE f.bank_id = $1 AND f.importance_scored_at IS NULL AND f.status = 'active' ORDER BY f.seq LIMIT $2`, bankID, limit)
	if err != nil {
		return nil, fmt.Errorf("unscored facts: %w", err)
	}
	return fs, nil
}

// SetImportance implements memory.ImportanceScores in one statement.
func (s *Store) SetImportance(ctx context.Context, bankID string, scores map[string]float64, at time.Time) error {
	if err := memory.CheckImportance(scores); err != nil {
		return err
	}
	ids := make([]string, 0, len(scores))
	vals := make([]float64, 0, len(scores))
	for id, v := range scores {
		ids, vals = append(ids, id), append(vals, v)
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE facts f SET importance = v.score, importance_scored_at = $4
			FROM unnest($2::text[], $3::float8[]) AS v(id, score) WHERE f.bank_id = $1 AND f.id = v.id`,
			bankID, ids, vals, ts(at)); err != nil {
			return fmt.Errorf("importance: %w", err)
		}
		return nil
	})
}
