package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/sqlite/internal/mirror"
)

var (
	_ memory.FactLister = (*Store)(nil)
	_ memory.Lifecycle  = (*Store)(nil)
)

// ListFacts implements memory.FactLister: one indexed walk down the
// bank's Seq, every filter in SQL.
func (s *Store) ListFacts(ctx context.Context, bankID string, q memory.FactQuery) (*memory.FactPage, error) {
	q, err := q.Validate()
	if err != nil {
		return nil, err
	}
	after, err := q.AfterSeq()
	if err != nil {
		return nil, err
	}
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	var b strings.Builder
	args := []any{bankID}
	b.WriteString(`SELECT ` + factColumns + ` FROM facts f`)
	if !q.ExpiresBy.IsZero() {
		// The short-term facts whose time is up are few among many: find
		// them by facts_expires (migration 015) and sort them, rather than
		// walk the whole bank down facts_seq, which the planner prefers
		// once a cursor bounds seq.
		b.WriteString(` INDEXED BY facts_expires`)
	}
	b.WriteString(` WHERE f.bank_id = ?`)
	if after > 0 {
		b.WriteString(` AND f.seq < ?`)
		args = append(args, after)
	}
	anyOf := func(col string, values []string) {
		if len(values) > 0 {
			b.WriteString(` AND ` + col + ` IN (SELECT value FROM json_each(?))`)
			args = append(args, idList(values))
		}
	}
	anyOf("f.kind", kindStrings(q.Kinds))
	anyOf("f.category", categoryStrings(q.Categories))
	if len(q.Statuses) == 1 {
		// One status: the walk follows facts_bank_status_seq, that
		// status's rows alone (a rare status is found at once).
		b.WriteString(` AND f.status = ?`)
		args = append(args, string(q.Statuses[0]))
	} else {
		anyOf("f.status", statusStrings(q.Statuses))
	}
	if len(q.Tags) > 0 {
		b.WriteString(` AND EXISTS (SELECT 1 FROM json_each(f.tags) t WHERE t.value IN (SELECT value FROM json_each(?)))`)
		args = append(args, idList(q.Tags))
	}
	if q.Speaker != "" {
		b.WriteString(` AND f.speaker = ?`)
		args = append(args, q.Speaker)
	}
	if q.Source != "" {
		b.WriteString(` AND f.document_id IN (SELECT id FROM documents WHERE bank_id = ? AND source = ?
			UNION SELECT document_id FROM item_versions WHERE bank_id = ? AND source = ?)`)
		args = append(args, bankID, q.Source, bankID, q.Source)
	}
	if !q.From.IsZero() {
		b.WriteString(` AND f.event_time >= ?`)
		args = append(args, q.From.UnixMicro())
	}
	if !q.To.IsZero() {
		b.WriteString(` AND f.event_time < ?`)
		args = append(args, q.To.UnixMicro())
	}
	if !q.ExpiresBy.IsZero() {
		b.WriteString(` AND f.expires_at IS NOT NULL AND f.expires_at <= ?`)
		args = append(args, q.ExpiresBy.UnixMicro())
	}
	b.WriteString(` ORDER BY f.seq DESC LIMIT ?`)
	args = append(args, q.Limit+1)
	rows, err := s.rdb.QueryContext(ctx, b.String(), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	facts, err := dbrows.Collect(rows, func(r dbrows.Scanner) (*memory.Fact, error) { return scanFact(bankID, r) })
	if err != nil {
		return nil, err
	}
	return q.Page(facts), nil
}

// ListEntities implements memory.FactLister: a walk down the entities'
// primary key, then Entities for the page's rows and aliases.
func (s *Store) ListEntities(ctx context.Context, bankID string, q memory.EntityQuery) (*memory.EntityPage, error) {
	q, err := q.Validate()
	if err != nil {
		return nil, err
	}
	after, err := q.AfterID()
	if err != nil {
		return nil, err
	}
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	query := `SELECT id FROM entities WHERE bank_id = ? AND id > ?`
	args := []any{bankID, after}
	if q.Type != "" {
		query += ` AND type = ?`
		args = append(args, string(q.Type))
	}
	rows, err := s.rdb.QueryContext(ctx, query+` ORDER BY id LIMIT ?`, append(args, q.Limit+1)...)
	if err != nil {
		return nil, err
	}
	ids, err := scanStrings(rows)
	if err != nil {
		return nil, err
	}
	page := &memory.EntityPage{}
	if len(ids) > q.Limit {
		ids = ids[:q.Limit]
		page.Next = q.NextCursor(ids[q.Limit-1])
	}
	if page.Entities, err = s.Entities(ctx, bankID, ids); err != nil {
		return nil, err
	}
	return page, nil
}

// SetFactStatus implements memory.Lifecycle: the statuses are read, the
// move checked (memory.PlanTransition) and applied in one write
// transaction that also moves the bank's change counter, and the search
// mirror learns the new statuses as it learns a supersession.
func (s *Store) SetFactStatus(ctx context.Context, bankID string, ids []string, to memory.Status) ([]string, error) {
	defer s.mirror.Begin(bankID)()
	if err := memory.SettableStatus(to); err != nil {
		return nil, err
	}
	if err := memory.ValidateStatusIDs(ids); err != nil {
		return nil, err
	}
	var changed []string
	var version int64
	var change mirror.Change
	err := s.write(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT version FROM banks WHERE id = ?`, bankID).Scan(&version)
		if errors.Is(err, sql.ErrNoRows) {
			return memory.UnknownBank(bankID)
		}
		if err != nil {
			return err
		}
		inIDs, args := in(ids, bankID)
		rows, err := tx.QueryContext(ctx, `SELECT id, status FROM facts WHERE bank_id = ? AND id IN `+inIDs, args...)
		if err != nil {
			return err
		}
		current := map[string]memory.Status{}
		for rows.Next() {
			var id, status string
			if err := rows.Scan(&id, &status); err != nil {
				rows.Close()
				return err
			}
			current[id] = memory.Status(status)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if changed, err = memory.PlanTransition(ids, current, to); err != nil || len(changed) == 0 {
			return err
		}
		for _, id := range changed {
			var pk int64
			var expired sql.NullInt64
			if err := tx.QueryRowContext(ctx, `UPDATE facts SET status = ? WHERE bank_id = ? AND id = ? RETURNING pk, expired_at`,
				string(to), bankID, id).Scan(&pk, &expired); err != nil {
				return err
			}
			change.SetStatus(pk, to, fromNullMicro(expired))
		}
		version++
		_, err = tx.ExecContext(ctx, `UPDATE banks SET version = ? WHERE id = ?`, version, bankID)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(changed) > 0 {
		s.mirror.Apply(bankID, version, &change)
	}
	return changed, nil
}

func kindStrings(ks []memory.FactKind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

func categoryStrings(cs []memory.Category) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c)
	}
	return out
}

func statusStrings(ss []memory.Status) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}
