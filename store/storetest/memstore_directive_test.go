package storetest

import (
	"context"
	"slices"
	"strings"

	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.Directives = (*memStore)(nil)

func directiveNotFound(id string) error {
	return memory.Errorf(memory.ENOTFOUND, "no directive %q", id)
}

func copyDirective(d *memory.Directive) *memory.Directive {
	c := *d
	c.Scopes = slices.Clone(d.Scopes)
	return &c
}

// CreateDirective implements memory.Directives.
func (s *memStore) CreateDirective(_ context.Context, d *memory.Directive) error {
	if err := memory.ValidateDirective(d); err != nil {
		return err
	}
	_, err := with(s, d.BankID, func(b *memBank) (struct{}, error) {
		if _, ok := b.directives[d.ID]; ok {
			return struct{}{}, memory.Errorf(memory.ECONFLICT, "directive %s already exists", d.ID)
		}
		if b.directives == nil {
			b.directives = map[string]*memory.Directive{}
		}
		b.directives[d.ID] = copyDirective(d)
		return struct{}{}, nil
	})
	return err
}

// Directive implements memory.Directives.
func (s *memStore) Directive(_ context.Context, bankID, id string) (*memory.Directive, error) {
	return with(s, bankID, func(b *memBank) (*memory.Directive, error) {
		d, ok := b.directives[id]
		if !ok {
			return nil, directiveNotFound(id)
		}
		return copyDirective(d), nil
	})
}

// ListDirectives implements memory.Directives.
func (s *memStore) ListDirectives(_ context.Context, bankID string) ([]*memory.Directive, error) {
	return with(s, bankID, func(b *memBank) ([]*memory.Directive, error) {
		var out []*memory.Directive
		for _, d := range b.directives {
			out = append(out, copyDirective(d))
		}
		slices.SortFunc(out, func(a, b *memory.Directive) int {
			if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		})
		return out, nil
	})
}

// UpdateDirective implements memory.Directives.
func (s *memStore) UpdateDirective(_ context.Context, d *memory.Directive) error {
	if err := memory.ValidateDirective(d); err != nil {
		return err
	}
	_, err := with(s, d.BankID, func(b *memBank) (struct{}, error) {
		cur, ok := b.directives[d.ID]
		if !ok {
			return struct{}{}, directiveNotFound(d.ID)
		}
		n := copyDirective(d)
		n.CreatedAt = cur.CreatedAt
		b.directives[d.ID] = n
		return struct{}{}, nil
	})
	return err
}

// DeleteDirective implements memory.Directives.
func (s *memStore) DeleteDirective(_ context.Context, bankID, id string) error {
	_, err := with(s, bankID, func(b *memBank) (struct{}, error) {
		if _, ok := b.directives[id]; !ok {
			return struct{}{}, directiveNotFound(id)
		}
		delete(b.directives, id)
		return struct{}{}, nil
	})
	return err
}
