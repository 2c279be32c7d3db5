package storetest

import (
	"context"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.Promoter = (*memStore)(nil)

// PromoteFacts implements memory.Promoter on a copy of the bank, swapped
// in on success.
func (s *memStore) PromoteFacts(_ context.Context, bankID string, ids []string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.get(bankID)
	if err != nil {
		return nil, err
	}
	nb := b.clone()
	var changed []string
	for _, id := range ids {
		f, ok := nb.facts[id]
		if !ok || !f.ShortTerm() {
			continue // unknown, long-term, or given twice
		}
		c := *f
		c.ExpiresAt = time.Time{}
		nb.facts[id] = &c
		changed = append(changed, id)
	}
	s.banks[bankID] = nb
	return changed, nil
}
