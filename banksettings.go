package mnemo

import (
	"context"

	"github.com/mnemo-ai/mnemo/memory"
)

// UpdateBank replaces the settings of the bank named name (disposition,
// mission, background, overrides; see memory.BankSettings) and returns the
// bank as stored. Settings out of range are EINVALID and change nothing;
// an unknown bank is ENOTFOUND. To change one field, read the bank, change
// the field in its Settings and pass them all back.
func (e *Engine) UpdateBank(ctx context.Context, name string, s memory.BankSettings) (*memory.Bank, error) {
	name = defaultBank(name)
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if _, _, err := consolidationSettings(s, e.runnerCfg); err != nil {
		return nil, err
	}
	if err := e.store.SetBankSettings(ctx, name, s); err != nil {
		return nil, err
	}
	return e.store.Bank(ctx, name)
}

// ChangeBank reads the settings of the bank named name, lets change edit
// them and stores them (see UpdateBank): for a caller that changes some
// fields and keeps the others. Two changes in this process never lose
// each other's fields; the engine holds a lock from the read to the
// write.
func (e *Engine) ChangeBank(ctx context.Context, name string, change func(*memory.BankSettings)) (*memory.Bank, error) {
	name = defaultBank(name)
	e.settingsMu.Lock()
	defer e.settingsMu.Unlock()
	b, err := e.store.Bank(ctx, name)
	if err != nil {
		return nil, err
	}
	s := b.Settings
	change(&s)
	return e.UpdateBank(ctx, name, s)
}
