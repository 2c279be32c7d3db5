package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/mnemo-ai/mnemo/memory"
)

// SetBankSettings implements memory.Store.
func (s *Store) SetBankSettings(ctx context.Context, bankID string, bs memory.BankSettings) error {
	if err := bs.Validate(); err != nil {
		return err
	}
	settings, err := marshalJSON(bs)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE banks SET settings = ? WHERE id = ?`, settings, bankID)
		if err != nil {
			return fmt.Errorf("set bank %s settings: %w", bankID, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("set bank %s settings: %w", bankID, err)
		}
		if n == 0 {
			return memory.UnknownBank(bankID)
		}
		return nil
	})
}
