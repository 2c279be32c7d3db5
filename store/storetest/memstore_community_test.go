package storetest

import (
	"cmp"
	"context"
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.Communities = (*memStore)(nil)

// memCommunities is a bank's communities and community mark. It is
// shared by a bank's clones (memBank.clone): only these methods change
// it, under the store's lock.
type memCommunities struct {
	byID map[string]*memory.Community
	mark *memory.GraphMark
}

func (b *memBank) comms() *memCommunities {
	if b.communities == nil {
		b.communities = &memCommunities{byID: map[string]*memory.Community{}}
	}
	return b.communities
}

// Cooccurrences implements memory.Communities.
func (s *memStore) Cooccurrences(_ context.Context, bankID string) ([]memory.Cooccurrence, error) {
	return with(s, bankID, func(b *memBank) ([]memory.Cooccurrence, error) {
		out := []memory.Cooccurrence{}
		for k, n := range b.cooc {
			if n > 0 {
				out = append(out, memory.Cooccurrence{EntityA: k[0], EntityB: k[1], Count: n})
			}
		}
		slices.SortFunc(out, func(x, y memory.Cooccurrence) int {
			return cmp.Or(cmp.Compare(x.EntityA, y.EntityA), cmp.Compare(x.EntityB, y.EntityB))
		})
		return out, nil
	})
}

// GraphMark implements memory.Communities.
func (s *memStore) GraphMark(_ context.Context, bankID string) (memory.GraphMark, error) {
	return with(s, bankID, func(b *memBank) (memory.GraphMark, error) {
		var m memory.GraphMark
		for r := range b.refs {
			m.Refs++
			if f, ok := b.facts[r.FactID]; ok {
				m.Seq = max(m.Seq, f.Seq)
			}
		}
		for _, n := range b.cooc {
			if n > 0 {
				m.Pairs++
				m.Weight += int64(n)
			}
		}
		for _, r := range b.relations {
			m.Relations++
			if r.ExpiredAt.IsZero() {
				m.Open++
			}
		}
		return m, nil
	})
}

// SaveCommunities implements memory.Communities.
func (s *memStore) SaveCommunities(_ context.Context, bankID string, u *memory.CommunityUpdate) error {
	if err := memory.CheckCommunityUpdate(u); err != nil {
		return err
	}
	_, err := with(s, bankID, func(b *memBank) (struct{}, error) {
		cs := b.comms()
		for _, id := range u.Delete {
			delete(cs.byID, id)
		}
		for _, c := range u.Put {
			cs.byID[c.ID] = cloneCommunity(c, bankID)
		}
		if u.Mark != nil {
			m := *u.Mark
			cs.mark = &m
		}
		return struct{}{}, nil
	})
	return err
}

// ListCommunities implements memory.Communities.
func (s *memStore) ListCommunities(_ context.Context, bankID string) ([]*memory.Community, error) {
	return with(s, bankID, func(b *memBank) ([]*memory.Community, error) {
		out := []*memory.Community{}
		for _, c := range b.comms().byID {
			out = append(out, cloneCommunity(c, bankID))
		}
		slices.SortFunc(out, func(x, y *memory.Community) int {
			return cmp.Or(cmp.Compare(len(y.Members), len(x.Members)), cmp.Compare(x.ID, y.ID))
		})
		return out, nil
	})
}

// CommunityMark implements memory.Communities.
func (s *memStore) CommunityMark(_ context.Context, bankID string) (memory.GraphMark, bool, error) {
	var ok bool
	m, err := with(s, bankID, func(b *memBank) (memory.GraphMark, error) {
		if m := b.comms().mark; m != nil {
			ok = true
			return *m, nil
		}
		return memory.GraphMark{}, nil
	})
	return m, ok, err
}

// cloneCommunity copies c with its lists, in bank.
func cloneCommunity(c *memory.Community, bank string) *memory.Community {
	d := *c
	d.BankID = bank
	d.Members = slices.Clone(c.Members)
	d.Representatives = slices.Clone(c.Representatives)
	d.Sources = slices.Clone(c.Sources)
	d.CreatedAt, d.UpdatedAt, d.SummarizedAt = c.CreatedAt.UTC(), c.UpdatedAt.UTC(), c.SummarizedAt.UTC()
	return &d
}
