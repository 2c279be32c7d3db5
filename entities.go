package mnemo

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/internal/id"
	"github.com/mnemo-ai/mnemo/memory"
)

// MaxNameBytes bounds an entity name, alias or relation predicate given
// by hand.
const MaxNameBytes = 200

// EntityInput is an entity added by hand (seed 002's upsert_entity).
type EntityInput struct {
	Name    string            // required
	Type    memory.EntityType // "" is memory.EntityThing
	Aliases []string
}

// RelationInput is a relation added by hand (seed 002's add_relation).
// Subject and Object name entities by id or by name (or alias); both
// must exist.
type RelationInput struct {
	Subject   string
	Predicate string // e.g. works_at; required
	Object    string
	// Confidence in (0, 1]; 0 means 1.
	Confidence float64
	// ValidFrom is when the relation began to hold; zero means now.
	ValidFrom time.Time
	// FactIDs are facts of the bank that support it; optional, each must
	// exist.
	FactIDs []string
}

// Entities lists a bank's entities by id, a page at a time (see
// memory.FactLister.ListEntities).
func (e *Engine) Entities(ctx context.Context, bank string, q memory.EntityQuery) (*memory.EntityPage, error) {
	return e.store.ListEntities(ctx, defaultBank(bank), q)
}

// Entity returns one entity of a bank by id, or ENOTFOUND.
func (e *Engine) Entity(ctx context.Context, bank, id string) (*memory.Entity, error) {
	bank = defaultBank(bank)
	if id == "" {
		return nil, memory.Errorf(memory.EINVALID, "an entity id is required")
	}
	es, err := e.store.Entities(ctx, bank, []string{id})
	if err != nil {
		return nil, err
	}
	if len(es) == 0 {
		if _, err := e.store.Bank(ctx, bank); err != nil {
			return nil, err
		}
		return nil, memory.Errorf(memory.ENOTFOUND, "no entity %s in bank %q", id, bank)
	}
	return es[0], nil
}

// Relations returns the relations of a bank that match q (see
// memory.Graph.Relations), current and closed unless q.Current.
func (e *Engine) Relations(ctx context.Context, bank string, q memory.RelationQuery) ([]*memory.Relation, error) {
	return e.store.Relations(ctx, defaultBank(bank), q)
}

// UpsertEntity adds an entity by hand, or one more mention to the entity
// of that name (the same rule as retain: memory.MergeEntity), and returns
// it as stored.
func (e *Engine) UpsertEntity(ctx context.Context, bank string, in EntityInput) (*memory.Entity, error) {
	bank = defaultBank(bank)
	name := strings.TrimSpace(in.Name)
	if err := checkName("entity name", name); err != nil {
		return nil, err
	}
	if memory.NormalizeName(name) == "" {
		return nil, memory.Errorf(memory.EINVALID, "entity name %q has no letter or digit", name)
	}
	for _, a := range in.Aliases {
		if err := checkName("alias", strings.TrimSpace(a)); err != nil {
			return nil, err
		}
	}
	if err := checkName("entity type", string(in.Type)); in.Type != "" && err != nil {
		return nil, err
	}
	now := e.now().UTC().Truncate(time.Microsecond)
	ent := memory.Entity{ID: memory.EntityID(name), BankID: bank, Name: name, Type: in.Type, FirstSeen: now, LastSeen: now}
	for _, a := range in.Aliases {
		ent.Aliases = append(ent.Aliases, strings.TrimSpace(a))
	}
	w := &memory.WriteBatch{BankID: bank, Entities: []memory.EntityUpsert{{Entity: ent, Mentions: 1}}}
	if _, err := e.store.Write(ctx, w); err != nil {
		return nil, err
	}
	return e.Entity(ctx, bank, ent.ID)
}

// AddRelation adds a relation between two existing entities by hand and
// returns it. The same relation added again (same ends, predicate and
// start) is the same edge, its confidence and supporting facts
// replaced. Unknown entities or facts are ENOTFOUND.
func (e *Engine) AddRelation(ctx context.Context, bank string, in RelationInput) (*memory.Relation, error) {
	bank = defaultBank(bank)
	pred := strings.TrimSpace(in.Predicate)
	if err := checkName("predicate", pred); err != nil {
		return nil, err
	}
	if in.Confidence < 0 || in.Confidence > 1 {
		return nil, memory.Errorf(memory.EINVALID, "confidence %g: want 0 to 1", in.Confidence)
	}
	subj, err := e.resolveEntity(ctx, bank, in.Subject)
	if err != nil {
		return nil, err
	}
	obj, err := e.resolveEntity(ctx, bank, in.Object)
	if err != nil {
		return nil, err
	}
	if len(in.FactIDs) > 0 {
		fs, err := e.store.Facts(ctx, bank, in.FactIDs)
		if err != nil {
			return nil, err
		}
		found := map[string]bool{}
		for _, f := range fs {
			found[f.ID] = true
		}
		for _, fid := range in.FactIDs {
			if !found[fid] {
				return nil, memory.Errorf(memory.ENOTFOUND, "no fact %s in bank %q", fid, bank)
			}
		}
	}
	now := e.now().UTC().Truncate(time.Microsecond)
	from := in.ValidFrom.UTC().Truncate(time.Microsecond)
	if in.ValidFrom.IsZero() {
		from = now
	}
	conf := in.Confidence
	if conf == 0 {
		conf = 1
	}
	rel := &memory.Relation{
		ID: id.Derive("rel", from, bank, subj.ID, pred, obj.ID), BankID: bank,
		SubjectID: subj.ID, Predicate: pred, ObjectID: obj.ID, Confidence: conf,
		FactIDs: in.FactIDs, ValidFrom: from, CreatedAt: now,
	}
	if _, err := e.store.Write(ctx, &memory.WriteBatch{BankID: bank, Relations: []*memory.Relation{rel}}); err != nil {
		return nil, err
	}
	return rel, nil
}

// resolveEntity finds the entity ref names: an entity id, else a name or
// alias (the entity whose id the name gives first, else the most
// mentioned); ENOTFOUND when none.
func (e *Engine) resolveEntity(ctx context.Context, bank, ref string) (*memory.Entity, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, memory.Errorf(memory.EINVALID, "an entity (id or name) is required")
	}
	es, err := e.store.Entities(ctx, bank, []string{ref})
	if err != nil {
		return nil, err
	}
	if len(es) > 0 {
		return es[0], nil
	}
	if es, err = e.store.EntitiesByName(ctx, bank, []string{memory.NormalizeName(ref)}); err != nil {
		return nil, err
	}
	if best := bestEntity(es, ref); best != nil {
		return best, nil
	}
	if _, err := e.store.Bank(ctx, bank); err != nil {
		return nil, err
	}
	return nil, memory.Errorf(memory.ENOTFOUND, "no entity %q in bank %q", ref, bank)
}

// bestEntity picks among the entities a name matches: the one that name
// is (memory.EntityID), else the most mentioned, then the lowest id.
func bestEntity(es []*memory.Entity, name string) *memory.Entity {
	var best *memory.Entity
	for _, x := range es {
		if x.ID == memory.EntityID(name) {
			return x
		}
		if best == nil || x.MentionCount > best.MentionCount || x.MentionCount == best.MentionCount && x.ID < best.ID {
			best = x
		}
	}
	return best
}

// checkName checks a short name given by hand: not empty, at most
// MaxNameBytes of UTF-8 with no control characters.
func checkName(what, s string) error {
	if s == "" {
		return memory.Errorf(memory.EINVALID, "%s is required", what)
	}
	if len(s) > MaxNameBytes || !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return memory.Errorf(memory.EINVALID, "%s: want at most %d bytes of UTF-8 text without control characters", what, MaxNameBytes)
	}
	return nil
}
