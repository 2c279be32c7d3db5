package sqlite

import (
	"context"
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
	res, err := s.wdb.ExecContext(ctx, `UPDATE banks SET settings = ? WHERE id = ?`, settings, bankID)
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
}
