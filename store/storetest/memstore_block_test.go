package storetest

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.Blocks = (*memStore)(nil)

// blockNotFound is the ENOTFOUND error of a block that is not stored.
func blockNotFound(name string) error {
	return memory.Errorf(memory.ENOTFOUND, "no block %q", name)
}

// Block implements memory.Blocks.
func (s *memStore) Block(_ context.Context, bankID, name string) (*memory.Block, error) {
	return with(s, bankID, func(b *memBank) (*memory.Block, error) {
		blk, ok := b.blocks[name]
		if !ok {
			return nil, blockNotFound(name)
		}
		c := *blk
		return &c, nil
	})
}

// Blocks implements memory.Blocks.
func (s *memStore) Blocks(_ context.Context, bankID string) ([]*memory.Block, error) {
	return with(s, bankID, func(b *memBank) ([]*memory.Block, error) {
		var out []*memory.Block
		for _, name := range slices.Sorted(maps.Keys(b.blocks)) {
			c := *b.blocks[name]
			out = append(out, &c)
		}
		return out, nil
	})
}

// EditBlock implements memory.Blocks under the store's lock.
func (s *memStore) EditBlock(_ context.Context, bankID, name string, e memory.BlockEdit) (*memory.Block, error) {
	return with(s, bankID, func(b *memBank) (*memory.Block, error) {
		nb, err := memory.ApplyBlockEdit(bankID, name, b.blocks[name], e)
		if err != nil {
			return nil, err
		}
		s.putBlock(bankID, nb)
		c := *nb
		return &c, nil
	})
}

// ReadBlock implements memory.Blocks.
func (s *memStore) ReadBlock(_ context.Context, bankID, name string, at time.Time) (*memory.Block, error) {
	return with(s, bankID, func(b *memBank) (*memory.Block, error) {
		blk, ok := b.blocks[name]
		if !ok {
			return nil, blockNotFound(name)
		}
		c := *blk
		c.Reads++
		c.LastReadAt = memory.StoreTime(at)
		s.putBlock(bankID, &c)
		out := c
		return &out, nil
	})
}

// DeleteBlock implements memory.Blocks.
func (s *memStore) DeleteBlock(_ context.Context, bankID, name string) error {
	_, err := with(s, bankID, func(b *memBank) (struct{}, error) {
		if _, ok := b.blocks[name]; !ok {
			return struct{}{}, blockNotFound(name)
		}
		nb := b.clone()
		delete(nb.blocks, name)
		s.banks[bankID] = nb
		return struct{}{}, nil
	})
	return err
}

// putBlock stores blk in a copy of its bank (banks are never changed in
// place: Export reads one without the lock); the caller holds s.mu.
func (s *memStore) putBlock(bankID string, blk *memory.Block) {
	nb := s.banks[bankID].clone()
	if nb.blocks == nil {
		nb.blocks = map[string]*memory.Block{}
	}
	nb.blocks[blk.Name] = blk
	s.banks[bankID] = nb
}
