package mnemo

import (
	"context"
	"slices"
	"strings"

	"github.com/mnemo-ai/mnemo/memory"
)

// DefaultAboutFacts is how many facts Engine.About returns when the
// caller gives no limit.
const DefaultAboutFacts = 20

// About returns what a bank knows about the entity named name (by name
// or alias, as retain matched it): the entity, up to limit of its newest
// active facts (0: DefaultAboutFacts; at most memory.MaxPageSize; a
// short-term fact whose time is up and that the expire pass will prune
// is left out, as recall leaves it out) and all
// its relations, both directions, with the other end's name and whether
// the edge is current. An unknown name is ENOTFOUND.
func (e *Engine) About(ctx context.Context, bank, name string, limit int) (*memory.About, error) {
	bank = defaultBank(bank)
	name = strings.TrimSpace(name)
	if err := checkName("name", name); err != nil {
		return nil, err
	}
	switch {
	case limit < 0 || limit > memory.MaxPageSize:
		return nil, memory.Errorf(memory.EINVALID, "limit %d: want 1 to %d (0 for %d)", limit, memory.MaxPageSize, DefaultAboutFacts)
	case limit == 0:
		limit = DefaultAboutFacts
	}
	ent, err := e.resolveEntity(ctx, bank, name)
	if err != nil {
		return nil, err
	}
	a := &memory.About{Entity: ent}
	byEnt, err := e.store.FactsByEntities(ctx, bank, []string{ent.ID}, limit)
	if err != nil {
		return nil, err
	}
	if ids := byEnt[ent.ID]; len(ids) > 0 {
		if a.Facts, err = e.store.Facts(ctx, bank, ids); err != nil {
			return nil, err
		}
		// A short-term memory whose time is up leaves here as it leaves
		// recall (shortterm.go).
		now := e.now()
		a.Facts = slices.DeleteFunc(a.Facts, func(f *memory.Fact) bool { return lapsed(f, now) })
	}
	rels, err := e.store.Relations(ctx, bank, memory.RelationQuery{EntityID: ent.ID})
	if err != nil {
		return nil, err
	}
	var others []string
	for _, r := range rels {
		others = append(others, r.SubjectID, r.ObjectID)
	}
	slices.Sort(others)
	ents, err := e.store.Entities(ctx, bank, slices.Compact(others))
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for _, x := range ents {
		names[x.ID] = x.Name
	}
	for _, r := range rels {
		a.Relations = append(a.Relations, memory.AboutRelation{Relation: r, SubjectName: names[r.SubjectID], ObjectName: names[r.ObjectID], Current: r.ExpiredAt.IsZero()})
	}
	return a, nil
}
