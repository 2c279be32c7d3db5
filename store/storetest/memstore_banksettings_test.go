package storetest

import (
	"context"

	"github.com/mnemo-ai/mnemo/memory"
)

func (s *memStore) SetBankSettings(_ context.Context, bankID string, bs memory.BankSettings) error {
	if err := bs.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.get(bankID)
	if err != nil {
		return err
	}
	b.bank.Settings = bs
	return nil
}
