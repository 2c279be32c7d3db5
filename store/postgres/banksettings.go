package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mnemo-ai/mnemo/memory"
)

// SetBankSettings implements memory.Store.
func (s *Store) SetBankSettings(ctx context.Context, bankID string, bs memory.BankSettings) error {
	if err := bs.Validate(); err != nil {
		return err
	}
	settings, err := json.Marshal(bs)
	if err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `UPDATE banks SET settings = $2 WHERE id = $1`, bankID, settings)
	if err != nil {
		return fmt.Errorf("set bank %s settings: %w", bankID, err)
	}
	if tag.RowsAffected() == 0 {
		return memory.UnknownBank(bankID)
	}
	return nil
}
