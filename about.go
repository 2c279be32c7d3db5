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

// About is everything a bank knows about one entity (seed 002's
// get_all_about): the entity, its newest active facts and its relations.
type About struct {
	Entity *memory.Entity
	// Facts are active facts that mention the entity, newest first.
	Facts []*memory.Fact
	// Relations are the entity's edges in both directions, current and
	// closed, oldest first.
	Relations []AboutRelation
}

// AboutRelation is one relation of an About with the names of its ends.
type AboutRelation struct {
	Relation    *memory.Relation
	SubjectName string
	ObjectName  string
	// Current is true while the edge is open (no ExpiredAt).
	Current bool
}

// About returns what a bank knows about the entity named name (by name
// or alias, as retain matched it): the entity, up to limit of its newest
// active facts (0: DefaultAboutFacts; at most memory.MaxPageSize) and all
// its relations, both directions, with the other end's name and whether
// the edge is current. An unknown name is ENOTFOUND.
func (e *Engine) About(ctx context.Context, bank, name string, limit int) (*About, error) {
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
	a := &About{Entity: ent}
	byEnt, err := e.store.FactsByEntities(ctx, bank, []string{ent.ID}, limit)
	if err != nil {
		return nil, err
	}
	if ids := byEnt[ent.ID]; len(ids) > 0 {
		if a.Facts, err = e.store.Facts(ctx, bank, ids); err != nil {
			return nil, err
		}
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
		a.Relations = append(a.Relations, AboutRelation{Relation: r, SubjectName: names[r.SubjectID], ObjectName: names[r.ObjectID], Current: r.ExpiredAt.IsZero()})
	}
	return a, nil
}
