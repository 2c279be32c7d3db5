package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// The temporal pass's reads and marks (memory.EntityTimelines) and the
// importance scores (memory.ImportanceScores), over migration 012's
// entity_marks table and facts.importance_scored_at. None of it is in
// the search mirror: recall never filters on importance or marks.

var (
	_ memory.EntityTimelines  = (*Store)(nil)
	_ memory.ImportanceScores = (*Store)(nil)
)

// window appends the event-time bounds of [from, to] on column col.
func window(b *strings.Builder, args []any, col string, from, to time.Time) []any {
	b.WriteString(` AND ` + col + ` IS NOT NULL`)
	if !from.IsZero() {
		b.WriteString(` AND ` + col + ` >= ?`)
		args = append(args, from.UnixMicro())
	}
	if !to.IsZero() {
		b.WriteString(` AND ` + col + ` <= ?`)
		args = append(args, to.UnixMicro())
	}
	return args
}

// BusyEntities implements memory.EntityTimelines: the facts of the
// window come from the event-time index (facts_event_time), their refs
// by primary key, grouped by entity; a mark is one primary-key lookup
// per group. The join order is forced (INDEXED BY, CROSS JOIN): left to
// itself the planner walks every ref of the bank in entity order, to
// group without sorting, which costs the whole bank instead of the
// window.
func (s *Store) BusyEntities(ctx context.Context, bankID string, q memory.BusyQuery) ([]memory.BusyEntity, error) {
	q, err := q.Validate()
	if err != nil {
		return nil, err
	}
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	var b strings.Builder
	args := []any{bankID}
	b.WriteString(`WITH recent AS (
		SELECT r.entity_id, COUNT(*) AS n, MAX(f.seq) AS newest
		FROM facts f INDEXED BY facts_event_time CROSS JOIN entity_refs r ON r.bank_id = f.bank_id AND r.fact_id = f.id
		WHERE f.bank_id = ? AND f.status = 'active'`)
	args = window(&b, args, "f.event_time", q.From, q.To)
	b.WriteString(` GROUP BY r.entity_id HAVING COUNT(*) >= ?)
		SELECT e.id, e.name, e.type, recent.n, recent.newest FROM recent
		JOIN entities e ON e.bank_id = ? AND e.id = recent.entity_id
		WHERE recent.newest > COALESCE((SELECT m.seq FROM entity_marks m WHERE m.bank_id = ? AND m.pass = ? AND m.entity_id = recent.entity_id), 0)
		ORDER BY recent.n DESC, e.id LIMIT ?`)
	// Without a pass no mark matches (marks always name one).
	args = append(args, q.MinFacts, bankID, bankID, q.Pass, q.Limit)
	rows, err := s.rdb.QueryContext(ctx, b.String(), args...)
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
// from entity_refs_entity, their facts by primary key (the join order
// forced, so that a busy window of other entities' facts is never
// walked).
func (s *Store) EntityTimeline(ctx context.Context, bankID, entityID string, from, to time.Time, limit int) ([]*memory.Fact, error) {
	limit, err := memory.PageLimit(limit)
	if err != nil {
		return nil, err
	}
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	var b strings.Builder
	args := []any{bankID, entityID}
	b.WriteString(`SELECT ` + prefixedFactColumns + ` FROM entity_refs r CROSS JOIN facts f ON f.bank_id = r.bank_id AND f.id = r.fact_id
		WHERE r.bank_id = ? AND r.entity_id = ? AND f.status = 'active'`)
	args = window(&b, args, "f.event_time", from, to)
	b.WriteString(` ORDER BY f.event_time DESC, f.seq DESC LIMIT ?`)
	args = append(args, limit)
	fs, err := s.queryFacts(ctx, bankID, b.String(), args...)
	if err != nil {
		return nil, fmt.Errorf("entity timeline: %w", err)
	}
	for i, j := 0, len(fs)-1; i < j; i, j = i+1, j-1 {
		fs[i], fs[j] = fs[j], fs[i]
	}
	return fs, nil
}

// prefixedFactColumns is factColumns of the table named f.
var prefixedFactColumns = func() string {
	cols := strings.Split(factColumns, ",")
	for i, c := range cols {
		cols[i] = "f." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}()

// queryFacts runs a query selecting factColumns.
func (s *Store) queryFacts(ctx context.Context, bankID, query string, args ...any) ([]*memory.Fact, error) {
	rows, err := s.rdb.QueryContext(ctx, query, args...)
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

// MarkEntities implements memory.EntityTimelines: an upsert that keeps
// the larger seq.
func (s *Store) MarkEntities(ctx context.Context, bankID, pass string, marks []memory.EntityMark) error {
	if err := memory.CheckMarks(pass, marks); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		for _, m := range marks {
			if _, err := tx.ExecContext(ctx, `INSERT INTO entity_marks (bank_id, pass, entity_id, seq, at) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (bank_id, pass, entity_id) DO UPDATE SET seq = max(seq, excluded.seq), at = excluded.at`,
				bankID, pass, m.EntityID, m.Seq, toMicro(m.At)); err != nil {
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
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	fs, err := s.queryFacts(ctx, bankID, `SELECT `+factColumns+` FROM facts INDEXED BY facts_unscored
		WHERE bank_id = ? AND importance_scored_at IS NULL AND status = 'active' ORDER BY seq LIMIT ?`, bankID, limit)
	if err != nil {
		return nil, fmt.Errorf("unscored facts: %w", err)
	}
	return fs, nil
}

// SetImportance implements memory.ImportanceScores in one write
// transaction.
func (s *Store) SetImportance(ctx context.Context, bankID string, scores map[string]float64, at time.Time) error {
	if err := memory.CheckImportance(scores); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		for id, v := range scores {
			if _, err := tx.ExecContext(ctx, `UPDATE facts SET importance = ?, importance_scored_at = ? WHERE bank_id = ? AND id = ?`,
				v, at.UnixMicro(), bankID, id); err != nil {
				return fmt.Errorf("importance of %s: %w", id, err)
			}
		}
		return nil
	})
}
