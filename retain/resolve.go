package retain

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/id"
	"github.com/mnemo-ai/mnemo/memory"
)

// Defaults of the LLM write path (DESIGN §4 steps 6–8).
const (
	// DefaultConflictSimilarity is the cosine from which an active fact is
	// a conflict candidate of a new one (Robothor: 0.7).
	DefaultConflictSimilarity = 0.7
	// DefaultConflictCandidates is how many similar facts the judge sees
	// per new fact.
	DefaultConflictCandidates = 5
	// DefaultEntitySimilarity is the cosine of name embeddings from which
	// a new name of a type is taken as a known entity of that type.
	DefaultEntitySimilarity = 0.9
	// DefaultSemanticLinkSimilarity is the cosine from which a new fact is
	// linked to an existing one as a semantic neighbour.
	DefaultSemanticLinkSimilarity = 0.8
)

// Judge classifies new facts against similar existing ones; extract.Judge
// is the LLM implementation.
type Judge interface {
	Classify(ctx context.Context, cs []extract.Conflict) ([]extract.Decision, error)
}

// resolution is what the LLM path decided for a prepared batch.
type resolution struct {
	// ents maps an extracted entity's normalised name to the id of the
	// stored or new entity it is: one name is one entity, whatever type
	// its mentions give it.
	ents map[string]string
	// vecs are the embeddings of new entities' names.
	vecs map[string][]float32
	// aliases are the spellings under which a known entity was found.
	aliases map[string][]string
	// superseded maps a new fact id to the existing facts it closes.
	superseded map[string][]string
	// duplicateOf maps a dropped new fact's id to the existing fact it
	// repeats.
	duplicateOf map[string]string
	// neighbours are existing facts similar to a new one, with the cosine.
	neighbours map[string][]memory.Hit
	// current are the current edges read with the conflict candidates,
	// by (subject, predicate): relations closes the edges as the judge
	// saw them, so that a writer that lost the race for one (closed by
	// another since) fails on the store's close constraint instead of
	// adding a second current edge.
	current map[[2]string][]*memory.Relation
}

// resolveEntities maps every extracted entity's name to an entity id: the
// entity known under that normalised name or alias, whatever its type,
// else the closest known entity of the name's type by name embedding
// (cosine ≥ EntitySimilarity), else a new entity. A name's type is the
// best its mentions give (see memory.BetterType). Names are embedded in one
// batch.
func (p *Pipeline) resolveEntities(ctx context.Context, bank string, xfs []extract.Fact, r *resolution) error {
	r.ents, r.vecs, r.aliases = map[string]string{}, map[string][]float32{}, map[string][]string{}
	var norms []string // first-seen order
	spelling := map[string]string{}
	types := map[string]memory.EntityType{}
	for _, xf := range xfs {
		for _, e := range xf.Entities {
			norm := memory.NormalizeName(e.Name)
			if norm == "" {
				continue
			}
			if _, ok := spelling[norm]; !ok {
				spelling[norm] = e.Name
				norms = append(norms, norm)
			}
			types[norm] = memory.BetterType(types[norm], entityType(e.Type))
		}
	}
	if len(norms) == 0 {
		return nil
	}
	known, err := p.Store.EntitiesByName(ctx, bank, slices.Sorted(slices.Values(norms)))
	if err != nil && memory.ErrorCode(err) != memory.ENOTFOUND {
		return fmt.Errorf("resolve entities: %w", err)
	}
	byName := map[string]string{}
	for _, e := range known {
		for _, n := range append([]string{e.Name}, e.Aliases...) {
			norm := memory.NormalizeName(n)
			// An entity of this very name wins over one known by it as an alias.
			if _, ok := byName[norm]; !ok || e.ID == memory.EntityID(norm) {
				byName[norm] = e.ID
			}
		}
	}
	var open []string
	for _, norm := range norms {
		if eid, ok := byName[norm]; ok {
			r.ents[norm] = eid
			continue
		}
		open = append(open, norm)
	}
	if len(open) == 0 {
		return nil
	}
	texts := make([]string, len(open))
	for i, norm := range open {
		texts[i] = spelling[norm]
	}
	vecs, err := p.Embedder.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("embed entity names: %w", err)
	}
	if len(vecs) != len(open) {
		return memory.Errorf(memory.EINTERNAL, "embedder returned %d vectors for %d names", len(vecs), len(open))
	}
	for i, norm := range open {
		hits, err := p.Store.SimilarEntities(ctx, bank, types[norm], vecs[i], 1, p.entitySimilarity())
		if err != nil && memory.ErrorCode(err) != memory.ENOTFOUND {
			return fmt.Errorf("resolve entities: %w", err)
		}
		if len(hits) > 0 {
			eid := hits[0].Entity.ID
			r.ents[norm] = eid
			r.aliases[eid] = append(r.aliases[eid], spelling[norm])
			continue
		}
		eid := memory.EntityID(norm)
		r.ents[norm] = eid
		r.vecs[eid] = vecs[i]
	}
	return nil
}

func (p *Pipeline) entitySimilarity() float64 {
	if p.EntitySimilarity > 0 {
		return p.EntitySimilarity
	}
	return DefaultEntitySimilarity
}

// relationEnd returns the entity id a relation's subject or object names:
// the entity of that name, else a new entity of type thing, which it adds
// to the fact's entities so it is stored.
func (r *resolution) relationEnd(xf *extract.Fact, name string) string {
	norm := memory.NormalizeName(name)
	if eid, ok := r.ents[norm]; ok {
		return eid
	}
	eid := memory.EntityID(name)
	r.ents[norm] = eid
	xf.Entities = append(xf.Entities, extract.Entity{Name: name, Type: memory.EntityThing, Confidence: 1})
	return eid
}

// resolveConflicts classifies the batch's facts against similar active
// facts with one Judge call, then drops the duplicates (reinforcing what
// they repeat) and supersedes what updates and contradictions replace,
// each only where the tiers allow it (lastsAsLong).
// Candidates of a new fact are its nearest active facts at cosine ≥
// ConflictSimilarity, and the facts supporting a current relation with
// the same subject and predicate as one the new fact states: "likes Hoka"
// is judged against "likes Nike" however far apart their embeddings are.
// The facts of oldDoc, the version of the item being replaced, are no
// candidates. It returns the surviving facts, aligned with their
// extracted facts.
func (p *Pipeline) resolveConflicts(ctx context.Context, b *memory.WriteBatch, xfs []extract.Fact, r *resolution, oldDoc string, now time.Time) ([]extract.Fact, error) {
	r.superseded, r.neighbours, r.duplicateOf = map[string][]string{}, map[string][]memory.Hit{}, map[string]string{}
	r.current = map[[2]string][]*memory.Relation{}
	k := p.ConflictCandidates
	if k <= 0 {
		k = DefaultConflictCandidates
	}
	minSim := p.ConflictSimilarity
	if minSim <= 0 {
		minSim = DefaultConflictSimilarity
	}
	all := memory.Filter{Sensitive: true}
	var conflicts []extract.Conflict
	var at []int // index in b.Facts of each conflict
	for i, f := range b.Facts {
		if f.Status == memory.StatusQuarantined {
			continue // held back: it neither supersedes nor repeats what the bank knows
		}
		hits, err := p.Store.SearchVector(ctx, b.BankID, f.Embedding, k, all)
		if err != nil && memory.ErrorCode(err) != memory.ENOTFOUND {
			return nil, fmt.Errorf("conflict candidates: %w", err)
		}
		var ids []string
		found := map[string]bool{} // the hits, active when searched
		for _, h := range hits {
			if h.Score >= minSim {
				ids = append(ids, h.ID)
				found[h.ID] = true
				r.neighbours[f.ID] = append(r.neighbours[f.ID], h)
			}
		}
		for _, rel := range xfs[i].Relations {
			s, ok := r.ents[memory.NormalizeName(rel.Subject)]
			if !ok {
				continue
			}
			key := [2]string{s, rel.Predicate}
			cur, seen := r.current[key]
			if !seen {
				cur, err = p.Store.Relations(ctx, b.BankID, memory.RelationQuery{SubjectID: s, Predicate: rel.Predicate, Current: true})
				if err != nil && memory.ErrorCode(err) != memory.ENOTFOUND {
					return nil, fmt.Errorf("conflict candidates: %w", err)
				}
				r.current[key] = cur
			}
			for _, c := range cur {
				ids = append(ids, c.FactIDs...)
			}
		}
		ids = uniq(ids)
		if len(ids) == 0 {
			continue
		}
		cands, err := p.Store.Facts(ctx, b.BankID, ids)
		if err != nil {
			return nil, fmt.Errorf("conflict candidates: %w", err)
		}
		// A hit that is no longer active was superseded (or archived)
		// by another writer since the search: what replaced it, which the
		// search may not have found, is what this fact is to be judged
		// against. Judged without it, the fact would stand beside it, a
		// second current fact: the item is resolved again instead.
		for _, c := range cands {
			if found[c.ID] && c.Status != memory.StatusActive && (oldDoc == "" || c.DocumentID != oldDoc) {
				return nil, memory.FactSupersededMeanwhile(c.ID, c.Status)
			}
		}
		// The facts of the version this document replaces go with it: they
		// can be neither reinforced nor superseded.
		cands = slices.DeleteFunc(cands, func(c *memory.Fact) bool {
			return c.Status != memory.StatusActive || (oldDoc != "" && c.DocumentID == oldDoc)
		})
		if len(cands) > 2*k {
			cands = cands[:2*k]
		}
		if len(cands) > 0 {
			conflicts = append(conflicts, extract.Conflict{Fact: f, Candidates: cands})
			at = append(at, i)
		}
	}
	if len(conflicts) == 0 {
		return xfs, nil
	}
	decisions, err := p.Judge.Classify(ctx, conflicts)
	if err != nil {
		return nil, err
	}
	drop := map[int]bool{}
	closed := map[string]bool{}
	for n, d := range decisions {
		i := at[n]
		f := b.Facts[i]
		old := candidate(conflicts[n], d.Existing)
		switch {
		case d.Action == extract.ActionDuplicate && lastsAsLong(old, f):
			drop[i] = true
			r.duplicateOf[f.ID] = d.Existing
			if !slices.Contains(b.Reinforce, d.Existing) {
				b.Reinforce = append(b.Reinforce, d.Existing)
			}
		case d.Action.Supersedes() && !closed[d.Existing] && lastsAsLong(f, old):
			closed[d.Existing] = true
			validTo := f.OccurredStart
			if validTo.IsZero() {
				validTo = f.EventTime()
			}
			b.Supersede = append(b.Supersede, memory.Supersession{FactID: d.Existing, SupersededBy: f.ID, ValidTo: validTo, ExpiredAt: now})
			r.superseded[f.ID] = append(r.superseded[f.ID], d.Existing)
		}
	}
	if len(drop) == 0 {
		return xfs, nil
	}
	var facts []*memory.Fact
	var kept []extract.Fact
	renum := map[int]int{}
	for i, f := range b.Facts {
		if !drop[i] {
			renum[i] = len(facts)
			facts = append(facts, f)
			kept = append(kept, xfs[i])
		}
	}
	for i := range kept {
		var cs []extract.Cause
		for _, c := range kept[i].Causes {
			if to, ok := renum[c.Fact]; ok {
				cs = append(cs, extract.Cause{Fact: to, Kind: c.Kind})
			}
		}
		kept[i].Causes = cs
	}
	b.Facts = facts
	return kept, nil
}

// candidate returns the candidate of c with id, or nil.
func candidate(c extract.Conflict, id string) *memory.Fact {
	for _, x := range c.Candidates {
		if x.ID == id {
			return x
		}
	}
	return nil
}

// lastsAsLong reports whether fact a lives at least as long as b
// (memory.CompareLifetime), a nil fact counting as long-term. It keeps
// the conflict decisions from losing memory to short-term facts, which
// the expire pass may prune: a new fact is dropped as a duplicate only
// of a fact that lives at least as long (a short-term repeat of a
// long-term fact reinforces it; a long-term repeat of a short-term fact
// is stored), and supersedes only a fact that does not outlive it (a
// short-term update never closes a long-term fact: both stay, each in
// its tier).
func lastsAsLong(a, b *memory.Fact) bool {
	return a == nil || b == nil || memory.CompareLifetime(a, b) >= 0
}

// relations upserts the relations the batch's facts state, with their
// four timestamps. An edge already current with the same subject,
// predicate and object gains the fact as support. A current edge with the
// same subject and predicate but another object is closed (valid_to = the
// new edge's start, expired_at = now) when one of its supporting facts is
// superseded by the fact stating the new edge, and its subject is marked
// contradicted: "I love Nike shoes" → "these Hokas are incredible". Each
// close is also listed in the batch's RelationCloses, which the store
// holds to "closed once": a writer that closes an edge another writer
// closed since this one read it fails with memory.ErrRelationClosed, and
// RetainWith resolves the item again.
func (p *Pipeline) relations(ctx context.Context, b *memory.WriteBatch, xfs []extract.Fact, r *resolution, now time.Time) error {
	byID := map[string]*memory.Relation{}
	var order []string
	put := func(rel *memory.Relation) {
		if _, ok := byID[rel.ID]; !ok {
			order = append(order, rel.ID)
		}
		byID[rel.ID] = rel
	}
	current := map[[2]string][]*memory.Relation{}
	for i := range xfs {
		f := b.Facts[i]
		for _, x := range xfs[i].Relations {
			s, o := r.relationEnd(&xfs[i], x.Subject), r.relationEnd(&xfs[i], x.Object)
			key := [2]string{s, x.Predicate}
			cur, ok := current[key]
			if !ok {
				if cur, ok = r.current[key]; ok { // as the judge saw them
					current[key] = cur
				}
			}
			if !ok {
				got, err := p.Store.Relations(ctx, b.BankID, memory.RelationQuery{SubjectID: s, Predicate: x.Predicate, Current: true})
				if err != nil && memory.ErrorCode(err) != memory.ENOTFOUND {
					return fmt.Errorf("relations: %w", err)
				}
				cur = got
				current[key] = cur
			}
			start := f.OccurredStart
			if start.IsZero() {
				start = f.EventTime()
			}
			var same *memory.Relation
			var closed []string
			for _, c := range cur {
				if c2, ok := byID[c.ID]; ok {
					c = c2
				}
				if !c.ExpiredAt.IsZero() {
					continue
				}
				if c.ObjectID == o {
					same = c
					continue
				}
				if closes(c, r.superseded[f.ID]) {
					cl := *c
					cl.ValidTo, cl.ExpiredAt = start, now
					put(&cl)
					closed = append(closed, c.ID)
					if !slices.Contains(b.Contradicted, s) {
						b.Contradicted = append(b.Contradicted, s)
					}
				}
			}
			// The edges closed are closed by the edge this fact states:
			// the store lets each be closed once (RelationCloses).
			closeBy := func(by string) {
				for _, c := range closed {
					b.RelationCloses = append(b.RelationCloses, memory.RelationClose{ClosedID: c, ByID: by, At: now})
				}
			}
			if same != nil {
				u := *same
				u.FactIDs = uniq(append(slices.Clone(same.FactIDs), f.ID))
				u.Confidence = max(u.Confidence, x.Confidence)
				put(&u)
				closeBy(u.ID)
				continue
			}
			rel := &memory.Relation{
				ID: id.Derive("rel", start, b.BankID, s, x.Predicate, o, f.ID), BankID: b.BankID,
				SubjectID: s, Predicate: x.Predicate, ObjectID: o, Confidence: x.Confidence,
				FactIDs: []string{f.ID}, ValidFrom: start, CreatedAt: now,
			}
			put(rel)
			closeBy(rel.ID)
			current[key] = append(current[key], rel)
		}
	}
	for _, rid := range order {
		b.Relations = append(b.Relations, byID[rid])
	}
	return nil
}

// closes reports whether an edge is supported by one of the facts a new
// fact supersedes.
func closes(rel *memory.Relation, superseded []string) bool {
	for _, f := range rel.FactIDs {
		if slices.Contains(superseded, f) {
			return true
		}
	}
	return false
}

// extraLinks adds the links the LLM path knows beyond the document's own
// chain: semantic neighbours among existing facts and the causal links of
// extraction.
func (p *Pipeline) extraLinks(b *memory.WriteBatch, xfs []extract.Fact, r *resolution) {
	minSim := p.SemanticLinkSimilarity
	if minSim <= 0 {
		minSim = DefaultSemanticLinkSimilarity
	}
	superseded := map[string]bool{}
	for _, s := range b.Supersede {
		superseded[s.FactID] = true
	}
	for _, f := range b.Facts {
		for _, h := range r.neighbours[f.ID] {
			if h.Score >= minSim && !slices.Contains(b.Reinforce, h.ID) {
				b.Links = append(b.Links,
					memory.Link{BankID: b.BankID, FromID: f.ID, ToID: h.ID, Kind: memory.LinkSemantic, Weight: h.Score},
					memory.Link{BankID: b.BankID, FromID: h.ID, ToID: f.ID, Kind: memory.LinkSemantic, Weight: h.Score})
			}
		}
	}
	for i, xf := range xfs {
		for _, c := range xf.Causes {
			if c.Fact < 0 || c.Fact >= len(b.Facts) || !causal(c.Kind) {
				continue
			}
			b.Links = append(b.Links, memory.Link{BankID: b.BankID, FromID: b.Facts[i].ID, ToID: b.Facts[c.Fact].ID, Kind: c.Kind, Weight: 1})
		}
	}
}

func causal(k memory.LinkKind) bool {
	switch k {
	case memory.LinkCauses, memory.LinkCausedBy, memory.LinkEnables, memory.LinkPrevents:
		return true
	}
	return false
}

// uniq returns ids without repeats, in first-seen order.
func uniq(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := ids[:0:0]
	for _, s := range ids {
		if s = strings.TrimSpace(s); s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
