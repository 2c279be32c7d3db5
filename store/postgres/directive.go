package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/memory"
)

// Directives (memory.Directives): one row each in directives (migration
// 021), apart from facts; scopes is a text array.

var _ memory.Directives = (*Store)(nil)

const directiveColumns = `id, text, scopes, created_at, updated_at`

// scanDirective reads a row of directiveColumns.
func scanDirective(bank string, r pgx.Row) (*memory.Directive, error) {
	d := memory.Directive{BankID: bank}
	var created, updated time.Time
	if err := r.Scan(&d.ID, &d.Text, &d.Scopes, &created, &updated); err != nil {
		return nil, err
	}
	if len(d.Scopes) == 0 {
		d.Scopes = nil
	}
	d.CreatedAt, d.UpdatedAt = created.UTC(), updated.UTC()
	return &d, nil
}

// scopesParam is a directive's scopes as a text[] parameter, never NULL.
func scopesParam(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// directive reads a stored directive; ENOTFOUND, checking the bank, if
// there is none.
func directive(ctx context.Context, q querier, bank, id string) (*memory.Directive, error) {
	d, err := scanDirective(bank, q.QueryRow(ctx, `SELECT `+directiveColumns+` FROM directives WHERE bank_id = $1 AND id = $2`, bank, id))
	if errors.Is(err, pgx.ErrNoRows) {
		if err := requireBank(ctx, q, bank); err != nil {
			return nil, err
		}
		return nil, memory.Errorf(memory.ENOTFOUND, "no directive %q", id)
	}
	if err != nil {
		return nil, fmt.Errorf("directive %s: %w", id, err)
	}
	return d, nil
}

// CreateDirective implements memory.Directives.
func (s *Store) CreateDirective(ctx context.Context, d *memory.Directive) error {
	if err := memory.ValidateDirective(d); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO directives (bank_id, `+directiveColumns+`) VALUES ($1, $2, $3, $4, $5, $6)`,
		d.BankID, d.ID, d.Text, scopesParam(d.Scopes), ts(d.CreatedAt), ts(d.UpdatedAt))
	switch {
	case isCode(err, "23505"):
		return memory.Errorf(memory.ECONFLICT, "directive %s already exists", d.ID)
	case isCode(err, "23503"):
		return memory.UnknownBank(d.BankID)
	case err != nil:
		return fmt.Errorf("create directive %s: %w", d.ID, err)
	}
	return nil
}

// Directive implements memory.Directives.
func (s *Store) Directive(ctx context.Context, bankID, id string) (*memory.Directive, error) {
	return directive(ctx, s.pool, bankID, id)
}

// ListDirectives implements memory.Directives.
func (s *Store) ListDirectives(ctx context.Context, bankID string) ([]*memory.Directive, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+directiveColumns+` FROM directives WHERE bank_id = $1 ORDER BY created_at, id`, bankID)
	if err != nil {
		return nil, fmt.Errorf("directives: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (*memory.Directive, error) { return scanDirective(bankID, r) })
}

// UpdateDirective implements memory.Directives.
func (s *Store) UpdateDirective(ctx context.Context, d *memory.Directive) error {
	if err := memory.ValidateDirective(d); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `UPDATE directives SET text = $3, scopes = $4, updated_at = $5 WHERE bank_id = $1 AND id = $2`,
		d.BankID, d.ID, d.Text, scopesParam(d.Scopes), ts(d.UpdatedAt))
	if err != nil {
		return fmt.Errorf("update directive %s: %w", d.ID, err)
	}
	if tag.RowsAffected() == 0 {
		_, err := directive(ctx, s.pool, d.BankID, d.ID)
		return err
	}
	return nil
}

// DeleteDirective implements memory.Directives.
func (s *Store) DeleteDirective(ctx context.Context, bankID, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM directives WHERE bank_id = $1 AND id = $2`, bankID, id)
	if err != nil {
		return fmt.Errorf("delete directive %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		_, err := directive(ctx, s.pool, bankID, id)
		return err
	}
	return nil
}
