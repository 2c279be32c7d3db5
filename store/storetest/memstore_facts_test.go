package storetest

import (
	"cmp"
	"context"
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

var (
	_ memory.FactLister = (*memStore)(nil)
	_ memory.Lifecycle  = (*memStore)(nil)
)

// ListFacts implements memory.FactLister by brute force: every fact of
// the bank, filtered, newest first.
func (s *memStore) ListFacts(_ context.Context, bankID string, q memory.FactQuery) (*memory.FactPage, error) {
	q, err := q.Validate()
	if err != nil {
		return nil, err
	}
	after, err := q.AfterSeq()
	if err != nil {
		return nil, err
	}
	return with(s, bankID, func(b *memBank) (*memory.FactPage, error) {
		var all []*memory.Fact
		for _, f := range b.facts {
			if (after == 0 || f.Seq < after) && matchesFactQuery(f, q) && (q.Source == "" || b.sourceOf(f.DocumentID) == q.Source) {
				c := *f
				c.Embedding = nil
				all = append(all, &c)
			}
		}
		slices.SortFunc(all, func(a, b *memory.Fact) int { return cmp.Compare(b.Seq, a.Seq) })
		page := &memory.FactPage{Facts: all}
		if len(all) > q.Limit {
			page.Facts = all[:q.Limit]
			page.Next = q.NextCursor(page.Facts[q.Limit-1].Seq)
		}
		return page, nil
	})
}

// matchesFactQuery is FactQuery's contract spelled out.
func matchesFactQuery(f *memory.Fact, q memory.FactQuery) bool {
	status := f.Status
	if status == "" {
		status = memory.StatusActive
	}
	et := f.EventTime()
	switch {
	case len(q.Kinds) > 0 && !slices.Contains(q.Kinds, f.Kind),
		len(q.Categories) > 0 && !slices.Contains(q.Categories, f.Category),
		len(q.Statuses) > 0 && !slices.Contains(q.Statuses, status),
		len(q.Tags) > 0 && !slices.ContainsFunc(f.Tags, func(t string) bool { return slices.Contains(q.Tags, t) }),
		q.Speaker != "" && f.Speaker != q.Speaker,
		!q.From.IsZero() && (et.IsZero() || et.Before(q.From)),
		!q.To.IsZero() && (et.IsZero() || !et.Before(q.To)),
		!q.ExpiresBy.IsZero() && !f.ExpiresBy(q.ExpiresBy):
		return false
	}
	return true
}

// ListEntities implements memory.FactLister.
func (s *memStore) ListEntities(_ context.Context, bankID string, q memory.EntityQuery) (*memory.EntityPage, error) {
	q, err := q.Validate()
	if err != nil {
		return nil, err
	}
	after, err := q.AfterID()
	if err != nil {
		return nil, err
	}
	return with(s, bankID, func(b *memBank) (*memory.EntityPage, error) {
		var all []*memory.Entity
		for _, e := range b.entities {
			if (after == "" || e.ID > after) && (q.Type == "" || e.Type == q.Type) {
				c := *e
				c.Aliases = slices.Clone(e.Aliases)
				all = append(all, &c)
			}
		}
		slices.SortFunc(all, func(a, b *memory.Entity) int { return cmp.Compare(a.ID, b.ID) })
		page := &memory.EntityPage{Entities: all}
		if len(all) > q.Limit {
			page.Entities = all[:q.Limit]
			page.Next = q.NextCursor(page.Entities[q.Limit-1].ID)
		}
		return page, nil
	})
}

// SetFactStatus implements memory.Lifecycle on a copy of the bank,
// swapped in on success.
func (s *memStore) SetFactStatus(_ context.Context, bankID string, ids []string, to memory.Status) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.get(bankID)
	if err != nil {
		return nil, err
	}
	current := map[string]memory.Status{}
	for _, id := range ids {
		if f, ok := b.facts[id]; ok {
			current[id] = f.Status
		}
	}
	changed, err := memory.PlanTransition(ids, current, to)
	if err != nil || len(changed) == 0 {
		return changed, err
	}
	nb := b.clone()
	for _, id := range changed {
		c := *nb.facts[id]
		c.Status = to
		nb.facts[id] = &c
	}
	s.banks[bankID] = nb
	return changed, nil
}

// sourceOf is the source of the item a document belongs to: its own, or
// the item's whose superseded version it was.
func (b *memBank) sourceOf(doc string) string {
	if d := b.docs[doc]; d != nil {
		return d.Source
	}
	for k, docs := range b.versions {
		if slices.Contains(docs, doc) {
			return k[0]
		}
	}
	return ""
}
