package storetest

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// The memStore's API keys: a store-wide map by id beside the banks (keys
// are not bank data, so DeleteBank leaves them), looked up by hash with a
// scan. Stored keys are never changed in place: a revoke stores a copy.

// CreateKey implements memory.Keys.
func (s *memStore) CreateKey(_ context.Context, k *memory.Key) error {
	if err := k.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.keys[k.ID]; ok {
		return memory.Errorf(memory.ECONFLICT, "key %s already exists", k.ID)
	}
	for _, o := range s.keys {
		if o.Hash == k.Hash {
			return memory.Errorf(memory.ECONFLICT, "a key with the same secret already exists")
		}
	}
	if s.keys == nil {
		s.keys = map[string]*memory.Key{}
	}
	c := *k
	c.CreatedAt, c.ExpiresAt, c.RevokedAt = memory.StoreTime(k.CreatedAt), storeTimeOrZero(k.ExpiresAt), storeTimeOrZero(k.RevokedAt)
	s.keys[k.ID] = &c
	return nil
}

// storeTimeOrZero is memory.StoreTime, keeping the zero time zero.
func storeTimeOrZero(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return memory.StoreTime(t)
}

// KeyByHash implements memory.Keys.
func (s *memStore) KeyByHash(_ context.Context, hash string) (*memory.Key, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range s.keys {
		if k.Hash == hash {
			c := *k
			return &c, nil
		}
	}
	return nil, memory.Errorf(memory.ENOTFOUND, "no such key")
}

// Keys implements memory.Keys.
func (s *memStore) Keys(_ context.Context, bank string) ([]*memory.Key, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*memory.Key
	for _, k := range s.keys {
		if bank == "" || k.Bank == bank {
			c := *k
			out = append(out, &c)
		}
	}
	slices.SortFunc(out, func(a, b *memory.Key) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// RevokeKey implements memory.Keys.
func (s *memStore) RevokeKey(_ context.Context, id string, at time.Time) (*memory.Key, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, ok := s.keys[id]
	if !ok {
		return nil, memory.Errorf(memory.ENOTFOUND, "no key %s", id)
	}
	c := *k
	if c.RevokedAt.IsZero() {
		c.RevokedAt = memory.StoreTime(at)
		s.keys[id] = &c
	}
	out := c
	return &out, nil
}
