package storetest

import (
	"cmp"
	"context"
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

// The memStore's webhooks: a list per bank, listed oldest first; they
// go with the bank.

// CreateWebhook implements memory.Webhooks.
func (s *memStore) CreateWebhook(_ context.Context, w *memory.Webhook) error {
	if err := memory.ValidateWebhook(w); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.get(w.BankID)
	if err != nil {
		return err
	}
	for _, o := range b.webhooks {
		if o.ID == w.ID {
			return memory.Errorf(memory.ECONFLICT, "webhook %s already exists in bank %q", w.ID, w.BankID)
		}
	}
	c := *w
	c.Events = slices.Clone(w.Events)
	c.CreatedAt = memory.StoreTime(w.CreatedAt)
	b.webhooks = append(b.webhooks, &c)
	return nil
}

// Webhooks implements memory.Webhooks.
func (s *memStore) Webhooks(_ context.Context, bankID string) ([]*memory.Webhook, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.get(bankID)
	if err != nil {
		return nil, err
	}
	out := []*memory.Webhook{}
	for _, w := range b.webhooks {
		c := *w
		c.Events = slices.Clone(w.Events)
		out = append(out, &c)
	}
	slices.SortFunc(out, func(a, b *memory.Webhook) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out, nil
}

// DeleteWebhook implements memory.Webhooks.
func (s *memStore) DeleteWebhook(_ context.Context, bankID, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.get(bankID)
	if err != nil {
		return err
	}
	for i, w := range b.webhooks {
		if w.ID == id {
			b.webhooks = slices.Delete(b.webhooks, i, i+1)
			return nil
		}
	}
	return memory.Errorf(memory.ENOTFOUND, "no webhook %s in bank %q", id, bankID)
}
