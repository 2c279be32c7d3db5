package mnemo

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// The reads the web console (server/console) needs beyond the API's:
// each is one call over the store's existing capabilities, bank-scoped
// like every other Engine method.

// DefaultZonePerCell is how many entities Engine.Zone keeps per entity
// type and tier when the caller gives no number.
const DefaultZonePerCell = 40

// DefaultZoneTrail is how many tier changes Engine.Zone returns.
const DefaultZoneTrail = 200

// Zone is seed 004's "memory zone" of a bank: its entities by type (the
// swim lanes) and tier (the depth bands), the most salient of each cell,
// with the tier stats and the newest tier changes (the promotion and
// demotion trail).
type Zone struct {
	// Stats are the tier stats (Engine.Tiers).
	Stats *memory.TierStats
	// LowSalience is the salience under which an entity counts as low
	// salience in Stats: the bank's setting.
	LowSalience float64
	// Entities are the most salient entities of each (type, tier) cell,
	// at most perCell each, ordered by type, then tier, then salience
	// (highest first), then id.
	Entities []*memory.Entity
	// Counts counts every entity of each type and tier, shown or not.
	Counts map[memory.EntityType]map[memory.Tier]int
	// Trail are the newest tier changes, newest first.
	Trail []memory.TierChange
}

// Zone returns bank's memory zone: every entity is read (a page at a
// time) and counted, and the perCell most salient of each type and tier
// are kept (0: DefaultZonePerCell; negative is EINVALID), with the newest
// DefaultZoneTrail tier changes. An unknown bank is ENOTFOUND.
func (e *Engine) Zone(ctx context.Context, bank string, perCell int) (*Zone, error) {
	bank = defaultBank(bank)
	switch {
	case perCell < 0:
		return nil, memory.Errorf(memory.EINVALID, "per cell %d: want 0 or more", perCell)
	case perCell == 0:
		perCell = DefaultZonePerCell
	}
	d, _, err := e.bankConsolidation(ctx, bank)
	if err != nil {
		return nil, err
	}
	stats, err := e.Tiers(ctx, bank)
	if err != nil {
		return nil, err
	}
	z := &Zone{Stats: stats, LowSalience: d.LowSalience, Counts: map[memory.EntityType]map[memory.Tier]int{}}
	type cell struct {
		t    memory.EntityType
		tier memory.Tier
	}
	cells := map[cell][]*memory.Entity{}
	q := memory.EntityQuery{Limit: memory.MaxPageSize}
	for {
		page, err := e.store.ListEntities(ctx, bank, q)
		if err != nil {
			return nil, err
		}
		for _, en := range page.Entities {
			tier := tierOf(en)
			if z.Counts[en.Type] == nil {
				z.Counts[en.Type] = map[memory.Tier]int{}
			}
			z.Counts[en.Type][tier]++
			c := cell{en.Type, tier}
			cells[c] = append(cells[c], en)
			if len(cells[c]) > 2*perCell {
				cells[c] = topSalient(cells[c], perCell)
			}
		}
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	for _, es := range cells {
		z.Entities = append(z.Entities, topSalient(es, perCell)...)
	}
	slices.SortFunc(z.Entities, func(a, b *memory.Entity) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(memory.TierRank(tierOf(a)), memory.TierRank(tierOf(b))),
			cmp.Compare(b.Salience, a.Salience), cmp.Compare(a.ID, b.ID))
	})
	if z.Trail, err = e.store.TierLog(ctx, bank, DefaultZoneTrail); err != nil {
		return nil, err
	}
	return z, nil
}

// tierOf is an entity's tier; one never classified is L0.
func tierOf(en *memory.Entity) memory.Tier {
	if en.Tier == "" {
		return memory.TierEpisodic
	}
	return en.Tier
}

// topSalient returns the n most salient of es (then by id), in that
// order.
func topSalient(es []*memory.Entity, n int) []*memory.Entity {
	slices.SortFunc(es, func(a, b *memory.Entity) int {
		return cmp.Or(cmp.Compare(b.Salience, a.Salience), cmp.Compare(a.ID, b.ID))
	})
	return slices.Clip(es[:min(n, len(es))])
}

// TierLog returns bank's tier changes (promotions and demotions), newest
// first, at most limit (0: all; negative is EINVALID). An unknown bank is
// ENOTFOUND.
func (e *Engine) TierLog(ctx context.Context, bank string, limit int) ([]memory.TierChange, error) {
	bank = defaultBank(bank)
	if limit < 0 {
		return nil, memory.Errorf(memory.EINVALID, "limit %d: want 0 or more", limit)
	}
	if _, err := e.store.Bank(ctx, bank); err != nil {
		return nil, err
	}
	return e.store.TierLog(ctx, bank, limit)
}

// TimelineQuery selects the facts of a timeline.
type TimelineQuery struct {
	// Facts filters the facts (kinds, categories, tags, speaker, event
	// time, page size); its Statuses and Cursor are ignored.
	Facts memory.FactQuery
	// AsOf, when set, shows the bank as the agent knew it then: the facts
	// mnemo had learned by AsOf (CreatedAt ≤ AsOf) and had not yet learned
	// were no longer true (ExpiredAt after AsOf, or none). Facts forgotten
	// since are gone for good and not shown; a fact invalidated since is
	// shown (the store keeps no time of status changes). Zero is now.
	AsOf time.Time
}

// Timeline is one page of a bank's facts over time.
type Timeline struct {
	// Facts are the facts selected, newest learned first.
	Facts []*memory.Fact
	// Oldest and Newest are when mnemo learned the bank's oldest and
	// newest facts (zero when it has none): the as-of slider's range.
	Oldest, Newest time.Time
	// AsOf is the query's AsOf.
	AsOf time.Time
}

// Timeline returns the facts of bank that q selects, newest learned
// first, at most q.Facts.Limit of them. As of a time, it starts its walk
// at the last fact learned by then (a binary search down the facts'
// ingestion order, which follows their CreatedAt: Seq is assigned at
// insertion) and leaves out the facts mnemo then knew no longer held. The
// search assumes CreatedAt never decreases along Seq, as for everything
// retained; a fact written later with an earlier CreatedAt (an import of
// older data) may be missing from an as-of view. A bad filter is
// EINVALID, an unknown bank ENOTFOUND.
func (e *Engine) Timeline(ctx context.Context, bank string, q TimelineQuery) (*Timeline, error) {
	bank = defaultBank(bank)
	fq := q.Facts
	fq.Statuses, fq.Cursor = nil, ""
	fq, err := fq.Validate()
	if err != nil {
		return nil, err
	}
	out := &Timeline{AsOf: q.AsOf}
	newest, err := e.factAtOrBelow(ctx, bank, 0)
	if err != nil || newest == nil {
		return out, err
	}
	out.Newest = newest.CreatedAt
	if oldest, err := e.oldestFact(ctx, bank, newest.Seq); err != nil {
		return nil, err
	} else if oldest != nil {
		out.Oldest = oldest.CreatedAt
	}
	if !q.AsOf.IsZero() {
		last, err := e.lastLearnedBy(ctx, bank, newest, q.AsOf)
		if err != nil || last == 0 {
			return out, err
		}
		fq.Cursor = fq.NextCursor(last + 1)
	}
	want := fq.Limit
	for {
		page, err := e.store.ListFacts(ctx, bank, fq)
		if err != nil {
			return nil, err
		}
		for _, f := range page.Facts {
			if knownAt(f, q.AsOf) {
				out.Facts = append(out.Facts, f)
			}
			if len(out.Facts) == want {
				return out, nil
			}
		}
		if page.Next == "" {
			return out, nil
		}
		fq.Cursor = page.Next
	}
}

// knownAt reports whether the agent knew f as true at t (zero: now).
func knownAt(f *memory.Fact, t time.Time) bool {
	if t.IsZero() {
		return true
	}
	return !f.CreatedAt.After(t) && (f.ExpiredAt.IsZero() || f.ExpiredAt.After(t))
}

// factAtOrBelow returns bank's fact with the highest Seq ≤ seq (seq 0:
// the newest fact), or nil when there is none.
func (e *Engine) factAtOrBelow(ctx context.Context, bank string, seq int64) (*memory.Fact, error) {
	q := memory.FactQuery{Limit: 1}
	if seq > 0 {
		q.Cursor = q.NextCursor(seq + 1)
	}
	page, err := e.store.ListFacts(ctx, bank, q)
	if err != nil || len(page.Facts) == 0 {
		return nil, err
	}
	return page.Facts[0], nil
}

// oldestFact returns bank's fact of lowest Seq, given its highest.
func (e *Engine) oldestFact(ctx context.Context, bank string, hi int64) (*memory.Fact, error) {
	var best *memory.Fact
	for lo := int64(1); lo <= hi; {
		mid := lo + (hi-lo)/2
		f, err := e.factAtOrBelow(ctx, bank, mid)
		if err != nil {
			return nil, err
		}
		if f == nil {
			lo = mid + 1
			continue
		}
		best, hi = f, f.Seq-1
	}
	return best, nil
}

// lastLearnedBy returns the highest Seq of a fact learned by t (0: none),
// given the newest fact.
func (e *Engine) lastLearnedBy(ctx context.Context, bank string, newest *memory.Fact, t time.Time) (int64, error) {
	if !newest.CreatedAt.After(t) {
		return newest.Seq, nil
	}
	var best int64
	for lo, hi := int64(1), newest.Seq-1; lo <= hi; {
		mid := lo + (hi-lo)/2
		f, err := e.factAtOrBelow(ctx, bank, mid)
		if err != nil {
			return 0, err
		}
		switch {
		case f == nil:
			lo = mid + 1
		case f.CreatedAt.After(t):
			hi = f.Seq - 1
		default:
			best, lo = f.Seq, mid+1
		}
	}
	return best, nil
}

// DefaultEntityFacts is how many facts Engine.EntityHistory reads.
const DefaultEntityFacts = 50

// EntityHistory is an entity with its facts and their history: what the
// entity page of the console shows.
type EntityHistory struct {
	*memory.About
	// Replaced are the older versions of About.Facts: for each fact id,
	// the facts it superseded, newest first (Engine.Fact's Previous).
	Replaced map[string][]*memory.Fact
	// Observations are the bank's observations that cite one of
	// About.Facts or of Replaced.
	Observations []*memory.Observation
	// Community is the entity's community (the communities pass), nil
	// when it is in none.
	Community *memory.Community
}

// maxCitingScan bounds how many observations EntityHistory reads to find
// those citing the entity's facts.
const maxCitingScan = 2000

// EntityHistory returns what bank knows about the entity ref (an id, or
// a name as Engine.About takes it): Engine.About with up to limit facts
// (0: DefaultEntityFacts), each with the versions it replaced, and the
// observations citing any of them (among the newest 2000). An unknown
// entity is ENOTFOUND.
func (e *Engine) EntityHistory(ctx context.Context, bank, ref string, limit int) (*EntityHistory, error) {
	bank = defaultBank(bank)
	if limit == 0 {
		limit = DefaultEntityFacts
	}
	a, err := e.About(ctx, bank, ref, limit)
	if err != nil {
		return nil, err
	}
	h := &EntityHistory{About: a, Replaced: map[string][]*memory.Fact{}}
	cited := map[string]bool{}
	for _, f := range a.Facts {
		cited[f.ID] = true
		d, err := e.Fact(ctx, bank, f.ID)
		if err != nil {
			return nil, err
		}
		if len(d.Previous) > 0 {
			h.Replaced[f.ID] = d.Previous
			for _, p := range d.Previous {
				cited[p.ID] = true
			}
		}
	}
	comms, err := e.communityOf(ctx, bank)
	if err != nil {
		return nil, err
	}
	h.Community = comms[a.Entity.ID]
	obs, err := e.Observations(ctx, bank, maxCitingScan)
	if memory.ErrorCode(err) == memory.EUNAVAILABLE {
		return h, nil // a store without observations: none cite it
	}
	if err != nil {
		return nil, err
	}
	for _, o := range obs {
		if slices.ContainsFunc(o.SourceFactIDs, func(id string) bool { return cited[id] }) {
			h.Observations = append(h.Observations, o)
		}
	}
	return h, nil
}

// DefaultNeighbours is how many neighbours Engine.Neighbourhood returns.
const DefaultNeighbours = 25

// maxNeighbourFacts bounds how many of an entity's facts
// Engine.Neighbourhood reads to count co-occurrences.
const maxNeighbourFacts = 500

// Neighbour is an entity next to another in the graph: the relations
// between them and how many facts mention both.
type Neighbour struct {
	Entity *memory.Entity
	// Relations are the edges between the two, both directions.
	Relations []*memory.Relation
	// Cooccurrences counts the active facts (among the centre's newest
	// 500) that mention both.
	Cooccurrences int
}

// Weight orders neighbours: each relation counts 2, each co-occurrence 1.
func (n Neighbour) Weight() int { return 2*len(n.Relations) + n.Cooccurrences }

// Neighbourhood is an entity with its heaviest neighbours.
type Neighbourhood struct {
	Entity     *memory.Entity
	Neighbours []Neighbour
	// More is how many neighbours were left out.
	More int
	// Communities maps the entity and each neighbour to its community
	// (the communities pass); one in none is absent.
	Communities map[string]*memory.Community
}

// Neighbourhood returns the entity ref (an id or a name) of bank with its
// top neighbours by weight (relations, then co-occurrence in facts), at
// most top (0: DefaultNeighbours; negative is EINVALID), heaviest first,
// then by name. An unknown entity is ENOTFOUND.
func (e *Engine) Neighbourhood(ctx context.Context, bank, ref string, top int) (*Neighbourhood, error) {
	bank = defaultBank(bank)
	switch {
	case top < 0:
		return nil, memory.Errorf(memory.EINVALID, "top %d: want 0 or more", top)
	case top == 0:
		top = DefaultNeighbours
	}
	centre, err := e.resolveEntity(ctx, bank, ref)
	if err != nil {
		return nil, err
	}
	byID := map[string]*Neighbour{}
	at := func(id string) *Neighbour {
		if byID[id] == nil {
			byID[id] = &Neighbour{}
		}
		return byID[id]
	}
	rels, err := e.store.Relations(ctx, bank, memory.RelationQuery{EntityID: centre.ID})
	if err != nil {
		return nil, err
	}
	for _, r := range rels {
		other := r.ObjectID
		if other == centre.ID {
			other = r.SubjectID
		}
		if other != centre.ID {
			n := at(other)
			n.Relations = append(n.Relations, r)
		}
	}
	byEnt, err := e.store.FactsByEntities(ctx, bank, []string{centre.ID}, maxNeighbourFacts)
	if err != nil {
		return nil, err
	}
	if facts := byEnt[centre.ID]; len(facts) > 0 {
		refs, err := e.store.EntityRefs(ctx, bank, facts)
		if err != nil {
			return nil, err
		}
		seen := map[[2]string]bool{}
		for _, r := range refs {
			if k := [2]string{r.FactID, r.EntityID}; r.EntityID != centre.ID && !seen[k] {
				seen[k] = true
				at(r.EntityID).Cooccurrences++
			}
		}
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	ents, err := e.store.Entities(ctx, bank, ids)
	if err != nil {
		return nil, err
	}
	out := &Neighbourhood{Entity: centre}
	for _, en := range ents {
		n := byID[en.ID]
		n.Entity = en
		out.Neighbours = append(out.Neighbours, *n)
	}
	slices.SortFunc(out.Neighbours, func(a, b Neighbour) int {
		return cmp.Or(cmp.Compare(b.Weight(), a.Weight()), cmp.Compare(a.Entity.Name, b.Entity.Name), cmp.Compare(a.Entity.ID, b.Entity.ID))
	})
	if len(out.Neighbours) > top {
		out.More = len(out.Neighbours) - top
		out.Neighbours = out.Neighbours[:top]
	}
	comms, err := e.communityOf(ctx, bank)
	if err != nil {
		return nil, err
	}
	out.Communities = map[string]*memory.Community{}
	for _, en := range append([]*memory.Entity{centre}, neighbourEntities(out.Neighbours)...) {
		if c := comms[en.ID]; c != nil {
			out.Communities[en.ID] = c
		}
	}
	return out, nil
}

// neighbourEntities are the entities of ns.
func neighbourEntities(ns []Neighbour) []*memory.Entity {
	out := make([]*memory.Entity, len(ns))
	for i, n := range ns {
		out[i] = n.Entity
	}
	return out
}

// communityOf maps each entity of bank that is in a community to it.
func (e *Engine) communityOf(ctx context.Context, bank string) (map[string]*memory.Community, error) {
	cs, err := e.Communities(ctx, bank)
	if err != nil {
		return nil, err
	}
	out := map[string]*memory.Community{}
	for i := range cs {
		for _, m := range cs[i].Members {
			out[m.EntityID] = &cs[i]
		}
	}
	return out, nil
}

// RetryJob queues a failed job of bank again, as a new job with the same
// kind and payload (the failed one stays, with its error, in the list),
// and returns the new job. A job that did not fail is ECONFLICT; an
// unknown one ENOTFOUND.
func (e *Engine) RetryJob(ctx context.Context, bank, jobID string) (*memory.Job, error) {
	bank = defaultBank(bank)
	old, err := e.store.Job(ctx, bank, jobID)
	if err != nil {
		return nil, err
	}
	if old.Status != memory.JobFailed {
		return nil, memory.Errorf(memory.ECONFLICT, "job %s is %s: only a failed job can be retried", jobID, old.Status)
	}
	if len(old.Payload) == 0 {
		return nil, memory.Errorf(memory.ECONFLICT, "job %s kept no payload to retry", jobID)
	}
	now := e.now().UTC().Truncate(time.Microsecond)
	j := &memory.Job{ID: newJobID(now, bank), BankID: bank, Kind: old.Kind, Payload: old.Payload, CreatedAt: now}
	if err := e.enqueue(ctx, j); err != nil {
		return nil, err
	}
	return j, nil
}
