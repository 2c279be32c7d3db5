package postgres

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
	"github.com/mnemo-ai/mnemo/memory"
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
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	var p params
	var b strings.Builder
	b.WriteString(`SELECT ` + factColumns + ` FROM facts f WHERE f.bank_id = ` + p.add(bankID))
	if after > 0 {
		b.WriteString(` AND f.seq < ` + p.add(after))
	}
	anyOf := func(col string, values []string) {
		if len(values) > 0 {
			b.WriteString(` AND ` + col + ` = ANY(` + p.add(values) + `)`)
		}
	}
	anyOf("f.kind", plain(q.Kinds))
	anyOf("f.category", plain(q.Categories))
	anyOf("f.status", plain(q.Statuses))
	if len(q.Tags) > 0 {
		b.WriteString(` AND f.tags && ` + p.add(q.Tags) + `::text[]`)
	}
	if q.Speaker != "" {
		b.WriteString(` AND f.speaker = ` + p.add(q.Speaker))
	}
	if q.Source != "" {
		src := p.add(q.Source)
		b.WriteString(` AND f.document_id IN (SELECT id FROM documents d WHERE d.bank_id = f.bank_id AND d.source = ` + src + `
			UNION SELECT v.document_id FROM item_versions v WHERE v.bank_id = f.bank_id AND v.source = ` + src + `)`)
	}
	if !q.From.IsZero() {
		b.WriteString(` AND f.event_time >= ` + p.add(q.From))
	}
	if !q.To.IsZero() {
		b.WriteString(` AND f.event_time < ` + p.add(q.To))
	}
	if !q.ExpiresBy.IsZero() {
		// facts_expires (migration 014) holds the short-term facts only.
		b.WriteString(` AND f.expires_at IS NOT NULL AND f.expires_at <= ` + p.add(q.ExpiresBy))
	}
	b.WriteString(` ORDER BY f.seq DESC LIMIT ` + p.add(q.Limit+1))
	rows, err := s.pool.Query(ctx, b.String(), p...)
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
// primary key, then Entities for the page.
func (s *Store) ListEntities(ctx context.Context, bankID string, q memory.EntityQuery) (*memory.EntityPage, error) {
	q, err := q.Validate()
	if err != nil {
		return nil, err
	}
	after, err := q.AfterID()
	if err != nil {
		return nil, err
	}
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	var p params
	query := `SELECT id FROM entities WHERE bank_id = ` + p.add(bankID) + ` AND id > ` + p.add(after)
	if q.Type != "" {
		query += ` AND type = ` + p.add(string(q.Type))
	}
	query += ` ORDER BY id LIMIT ` + p.add(q.Limit+1)
	rows, err := s.pool.Query(ctx, query, p...)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	page := &memory.EntityPage{}
	if len(ids) > q.Limit {
		ids = ids[:q.Limit]
		page.Next = q.NextCursor(ids[q.Limit-1])
	}
	if len(ids) > 0 {
		if page.Entities, err = s.Entities(ctx, bankID, ids); err != nil {
			return nil, err
		}
	}
	return page, nil
}

// SetFactStatus implements memory.Lifecycle: the facts are locked and
// read, the move checked (memory.PlanTransition) and applied in one
// transaction that also moves the bank's change counter.
func (s *Store) SetFactStatus(ctx context.Context, bankID string, ids []string, to memory.Status) ([]string, error) {
	if err := memory.SettableStatus(to); err != nil {
		return nil, err
	}
	if err := memory.ValidateStatusIDs(ids); err != nil {
		return nil, err
	}
	var changed []string
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM banks WHERE id = $1 FOR UPDATE`, bankID).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return memory.UnknownBank(bankID)
		}
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT id, status FROM facts WHERE bank_id = $1 AND id = ANY($2) FOR UPDATE`, bankID, ids)
		if err != nil {
			return err
		}
		current := map[string]memory.Status{}
		var id, status string
		if _, err := pgx.ForEachRow(rows, []any{&id, &status}, func() error {
			current[id] = memory.Status(status)
			return nil
		}); err != nil {
			return err
		}
		if changed, err = memory.PlanTransition(ids, current, to); err != nil || len(changed) == 0 {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE facts SET status = $3 WHERE bank_id = $1 AND id = ANY($2)`, bankID, changed, string(to)); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE banks SET version = version + 1 WHERE id = $1`, bankID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return changed, nil
}

// plain spells typed strings as plain ones, for a text[] parameter.
func plain[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}
