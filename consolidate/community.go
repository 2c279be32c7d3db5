package consolidate

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/graph/community"
	"gonum.org/v1/gonum/graph/simple"

	"github.com/mnemo-ai/mnemo/internal/id"
	"github.com/mnemo-ai/mnemo/memory"
)

// PassCommunities finds communities of entities on the entity graph
// (co-occurrences and relations), summarises them when an LLM is
// configured, and promotes their representatives to L2 (seed 004,
// "community detection for L2"; no LLM needed; community.go).
const PassCommunities = "communities"

// The numbers of the communities pass. Seed 004 names the method
// (community detection over months of L1 entities, "cuGraph PageRank +
// clustering") and no number; these are the usual ones of Louvain
// modularity and of Graphiti's communities.
const (
	// DefaultCommunityResolution is the Louvain resolution γ: 2. Plain
	// modularity (γ = 1) cannot tell apart communities smaller than
	// about the square root of the graph's edge weight (Fortunato and
	// Barthélemy's resolution limit) and merges them in a large bank; a
	// person's clusters stay small (tens of entities) while the bank
	// grows. On the planted benchmark of 100,000 facts (500 clusters of
	// 20) γ = 1 scores an adjusted Rand index of 0.88, γ = 1.5 0.98,
	// γ = 2 0.998; the planted tests of 4 to 40 entities per cluster
	// score 1 at γ = 2 (no cluster split).
	DefaultCommunityResolution = 2.0
	// DefaultCommunityMinSize is the fewest members a community keeps:
	// 3. Two entities mentioned together are a pair, not a cluster; a
	// lone entity is no community.
	DefaultCommunityMinSize = 3
	// DefaultCommunityRepresentatives is the most representatives a
	// community has: 3, and one per three members below nine (a
	// community of three has one).
	DefaultCommunityRepresentatives = 3
	// DefaultCommunityMinOverlap is the least Jaccard overlap (shared
	// members over members of either) for a community found now to
	// keep the id of one found before: 0.5, more than half of the two
	// together shared. An entity joining or leaving keeps the id; a
	// community split in two halves gives two new ones.
	DefaultCommunityMinOverlap = 0.5
	// DefaultCommunityMaxSummaries bounds the communities summarised in
	// one run, so that one run's LLM calls are bounded: 20. The rest
	// wait for the next run.
	DefaultCommunityMaxSummaries = 20
	// DefaultCommunityRelationWeight is the weight one relation adds to
	// its two entities' edge, times its confidence: 1, as much as one
	// co-occurrence (retain counts the relation's fact as a
	// co-occurrence too, so a related pair weighs about twice a pair
	// only mentioned together once).
	DefaultCommunityRelationWeight = 1.0
	// DefaultCommunitySeed seeds Louvain's random node order, so that
	// the same graph gives the same communities.
	DefaultCommunitySeed = 4
	// DefaultCommunityFactsPerRepresentative is how many of each
	// representative's latest facts the summary prompt shows: 5.
	DefaultCommunityFactsPerRepresentative = 5
	// DefaultCommunityPromptMembers bounds the members the summary
	// prompt names: the 30 heaviest.
	DefaultCommunityPromptMembers = 30
)

// CommunityDefaults holds the numbers of the communities pass, each a
// named default above.
type CommunityDefaults struct {
	Resolution             float64
	MinSize                int
	Representatives        int
	MinOverlap             float64
	MaxSummaries           int
	RelationWeight         float64
	Seed                   uint64
	FactsPerRepresentative int
	PromptMembers          int
}

// NewCommunityDefaults returns the communities pass's defaults.
func NewCommunityDefaults() CommunityDefaults {
	return CommunityDefaults{
		Resolution:             DefaultCommunityResolution,
		MinSize:                DefaultCommunityMinSize,
		Representatives:        DefaultCommunityRepresentatives,
		MinOverlap:             DefaultCommunityMinOverlap,
		MaxSummaries:           DefaultCommunityMaxSummaries,
		RelationWeight:         DefaultCommunityRelationWeight,
		Seed:                   DefaultCommunitySeed,
		FactsPerRepresentative: DefaultCommunityFactsPerRepresentative,
		PromptMembers:          DefaultCommunityPromptMembers,
	}
}

// Validate reports unusable numbers as EINVALID.
func (o CommunityDefaults) Validate() error {
	switch {
	case !(o.Resolution > 0) || math.IsInf(o.Resolution, 0):
		return memory.Errorf(memory.EINVALID, "communities: resolution %v: want a positive number", o.Resolution)
	case o.MinSize < 2:
		return memory.Errorf(memory.EINVALID, "communities: min size %d: want at least 2", o.MinSize)
	case o.Representatives < 1:
		return memory.Errorf(memory.EINVALID, "communities: representatives %d: want at least 1", o.Representatives)
	case !(o.MinOverlap > 0 && o.MinOverlap <= 1):
		return memory.Errorf(memory.EINVALID, "communities: min overlap %v: want more than 0, at most 1", o.MinOverlap)
	case o.MaxSummaries < 0 || o.FactsPerRepresentative < 0 || o.PromptMembers < 1:
		return memory.Errorf(memory.EINVALID, "communities: max summaries %d, facts per representative %d (want 0 or more), prompt members %d (want at least 1)",
			o.MaxSummaries, o.FactsPerRepresentative, o.PromptMembers)
	case !(o.RelationWeight >= 0) || math.IsInf(o.RelationWeight, 0):
		return memory.Errorf(memory.EINVALID, "communities: relation weight %v: want 0 or more", o.RelationWeight)
	}
	return nil
}

// CommunityStore is what the communities pass needs of a store: the
// graph (co-occurrences, relations, the mark), the communities and their
// mark, the representatives and the facts a summary is written from, and
// the tier writes of a promotion.
type CommunityStore interface {
	Cooccurrences(ctx context.Context, bankID string) ([]memory.Cooccurrence, error)
	GraphMark(ctx context.Context, bankID string) (memory.GraphMark, error)
	SaveCommunities(ctx context.Context, bankID string, u *memory.CommunityUpdate) error
	ListCommunities(ctx context.Context, bankID string) ([]*memory.Community, error)
	CommunityMark(ctx context.Context, bankID string) (memory.GraphMark, bool, error)
	Relations(ctx context.Context, bankID string, q memory.RelationQuery) ([]*memory.Relation, error)
	Entities(ctx context.Context, bankID string, ids []string) ([]*memory.Entity, error)
	Facts(ctx context.Context, bankID string, ids []string) ([]*memory.Fact, error)
	FactsByEntities(ctx context.Context, bankID string, entityIDs []string, limit int) (map[string][]string, error)
	ApplyDecay(ctx context.Context, bankID string, u *memory.DecayUpdate) error
}

// CommunityResult counts what one communities pass did.
type CommunityResult struct {
	// Recomputed is 1 when the graph had changed since the last run and
	// the communities were found again, 0 when nothing was read of it.
	Recomputed int
	// Entities and Edges are the graph's, when recomputed.
	Entities, Edges int
	// Communities is how many the bank has after the pass.
	Communities int
	// Created are new communities; Changed kept their id with other
	// members or representatives; Reweighted kept both with other
	// weights; Unchanged were found again as they were; Removed are
	// gone.
	Created, Changed, Reweighted, Unchanged, Removed int
	// Summarised got a summary from the model; SummaryFailed did not (a
	// failed call or a malformed answer: the next run tries again);
	// SummariesDropped lost theirs because a fact it was written from
	// was forgotten or is no longer active.
	Summarised, SummaryFailed, SummariesDropped int
	// Promoted counts representatives promoted to L2.
	Promoted int
	// Changes are the tier changes logged, in the order made.
	Changes []memory.TierChange
}

// Counts is r as a run record's counters.
func (r *CommunityResult) Counts() map[string]int {
	return map[string]int{
		"recomputed": r.Recomputed, "entities": r.Entities, "edges": r.Edges, "communities": r.Communities,
		"created": r.Created, "changed": r.Changed, "reweighted": r.Reweighted, "unchanged": r.Unchanged, "removed": r.Removed,
		"summarised": r.Summarised, "summary_failed": r.SummaryFailed, "summaries_dropped": r.SummariesDropped,
		"promoted": r.Promoted,
	}
}

// StageCommunity is the ChatRequest stage of the community summaries.
const StageCommunity = "community"

// DetectCommunities is the communities pass: it finds the bank's entity
// communities again when the entity graph changed since the last run
// (its [memory.GraphMark] differs from the one stored with the
// communities), and otherwise reads nothing of the graph.
//
// Finding them: the graph's nodes are the entities with an edge; an
// edge's weight is the pair's co-occurrence count plus
// o.RelationWeight × confidence per open relation between them. Louvain
// modularity (gonum's community.Modularize at o.Resolution, seeded with
// o.Seed) splits it; communities of fewer than o.MinSize members are
// dropped. A member's weight is the sum of its edges inside its
// community; its representatives are its heaviest members (the
// stationary weight of a random walk on the community, the undamped
// PageRank seed 004 names). Each community found keeps the id of the
// stored one it overlaps most, when their Jaccard overlap is at least
// o.MinOverlap (greedily, best overlap first); the others get new ids
// and the stored ones no community continues are removed. Only
// communities that differ from the stored ones are written, with the new
// mark, in one SaveCommunities.
//
// Summaries: with llm set, every community whose members changed since
// its summary (or without one) gets a name and a one-paragraph summary
// from the model, written from its members and its representatives'
// latest facts, at most o.MaxSummaries per run; a failed call or a
// malformed answer leaves it for the next run. When the graph changed, a
// summary whose source facts were forgotten or are no longer active is
// dropped. Without llm, a community is named after its representatives.
//
// Promotion (seed 004, "promote cluster-representative entities to
// L2"): every representative not in L2 that seed 004's L2 rule admits
// ([ClassifyTier]: L2-eligible type, d.L2MinAge old, d.L1MinEpisodes
// episodes, not contradicted) is promoted to L2 at now, logged with the
// community that put it forward. This runs on every pass, the graph
// changed or not: age is what moves it.
//
// Errors come from the store, d.Validate and o.Validate; the counts so
// far are returned with them.
func DetectCommunities(ctx context.Context, st CommunityStore, llm memory.LLM, bank string, now time.Time, d Defaults, o CommunityDefaults) (*CommunityResult, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	res := &CommunityResult{}
	// The mark is read before the graph: a retain in between leaves a
	// stored mark older than the graph read, so the next run looks
	// again; it never hides a change.
	mark, err := st.GraphMark(ctx, bank)
	if err != nil {
		return res, fmt.Errorf("communities: graph mark: %w", err)
	}
	stored, hasMark, err := st.CommunityMark(ctx, bank)
	if err != nil {
		return res, fmt.Errorf("communities: stored mark: %w", err)
	}
	prev, err := st.ListCommunities(ctx, bank)
	if err != nil {
		return res, fmt.Errorf("communities: %w", err)
	}
	comms := prev
	put := map[string]*memory.Community{} // by id: what this run writes
	u := &memory.CommunityUpdate{}
	if !hasMark || stored != mark {
		res.Recomputed = 1
		g, err := loadEntityGraph(ctx, st, bank, o)
		if err != nil {
			return res, err
		}
		res.Entities, res.Edges = len(g.ids), g.edges
		found := g.detect(o)
		comms, u.Delete = reconcile(prev, found, bank, now, o, res, put)
		if err := dropStaleSummaries(ctx, st, bank, comms, res, put); err != nil {
			return res, err
		}
		u.Mark = &mark
	}
	if err := nameCommunities(ctx, st, bank, comms, put); err != nil {
		return res, err
	}
	if llm != nil {
		if err := summarise(ctx, st, llm, bank, now, comms, o, res, put); err != nil {
			return res, err
		}
	}
	for _, c := range comms {
		if put[c.ID] != nil {
			u.Put = append(u.Put, c)
		}
	}
	if len(u.Put) > 0 || len(u.Delete) > 0 || u.Mark != nil {
		if err := st.SaveCommunities(ctx, bank, u); err != nil {
			return res, fmt.Errorf("communities: save: %w", err)
		}
	}
	res.Communities = len(comms)
	if err := promoteRepresentatives(ctx, st, bank, now, d, comms, res); err != nil {
		return res, err
	}
	return res, nil
}

// entityGraph is the weighted entity graph of a bank, entities numbered
// by their place in ids (sorted, so the numbering and Louvain's order
// are the same for the same graph).
type entityGraph struct {
	ids   []string
	g     *simple.WeightedUndirectedGraph
	edges int
}

// loadEntityGraph reads the co-occurrences and the open relations of
// bank into one weighted graph.
func loadEntityGraph(ctx context.Context, st CommunityStore, bank string, o CommunityDefaults) (*entityGraph, error) {
	pairs, err := st.Cooccurrences(ctx, bank)
	if err != nil {
		return nil, fmt.Errorf("communities: co-occurrences: %w", err)
	}
	rels, err := st.Relations(ctx, bank, memory.RelationQuery{Current: true})
	if err != nil {
		return nil, fmt.Errorf("communities: relations: %w", err)
	}
	w := make(map[[2]string]float64, len(pairs)+len(rels))
	for _, p := range pairs {
		if p.EntityA != p.EntityB && p.Count > 0 {
			w[edgeKey(p.EntityA, p.EntityB)] += float64(p.Count)
		}
	}
	for _, r := range rels {
		c := r.Confidence
		if !(c > 0) || c > 1 {
			c = 1
		}
		if r.SubjectID != r.ObjectID && o.RelationWeight > 0 {
			w[edgeKey(r.SubjectID, r.ObjectID)] += o.RelationWeight * c
		}
	}
	return newEntityGraph(w), nil
}

// newEntityGraph builds the graph of the weighted edges w.
func newEntityGraph(w map[[2]string]float64) *entityGraph {
	seen := map[string]bool{}
	for k := range w {
		seen[k[0]], seen[k[1]] = true, true
	}
	ids := make([]string, 0, len(seen))
	for e := range seen {
		ids = append(ids, e)
	}
	slices.Sort(ids)
	index := make(map[string]int64, len(ids))
	g := simple.NewWeightedUndirectedGraph(0, 0)
	for i, e := range ids {
		index[e] = int64(i)
		g.AddNode(simple.Node(i))
	}
	keys := make([][2]string, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	for _, k := range keys {
		g.SetWeightedEdge(g.NewWeightedEdge(simple.Node(index[k[0]]), simple.Node(index[k[1]]), w[k]))
	}
	return &entityGraph{ids: ids, g: g, edges: len(keys)}
}

func edgeKey(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

// found is one community as Louvain found it: its members heaviest
// first, its representatives and its internal weight.
type found struct {
	members []memory.CommunityMember
	reps    []string
	weight  float64
}

// detect splits the graph with Louvain and returns the communities of
// at least o.MinSize members, largest first (then by first member id).
func (eg *entityGraph) detect(o CommunityDefaults) []found {
	if len(eg.ids) == 0 {
		return nil
	}
	r := community.Modularize(eg.g, o.Resolution, rand.NewPCG(o.Seed, o.Seed))
	var out []found
	for _, nodes := range r.Communities() {
		if len(nodes) < o.MinSize {
			continue
		}
		in := make(map[int64]bool, len(nodes))
		for _, n := range nodes {
			in[n.ID()] = true
		}
		f := found{}
		for _, n := range nodes {
			var w float64
			to := eg.g.From(n.ID())
			for to.Next() {
				v := to.Node().ID()
				if in[v] {
					ew, _ := eg.g.Weight(n.ID(), v)
					w += ew
				}
			}
			f.members = append(f.members, memory.CommunityMember{EntityID: eg.ids[n.ID()], Weight: w})
			f.weight += w
		}
		f.weight /= 2 // every inner edge counted from both ends
		slices.SortFunc(f.members, func(a, b memory.CommunityMember) int {
			return cmp.Or(cmp.Compare(b.Weight, a.Weight), cmp.Compare(a.EntityID, b.EntityID))
		})
		n := min(o.Representatives, max(1, len(f.members)/3))
		for _, m := range f.members[:n] {
			f.reps = append(f.reps, m.EntityID)
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b found) int {
		return cmp.Or(cmp.Compare(len(b.members), len(a.members)), cmp.Compare(minMember(a), minMember(b)))
	})
	return out
}

func minMember(f found) string {
	m := f.members[0].EntityID
	for _, x := range f.members {
		m = min(m, x.EntityID)
	}
	return m
}

// reconcile matches the communities found to the stored ones prev by
// member overlap (see [DetectCommunities]) and returns the bank's
// communities after the run, with the ids of the stored ones that go;
// every community it creates or changes is in put.
func reconcile(prev []*memory.Community, fs []found, bank string, now time.Time, o CommunityDefaults, res *CommunityResult, put map[string]*memory.Community) ([]*memory.Community, []string) {
	matched := MatchCommunities(memberSets(prev), foundSets(fs), o.MinOverlap)
	var out []*memory.Community
	kept := map[string]bool{}
	for i, f := range fs {
		j := matched[i]
		if j < 0 {
			// The id derives from the time and every member: a stored
			// community with the same members would have matched.
			c := &memory.Community{
				ID: id.Derive("com", now, append([]string{bank}, foundSets([]found{f})[0]...)...), BankID: bank,
				Members: f.members, Representatives: f.reps, Weight: f.weight, CreatedAt: now, UpdatedAt: now,
			}
			res.Created++
			put[c.ID] = c
			out = append(out, c)
			continue
		}
		old := prev[j]
		kept[old.ID] = true
		c := *old
		c.Members, c.Representatives, c.Weight = f.members, f.reps, f.weight
		switch {
		case !sameMembers(old.Members, f.members) || !slices.Equal(old.Representatives, f.reps):
			c.UpdatedAt = now
			res.Changed++
			put[c.ID] = &c
		case !sameWeights(old, &c):
			res.Reweighted++
			put[c.ID] = &c
		default:
			res.Unchanged++
		}
		out = append(out, &c)
	}
	var gone []string
	for _, c := range prev {
		if !kept[c.ID] {
			gone = append(gone, c.ID)
		}
	}
	res.Removed = len(gone)
	return out, gone
}

// MatchCommunities pairs each community of found (a list of member ids)
// with the community of prev it continues, greedily: the pairs are taken
// by Jaccard overlap (shared members over members of either), best
// first (ties: more shared members, then the earlier of found, then of
// prev), each community of either side at most once, and only pairs
// with an overlap of at least minOverlap. It returns, per community of
// found, the index in prev it continues, or -1.
func MatchCommunities(prev, found [][]string, minOverlap float64) []int {
	owner := map[string][]int{} // entity → the prev communities holding it
	for j, ms := range prev {
		for _, m := range ms {
			owner[m] = append(owner[m], j)
		}
	}
	type pair struct {
		i, j   int
		shared int
		score  float64
	}
	var pairs []pair
	for i, ms := range found {
		shared := map[int]int{}
		for _, m := range ms {
			for _, j := range owner[m] {
				shared[j]++
			}
		}
		for j, n := range shared {
			score := float64(n) / float64(len(ms)+len(prev[j])-n)
			if score >= minOverlap {
				pairs = append(pairs, pair{i, j, n, score})
			}
		}
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(b.shared, a.shared), cmp.Compare(a.i, b.i), cmp.Compare(a.j, b.j))
	})
	out := make([]int, len(found))
	for i := range out {
		out[i] = -1
	}
	taken := map[int]bool{}
	for _, p := range pairs {
		if out[p.i] < 0 && !taken[p.j] {
			out[p.i] = p.j
			taken[p.j] = true
		}
	}
	return out
}

func memberSets(cs []*memory.Community) [][]string {
	out := make([][]string, len(cs))
	for i, c := range cs {
		for _, m := range c.Members {
			out[i] = append(out[i], m.EntityID)
		}
	}
	return out
}

func foundSets(fs []found) [][]string {
	out := make([][]string, len(fs))
	for i, f := range fs {
		for _, m := range f.members {
			out[i] = append(out[i], m.EntityID)
		}
	}
	return out
}

// sameMembers reports whether a and b hold the same entities.
func sameMembers(a, b []memory.CommunityMember) bool {
	if len(a) != len(b) {
		return false
	}
	in := make(map[string]bool, len(a))
	for _, m := range a {
		in[m.EntityID] = true
	}
	for _, m := range b {
		if !in[m.EntityID] {
			return false
		}
	}
	return true
}

// sameWeights reports whether a and b, with the same members, have the
// same weights and order.
func sameWeights(a, b *memory.Community) bool {
	if !same(a.Weight, b.Weight) {
		return false
	}
	for i := range a.Members {
		if a.Members[i].EntityID != b.Members[i].EntityID || !same(a.Members[i].Weight, b.Members[i].Weight) {
			return false
		}
	}
	return true
}

// dropStaleSummaries drops the summaries of comms written from a fact
// that is gone or no longer active (forgotten, superseded, archived).
func dropStaleSummaries(ctx context.Context, st CommunityStore, bank string, comms []*memory.Community, res *CommunityResult, put map[string]*memory.Community) error {
	var ids []string
	for _, c := range comms {
		if c.Summary != "" {
			ids = append(ids, c.Sources...)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	live := map[string]bool{}
	for chunk := range slices.Chunk(ids, memory.MaxPageSize) {
		fs, err := st.Facts(ctx, bank, chunk)
		if err != nil {
			return fmt.Errorf("communities: summary sources: %w", err)
		}
		for _, f := range fs {
			live[f.ID] = f.Status == "" || f.Status == memory.StatusActive
		}
	}
	for i, c := range comms {
		if c.Summary == "" || !slices.ContainsFunc(c.Sources, func(s string) bool { return !live[s] }) {
			continue
		}
		d := *c
		d.Summary, d.Sources, d.SummarizedAt, d.Name = "", nil, time.Time{}, ""
		comms[i] = &d
		put[d.ID] = &d
		res.SummariesDropped++
	}
	return nil
}

// nameCommunities names every community of put that has no summary
// after its representatives ("Priya, Bangalore, yoga").
func nameCommunities(ctx context.Context, st CommunityStore, bank string, comms []*memory.Community, put map[string]*memory.Community) error {
	var reps []string
	for _, c := range comms {
		if put[c.ID] != nil && c.Summary == "" {
			reps = append(reps, c.Representatives...)
		}
	}
	if len(reps) == 0 {
		return nil
	}
	names, err := entityNames(ctx, st, bank, reps)
	if err != nil {
		return err
	}
	for _, c := range comms {
		if put[c.ID] == nil || c.Summary != "" {
			continue
		}
		var parts []string
		for _, r := range c.Representatives {
			if n := names[r]; n != "" {
				parts = append(parts, n)
			}
		}
		c.Name = strings.Join(parts, ", ")
	}
	return nil
}

// entityNames reads the entities of ids and returns them by id.
func entityNames(ctx context.Context, st CommunityStore, bank string, ids []string) (map[string]string, error) {
	es, err := entities(ctx, st, bank, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(es))
	for _, e := range es {
		out[e.ID] = e.Name
	}
	return out, nil
}

// entities reads the entities of ids, a page at a time.
func entities(ctx context.Context, st CommunityStore, bank string, ids []string) ([]*memory.Entity, error) {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	var out []*memory.Entity
	for chunk := range slices.Chunk(ids, memory.MaxPageSize) {
		es, err := st.Entities(ctx, bank, chunk)
		if err != nil {
			return nil, fmt.Errorf("communities: entities: %w", err)
		}
		out = append(out, es...)
	}
	return out, nil
}

// summarise asks llm for the name and summary of every community whose
// members changed since its summary, at most o.MaxSummaries, the
// largest first.
func summarise(ctx context.Context, st CommunityStore, llm memory.LLM, bank string, now time.Time, comms []*memory.Community, o CommunityDefaults, res *CommunityResult, put map[string]*memory.Community) error {
	asked := 0
	for _, c := range comms {
		if asked >= o.MaxSummaries {
			break
		}
		if !c.SummarizedAt.IsZero() && !c.SummarizedAt.Before(c.UpdatedAt) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		asked++
		name, summary, sources, err := askCommunity(ctx, st, llm, bank, c, o)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if !isModelError(err) {
				return err
			}
			res.SummaryFailed++
			continue
		}
		c.Name, c.Summary, c.Sources, c.SummarizedAt = name, summary, sources, now
		put[c.ID] = c
		res.Summarised++
	}
	return nil
}

// modelError marks an error of the model's call, not of the store.
type modelError struct{ err error }

func (e *modelError) Error() string { return e.err.Error() }
func (e *modelError) Unwrap() error { return e.err }

func isModelError(err error) bool {
	var m *modelError
	return errors.As(err, &m)
}

// askCommunity makes one call for c: its members (the heaviest
// o.PromptMembers, with their types) and its representatives' latest
// facts. It returns the name, the summary and the facts shown.
func askCommunity(ctx context.Context, st CommunityStore, llm memory.LLM, bank string, c *memory.Community, o CommunityDefaults) (string, string, []string, error) {
	var ids []string
	for _, m := range c.Members[:min(len(c.Members), o.PromptMembers)] {
		ids = append(ids, m.EntityID)
	}
	es, err := entities(ctx, st, bank, ids)
	if err != nil {
		return "", "", nil, err
	}
	byID := make(map[string]*memory.Entity, len(es))
	for _, e := range es {
		byID[e.ID] = e
	}
	var facts []*memory.Fact
	if o.FactsPerRepresentative > 0 {
		refs, err := st.FactsByEntities(ctx, bank, c.Representatives, o.FactsPerRepresentative)
		if err != nil {
			return "", "", nil, fmt.Errorf("communities: representatives' facts: %w", err)
		}
		var fids []string
		for _, r := range c.Representatives {
			for _, f := range refs[r] {
				if !slices.Contains(fids, f) {
					fids = append(fids, f)
				}
			}
		}
		if len(fids) > 0 {
			if facts, err = st.Facts(ctx, bank, fids); err != nil {
				return "", "", nil, fmt.Errorf("communities: representatives' facts: %w", err)
			}
		}
	}
	var b strings.Builder
	b.WriteString("ENTITIES (most connected first):\n")
	for _, id := range ids {
		if e := byID[id]; e != nil {
			fmt.Fprintf(&b, "- %s (%s)", e.Name, e.Type)
			if slices.Contains(c.Representatives, id) {
				b.WriteString(" [central]")
			}
			b.WriteByte('\n')
		}
	}
	if n := len(c.Members) - len(ids); n > 0 {
		fmt.Fprintf(&b, "- … and %d more\n", n)
	}
	var sources []string
	if len(facts) > 0 {
		b.WriteString("\nFACTS ABOUT THE CENTRAL ENTITIES:\n")
		for _, f := range facts {
			fmt.Fprintf(&b, "- %s\n", f.Body())
			sources = append(sources, f.ID)
		}
	}
	resp, err := llm.Chat(ctx, &memory.ChatRequest{
		Stage:    StageCommunity,
		System:   communitySystem,
		Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: b.String()}},
		Schema:   &memory.Schema{Name: "community_summary", Description: "a name and a one-paragraph summary of a community of entities", JSON: json.RawMessage(communitySchema)},
	})
	if err != nil {
		return "", "", nil, &modelError{fmt.Errorf("community summary: %w", err)}
	}
	var ans struct {
		Name    string `json:"name"`
		Summary string `json:"summary"`
	}
	if err := json.Unmarshal(resp.JSON, &ans); err != nil {
		return "", "", nil, &modelError{memory.Errorf(memory.EINVALID, "community summary: malformed answer")}
	}
	ans.Name, ans.Summary = strings.TrimSpace(ans.Name), strings.TrimSpace(ans.Summary)
	if ans.Name == "" || ans.Summary == "" || len(ans.Name) > memory.MaxCommunitySummaryBytes || len(ans.Summary) > memory.MaxCommunitySummaryBytes {
		return "", "", nil, &modelError{memory.Errorf(memory.EINVALID, "community summary: malformed answer: empty or too long")}
	}
	return ans.Name, ans.Summary, sources, nil
}

// communitySystem is the community summary's instructions (Graphiti
// summarises a community from its members' summaries; here from its
// members and its central entities' facts).
const communitySystem = `You describe a cluster of entities from a person's long-term memory: people, places, habits, topics and things that keep coming up together.

Give the cluster a short name (two to five words) and write one paragraph (two to four sentences) on what ties these entities together and what it says about the person: a lasting pattern, not a list. Use only what the entities and facts say; do not invent details.`

// communitySchema is the JSON Schema of the community summary's answer.
const communitySchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["name", "summary"],
  "properties": {
    "name": {"type": "string"},
    "summary": {"type": "string"}
  }
}`

// promoteRepresentatives promotes to L2 the representatives of comms
// that seed 004's L2 rule admits, in one ApplyDecay.
func promoteRepresentatives(ctx context.Context, st CommunityStore, bank string, now time.Time, d Defaults, comms []*memory.Community, res *CommunityResult) error {
	by := map[string]*memory.Community{}
	var reps []string
	for _, c := range comms {
		for _, r := range c.Representatives {
			if by[r] == nil {
				by[r] = c
				reps = append(reps, r)
			}
		}
	}
	if len(reps) == 0 {
		return nil
	}
	es, err := entities(ctx, st, bank, reps)
	if err != nil {
		return err
	}
	u := &memory.DecayUpdate{}
	for _, e := range es {
		if e.Tier == memory.TierPattern {
			continue
		}
		tier, why := ClassifyTier(e, now, d)
		if tier != memory.TierPattern {
			continue
		}
		from := e.Tier
		if from == "" {
			from = memory.TierEpisodic
		}
		c := by[e.ID]
		u.Entities = append(u.Entities, memory.EntityDecay{ID: e.ID, Salience: e.Salience, Tier: memory.TierPattern})
		u.Changes = append(u.Changes, memory.TierChange{EntityID: e.ID, From: from, To: memory.TierPattern,
			Reason: fmt.Sprintf("representative of community %s (%s); %s", c.ID, c.Name, why), At: now})
	}
	if len(u.Entities) == 0 {
		return nil
	}
	if err := st.ApplyDecay(ctx, bank, u); err != nil {
		return fmt.Errorf("communities: promote: %w", err)
	}
	res.Promoted += len(u.Entities)
	res.Changes = append(res.Changes, u.Changes...)
	return nil
}

// AdjustedRandIndex is the adjusted Rand index of two labellings of the
// same items (Hubert and Arabie 1985): how far a and b agree on which
// pairs of items go together, 1 for the same partition (whatever the
// label names), about 0 for a partition no better than chance, negative
// for worse. The communities tests score detected communities against
// planted ones with it. Two partitions that leave nothing to compare
// (every item alone in both, or all together in both) score 1. Labels
// of different lengths, or fewer than two items, are EINVALID.
func AdjustedRandIndex(a, b []int) (float64, error) {
	if len(a) != len(b) {
		return 0, memory.Errorf(memory.EINVALID, "adjusted Rand index: %d labels against %d", len(a), len(b))
	}
	if len(a) < 2 {
		return 0, memory.Errorf(memory.EINVALID, "adjusted Rand index: %d items, want at least 2", len(a))
	}
	pairs := func(n int) float64 { return float64(n) * float64(n-1) / 2 }
	cells := map[[2]int]int{}
	rows, cols := map[int]int{}, map[int]int{}
	for i := range a {
		cells[[2]int{a[i], b[i]}]++
		rows[a[i]]++
		cols[b[i]]++
	}
	var index, sumRows, sumCols float64
	for _, n := range cells {
		index += pairs(n)
	}
	for _, n := range rows {
		sumRows += pairs(n)
	}
	for _, n := range cols {
		sumCols += pairs(n)
	}
	expected := sumRows * sumCols / pairs(len(a))
	most := (sumRows + sumCols) / 2
	if most == expected {
		return 1, nil
	}
	return (index - expected) / (most - expected), nil
}
