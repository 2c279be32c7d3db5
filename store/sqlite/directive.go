package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mnemo-ai/mnemo/memory"
)

// Directives (memory.Directives): one row each in directives (migration
// 021), apart from facts; scopes is a JSON array.

var _ memory.Directives = (*Store)(nil)

const directiveColumns = `id, text, scopes, created_at, updated_at`

// scanDirective reads a row of directiveColumns.
func scanDirective(bank string, r interface{ Scan(...any) error }) (*memory.Directive, error) {
	d := memory.Directive{BankID: bank}
	var scopes string
	var created, updated int64
	if err := r.Scan(&d.ID, &d.Text, &scopes, &created, &updated); err != nil {
		return nil, err
	}
	if err := unmarshalJSON(scopes, &d.Scopes); err != nil {
		return nil, fmt.Errorf("directive %s: scopes: %w", d.ID, err)
	}
	if len(d.Scopes) == 0 {
		d.Scopes = nil
	}
	d.CreatedAt, d.UpdatedAt = fromMicro(created), fromMicro(updated)
	return &d, nil
}

// directive reads a stored directive; ENOTFOUND, checking the bank, if
// there is none.
func directive(ctx context.Context, q queryer, bank, id string) (*memory.Directive, error) {
	d, err := scanDirective(bank, q.QueryRowContext(ctx, `SELECT `+directiveColumns+` FROM directives WHERE bank_id = ? AND id = ?`, bank, id))
	if errors.Is(err, sql.ErrNoRows) {
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
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, d.BankID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO directives (bank_id, `+directiveColumns+`) VALUES (?, ?, ?, ?, ?, ?)`,
			d.BankID, d.ID, d.Text, stringsJSON(d.Scopes), d.CreatedAt.UnixMicro(), d.UpdatedAt.UnixMicro())
		if isConstraint(err) {
			return memory.Errorf(memory.ECONFLICT, "directive %s already exists", d.ID)
		}
		if err != nil {
			return fmt.Errorf("create directive %s: %w", d.ID, err)
		}
		return nil
	})
}

// Directive implements memory.Directives.
func (s *Store) Directive(ctx context.Context, bankID, id string) (*memory.Directive, error) {
	return directive(ctx, s.rdb, bankID, id)
}

// ListDirectives implements memory.Directives.
func (s *Store) ListDirectives(ctx context.Context, bankID string) ([]*memory.Directive, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+directiveColumns+` FROM directives WHERE bank_id = ? ORDER BY created_at, id`, bankID)
	if err != nil {
		return nil, fmt.Errorf("directives: %w", err)
	}
	defer rows.Close()
	var out []*memory.Directive
	for rows.Next() {
		d, err := scanDirective(bankID, rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// UpdateDirective implements memory.Directives.
func (s *Store) UpdateDirective(ctx context.Context, d *memory.Directive) error {
	if err := memory.ValidateDirective(d); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE directives SET text = ?, scopes = ?, updated_at = ? WHERE bank_id = ? AND id = ?`,
			d.Text, stringsJSON(d.Scopes), d.UpdatedAt.UnixMicro(), d.BankID, d.ID)
		if err != nil {
			return fmt.Errorf("update directive %s: %w", d.ID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			_, err := directive(ctx, tx, d.BankID, d.ID)
			return err
		}
		return nil
	})
}

// DeleteDirective implements memory.Directives.
func (s *Store) DeleteDirective(ctx context.Context, bankID, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM directives WHERE bank_id = ? AND id = ?`, bankID, id)
		if err != nil {
			return fmt.Errorf("delete directive %s: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			_, err := directive(ctx, tx, bankID, id)
			return err
		}
		return nil
	})
}

// importDirective adds an exported directive; one of that id already
// stored is ECONFLICT.
func importDirective(ctx context.Context, tx *sql.Tx, bank string, x *memory.ExportDirective) error {
	d := x.Directive(bank)
	if err := memory.ValidateDirective(d); err != nil {
		return memory.Errorf(memory.EINVALID, "import: %s", memory.ErrorMessage(err))
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO directives (bank_id, `+directiveColumns+`) VALUES (?, ?, ?, ?, ?, ?)`,
		bank, d.ID, d.Text, stringsJSON(d.Scopes), d.CreatedAt.UnixMicro(), d.UpdatedAt.UnixMicro())
	if isConstraint(err) {
		return memory.Errorf(memory.ECONFLICT, "import: directive %s already exists", d.ID)
	}
	return err
}
