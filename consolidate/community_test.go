package consolidate_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestAdjustedRandIndex checks the index against values worked out by
// hand (and printed in scikit-learn's documentation of
// adjusted_rand_score), and its errors.
func TestAdjustedRandIndex(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b []int
		want float64
	}{
		{"Same", []int{0, 0, 1, 1}, []int{0, 0, 1, 1}, 1},
		{"Relabelled", []int{0, 0, 1, 1}, []int{7, 7, 3, 3}, 1},
		// pairs: index 1, rows 2, cols 1, expected 2·1/6 = 1/3, max 1.5
		// → (1 − 1/3) / (1.5 − 1/3) = 4/7.
		{"OneSplit", []int{0, 0, 1, 1}, []int{0, 0, 1, 2}, 4.0 / 7},
		// index 0, rows 2, cols 2, expected 4/6, max 2 → −(2/3)/(4/3).
		{"Crossed", []int{0, 0, 1, 1}, []int{0, 1, 0, 1}, -0.5},
		{"AllTogetherAgainstAlone", []int{0, 0, 0, 0}, []int{0, 1, 2, 3}, 0},
		{"AllAlone", []int{0, 1, 2}, []int{5, 6, 7}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := consolidate.AdjustedRandIndex(c.a, c.b)
			if err != nil || !near(got, c.want, 1e-12) {
				t.Errorf("AdjustedRandIndex(%v, %v): got %v, %v, want %v", c.a, c.b, got, err, c.want)
			}
			if rev, _ := consolidate.AdjustedRandIndex(c.b, c.a); !near(rev, got, 1e-12) {
				t.Errorf("not symmetric: %v against %v", rev, got)
			}
		})
	}
	for _, c := range [][2][]int{{{0, 1}, {0}}, {{0}, {0}}, {nil, nil}} {
		if _, err := consolidate.AdjustedRandIndex(c[0], c[1]); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("AdjustedRandIndex(%v, %v): got error %v, want EINVALID", c[0], c[1], err)
		}
	}
}

// TestMatchCommunities checks that ids follow the best overlap, once,
// and only above the threshold.
func TestMatchCommunities(t *testing.T) {
	prev := [][]string{{"a", "b", "c", "d"}, {"e", "f", "g"}, {"h", "i", "j", "k"}}
	found := [][]string{
		{"e", "f", "g", "x"},      // 3/4 of prev 1
		{"a", "b", "c", "d", "y"}, // 4/5 of prev 0
		{"h", "i"},                // 2/4 of prev 2: exactly the threshold
		{"j", "k", "z", "w"},      // 2/6 of prev 2: below, and prev 2 is taken
	}
	if got, want := consolidate.MatchCommunities(prev, found, 0.5), []int{1, 0, 2, -1}; !slices.Equal(got, want) {
		t.Errorf("MatchCommunities: got %v, want %v", got, want)
	}
	// A community split in two halves continues neither at 0.5.
	if got := consolidate.MatchCommunities([][]string{{"a", "b", "c", "d"}}, [][]string{{"a", "b"}, {"c", "d"}}, 0.51); !slices.Equal(got, []int{-1, -1}) {
		t.Errorf("split: got %v, want no match", got)
	}
}

// plantedBank is a bank of planted clusters of entities, written
// through the store: each fact mentions two or three entities of one
// cluster, and a few mention two of different clusters.
type plantedBank struct {
	t      testing.TB
	ctx    context.Context
	s      memory.Store
	bank   string
	rng    *rand.Rand
	labels map[string]int // entity id → planted cluster
	names  map[string]string
	// ents lists each cluster's entity ids.
	ents  [][]string
	total int // entities
	docs  int
	// old reports whether the i-th entity of a cluster was first seen
	// 200 days before its facts (the first one by default).
	old func(i int) bool
}

// newPlantedBank makes clusters clusters of size entities each in a new
// bank on a SQLite file. The first entity of each cluster is a person
// first seen long ago; the others are topics, places and habits.
func newPlantedBank(t testing.TB, clusters, size int, seed uint64) *plantedBank {
	sizes := make([]int, clusters)
	for i := range sizes {
		sizes[i] = size
	}
	return newPlantedSizes(t, sizes, seed)
}

// newPlantedSizes is newPlantedBank with clusters of the given sizes.
func newPlantedSizes(t testing.TB, sizes []int, seed uint64) *plantedBank {
	s := testutil.OpenStore(t)
	testutil.CreateBank(t, s, "planted")
	p := &plantedBank{t: t, ctx: context.Background(), s: s, bank: "planted", rng: rand.New(rand.NewPCG(seed, seed)),
		labels: map[string]int{}, names: map[string]string{}, old: func(i int) bool { return i == 0 }}
	for c, size := range sizes {
		var ids []string
		for i := range size {
			name := fmt.Sprintf("c%d-e%d", c, i)
			id := memory.EntityID(name)
			p.labels[id], p.names[id] = c, name
			ids = append(ids, id)
			p.total++
		}
		p.ents = append(p.ents, ids)
	}
	return p
}

// entityType is the type the bank gives the i-th entity of a cluster.
func entityType(i int) memory.EntityType {
	return []memory.EntityType{memory.EntityPerson, memory.EntityTopic, memory.EntityPlace, memory.EntityHabit}[i%4]
}

// write writes n facts, at most per to a document, a share cross of
// them linking two clusters, first seen at at.
func (p *plantedBank) write(n, per int, cross float64, at time.Time) {
	p.t.Helper()
	for done := 0; done < n; {
		k := min(per, n-done)
		var mentions [][]string
		for range k {
			c := p.cluster()
			m := p.pick(c, 2+p.rng.IntN(2))
			if p.rng.Float64() < cross {
				other := (c + 1 + p.rng.IntN(len(p.ents)-1)) % len(p.ents)
				m = []string{m[0], p.pick(other, 1)[0]}
			}
			mentions = append(mentions, m)
		}
		p.writeFacts(mentions, at)
		done += k
	}
}

// cluster draws a cluster, each as likely as it has entities (so that
// every cluster's edges are about as dense).
func (p *plantedBank) cluster() int {
	n := p.rng.IntN(p.total)
	for c, es := range p.ents {
		if n < len(es) {
			return c
		}
		n -= len(es)
	}
	return len(p.ents) - 1
}

// pick draws k distinct entities of cluster c.
func (p *plantedBank) pick(c, k int) []string {
	idx := p.rng.Perm(len(p.ents[c]))[:k]
	out := make([]string, k)
	for i, j := range idx {
		out[i] = p.ents[c][j]
	}
	return out
}

// writeFacts writes one document with a fact per mention list, its
// refs, entity upserts and co-occurrence counts.
func (p *plantedBank) writeFacts(mentions [][]string, at time.Time) {
	p.t.Helper()
	p.docs++
	doc := fmt.Sprintf("doc%d", p.docs)
	texts := make([]string, len(mentions))
	for i, m := range mentions {
		var ns []string
		for _, e := range m {
			ns = append(ns, p.name(e))
		}
		texts[i] = strings.Join(ns, " and ") + " came up"
	}
	w := storetest.NewTestBatch(p.bank, doc, texts...)
	ups := map[string]int{}
	pairs := map[[2]string]int{}
	for i, m := range mentions {
		w.Facts[i].CreatedAt = at
		for _, e := range m {
			w.Refs = append(w.Refs, memory.EntityRef{FactID: w.Facts[i].ID, EntityID: e})
			ups[e]++
		}
		for x := range m {
			for y := x + 1; y < len(m); y++ {
				pairs[[2]string{min(m[x], m[y]), max(m[x], m[y])}]++
			}
		}
	}
	for _, e := range slices.Sorted(mapsKeys(ups)) {
		name := p.name(e)
		var i int
		fmt.Sscanf(name[strings.Index(name, "-e")+2:], "%d", &i)
		first := at
		if p.old(i) {
			first = at.Add(-200 * day)
		}
		w.Entities = append(w.Entities, memory.EntityUpsert{Entity: memory.Entity{ID: e, Name: name, Type: entityType(i), FirstSeen: first, LastSeen: at}, Mentions: ups[e], Episodes: 1})
	}
	for _, k := range slices.SortedFunc(mapsKeys(pairs), func(a, b [2]string) int { return strings.Compare(a[0]+a[1], b[0]+b[1]) }) {
		w.Cooccurrences = append(w.Cooccurrences, memory.Cooccurrence{EntityA: k[0], EntityB: k[1], Count: pairs[k]})
	}
	if _, err := p.s.Write(p.ctx, w); err != nil {
		p.t.Fatalf("write %s: %v", doc, err)
	}
}

func (p *plantedBank) name(id string) string {
	if n, ok := p.names[id]; ok {
		return n
	}
	p.t.Fatalf("unknown entity %s", id)
	return ""
}

func mapsKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// ari scores the bank's stored communities against the planted
// clusters over every planted entity; an entity in no community counts
// as alone.
func (p *plantedBank) ari(cs []*memory.Community) float64 {
	p.t.Helper()
	got := map[string]int{}
	for i, c := range cs {
		for _, m := range c.Members {
			got[m.EntityID] = i
		}
	}
	var a, b []int
	alone := len(cs)
	for _, id := range slices.Sorted(mapsKeys(p.labels)) {
		a = append(a, p.labels[id])
		if c, ok := got[id]; ok {
			b = append(b, c)
		} else {
			b = append(b, alone)
			alone++
		}
	}
	ari, err := consolidate.AdjustedRandIndex(a, b)
	if err != nil {
		p.t.Fatal(err)
	}
	return ari
}

func (p *plantedBank) run(llm memory.LLM, now time.Time) *consolidate.CommunityResult {
	p.t.Helper()
	res, err := consolidate.DetectCommunities(p.ctx, p.s, llm, p.bank, now, consolidate.NewDefaults(), consolidate.NewCommunityDefaults())
	if err != nil {
		p.t.Fatalf("DetectCommunities: %v", err)
	}
	return res
}

func (p *plantedBank) communities() []*memory.Community {
	p.t.Helper()
	cs, err := p.s.ListCommunities(p.ctx, p.bank)
	if err != nil {
		p.t.Fatalf("ListCommunities: %v", err)
	}
	return cs
}

// minPlantedARI is the least adjusted Rand index the planted tests
// accept: the clusters are clear (5% cross links), so Louvain should
// find them all but for an entity or two.
const minPlantedARI = 0.9

// TestDetectCommunities_Planted plants 8 clusters of 10 entities with
// 5% of the facts crossing clusters and checks that the pass finds
// them: the adjusted Rand index against the planted clusters, every
// community's members in one planted cluster, representatives
// the heaviest members, and the names of the representatives when no
// model is configured.
func TestDetectCommunities_Planted(t *testing.T) {
	p := newPlantedBank(t, 8, 10, 1)
	p.write(800, 50, 0.05, t0)
	res := p.run(nil, t0)
	cs := p.communities()
	ari := p.ari(cs)
	t.Logf("8 planted clusters of 10, 800 facts, 5%% cross: %d communities, adjusted Rand index %.4f", len(cs), ari)
	if ari < minPlantedARI {
		t.Errorf("adjusted Rand index %.4f, want at least %.2f", ari, minPlantedARI)
	}
	if res.Recomputed != 1 || res.Created != len(cs) || res.Communities != len(cs) || res.Entities != 80 {
		t.Errorf("counts: got %+v, want recomputed 1, %d created, 80 entities", res.Counts(), len(cs))
	}
	for _, c := range cs {
		if !slices.IsSortedFunc(c.Members, func(a, b memory.CommunityMember) int {
			return -cmpFloat(a.Weight, b.Weight)
		}) {
			t.Errorf("community %s: members not heaviest first", c.ID)
		}
		if len(c.Representatives) != 3 || c.Representatives[0] != c.Members[0].EntityID {
			t.Errorf("community %s: representatives %v, want the 3 heaviest members", c.ID, c.Representatives)
		}
		var want []string
		for _, r := range c.Representatives {
			want = append(want, p.names[r])
		}
		if c.Name != strings.Join(want, ", ") || c.Summary != "" {
			t.Errorf("community %s: name %q summary %q, want the representatives' names and no summary", c.ID, c.Name, c.Summary)
		}
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestDetectCommunities_NoisierClusters checks the index reported under
// more cross links (15%): still well above chance.
func TestDetectCommunities_NoisierClusters(t *testing.T) {
	p := newPlantedBank(t, 6, 12, 2)
	p.write(900, 60, 0.15, t0)
	p.run(nil, t0)
	ari := p.ari(p.communities())
	t.Logf("6 planted clusters of 12, 900 facts, 15%% cross: adjusted Rand index %.4f", ari)
	if ari < 0.8 {
		t.Errorf("adjusted Rand index %.4f, want at least 0.8", ari)
	}
}

// TestDetectCommunities_UnevenClusters checks clusters of 4 to 40
// entities: the resolution that separates small clusters in a large
// bank must not split a large one.
func TestDetectCommunities_UnevenClusters(t *testing.T) {
	p := newPlantedSizes(t, []int{4, 6, 8, 12, 20, 30, 40}, 8)
	p.write(3000, 100, 0.05, t0)
	p.run(nil, t0)
	cs := p.communities()
	ari := p.ari(cs)
	t.Logf("7 planted clusters of 4 to 40, 3000 facts, 5%% cross: %d communities, adjusted Rand index %.4f", len(cs), ari)
	if ari < minPlantedARI {
		t.Errorf("adjusted Rand index %.4f, want at least %.2f", ari, minPlantedARI)
	}
}

// TestDetectCommunities_Incremental checks that a run over an unchanged
// graph does nothing, that a new entity joining a cluster changes that
// community alone, that new weight inside a cluster reweighs it alone,
// and that ids stay.
func TestDetectCommunities_Incremental(t *testing.T) {
	p := newPlantedBank(t, 5, 8, 3)
	p.write(400, 40, 0.03, t0)
	first := p.run(nil, t0)
	before := p.communities()
	if first.Created != len(before) || len(before) != 5 {
		t.Fatalf("first run: %+v, %d communities; want 5 created", first.Counts(), len(before))
	}
	if ari := p.ari(before); ari < minPlantedARI {
		t.Fatalf("first run: adjusted Rand index %.4f", ari)
	}

	again := p.run(nil, t0.Add(time.Hour))
	if want := (map[string]int{"recomputed": 0, "entities": 0, "edges": 0, "communities": 5, "created": 0, "changed": 0, "reweighted": 0,
		"unchanged": 0, "removed": 0, "summarised": 0, "summary_failed": 0, "summaries_dropped": 0, "promoted": 0}); !mapsEqual(again.Counts(), want) {
		t.Errorf("second run with no new fact: got %v, want %v", again.Counts(), want)
	}
	if after := p.communities(); !sameCommunities(after, before) {
		t.Errorf("second run with no new fact changed the communities")
	}

	// A new entity, mentioned with three members of one cluster.
	target := communityOf(before, p.ents[2][0])
	newcomer := memory.EntityID("c2-e99")
	p.names[newcomer], p.labels[newcomer] = "c2-e99", 2
	p.writeFacts([][]string{{newcomer, p.ents[2][1], p.ents[2][2]}, {newcomer, p.ents[2][3]}, {newcomer, p.ents[2][1]}}, t0.Add(2*time.Hour))
	joined := p.run(nil, t0.Add(3*time.Hour))
	if joined.Recomputed != 1 || joined.Changed != 1 || joined.Created != 0 || joined.Removed != 0 || joined.Unchanged != 4 || joined.Reweighted != 0 {
		t.Errorf("a new member: got %v, want 1 changed, 4 unchanged", joined.Counts())
	}
	after := p.communities()
	if got := communityOf(after, newcomer); got == nil || target == nil || got.ID != target.ID {
		t.Errorf("the newcomer is in %v, want the community of its cluster %v", got, target)
	} else if !got.UpdatedAt.Equal(t0.Add(3*time.Hour)) || !got.CreatedAt.Equal(target.CreatedAt) {
		t.Errorf("changed community: created %s updated %s, want created as before, updated now", got.CreatedAt, got.UpdatedAt)
	}
	for _, c := range before {
		if c.ID == target.ID {
			continue
		}
		if a := byID(after, c.ID); a == nil || !sameCommunity(a, c) {
			t.Errorf("community %s changed, want it as it was", c.ID)
		}
	}

	// More of a pair already inside another cluster: its weights move,
	// its members do not.
	other := communityOf(after, p.ents[4][0])
	p.writeFacts([][]string{{p.ents[4][0], p.ents[4][5]}}, t0.Add(4*time.Hour))
	re := p.run(nil, t0.Add(5*time.Hour))
	if re.Reweighted != 1 || re.Changed+re.Created+re.Removed != 0 || re.Unchanged != 4 {
		t.Errorf("new weight inside a cluster: got %v, want 1 reweighted, 4 unchanged", re.Counts())
	}
	if c := byID(p.communities(), other.ID); c == nil || !c.UpdatedAt.Equal(other.UpdatedAt) || c.Weight <= other.Weight {
		t.Errorf("reweighted community: got %+v, want its update time kept and more weight than %v", c, other.Weight)
	}
}

// TestDetectCommunities_Removed checks that a cluster whose entities
// are forgotten loses its community.
func TestDetectCommunities_Removed(t *testing.T) {
	p := newPlantedBank(t, 3, 6, 4)
	p.write(150, 50, 0, t0)
	p.run(nil, t0)
	before := p.communities()
	if len(before) != 3 {
		t.Fatalf("got %d communities, want 3", len(before))
	}
	gone := communityOf(before, p.ents[1][0])
	for _, e := range p.ents[1] {
		ids, err := p.s.FactsByEntities(p.ctx, p.bank, []string{e}, memory.MaxPageSize)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids[e]) > 0 {
			if _, err := p.s.Forget(p.ctx, p.bank, ids[e], &memory.ForgetRecord{Actor: "test", At: t0}); err != nil {
				t.Fatalf("Forget: %v", err)
			}
		}
	}
	res := p.run(nil, t0.Add(time.Hour))
	if res.Removed != 1 || res.Communities != 2 {
		t.Errorf("after forgetting a cluster: got %v, want 1 removed, 2 left", res.Counts())
	}
	if byID(p.communities(), gone.ID) != nil {
		t.Errorf("community %s of the forgotten cluster is still there", gone.ID)
	}
}

// TestDetectCommunities_Summaries checks the summaries with a scripted
// model: one call per community, with its members and its
// representatives' facts; none on a run over an unchanged graph; only
// the changed community asked again; a failed answer counted and tried
// again next run.
func TestDetectCommunities_Summaries(t *testing.T) {
	p := newPlantedBank(t, 3, 6, 5)
	p.write(150, 50, 0, t0)
	fail := false
	llm := consolidate.Script(func(req *memory.ChatRequest) (any, error) {
		if req.Schema == nil || req.Schema.Name != "community_summary" || req.Stage != consolidate.StageCommunity {
			return nil, fmt.Errorf("unexpected request %+v", req)
		}
		prompt := req.Messages[len(req.Messages)-1].Content
		if fail && strings.Contains(prompt, "c0-e") {
			return map[string]any{"name": "", "summary": ""}, nil // malformed: empty
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(prompt, "ENTITIES (most connected first):\n- "), " (")
		return map[string]any{"name": "cluster of " + first, "summary": first + " and friends keep coming up together."}, nil
	})
	res := p.run(llm, t0)
	cs := p.communities()
	if res.Summarised != 3 || llm.Calls() != 3 || len(cs) != 3 {
		t.Fatalf("first run: %v, %d calls, want 3 summarised", res.Counts(), llm.Calls())
	}
	for i, c := range cs {
		prompt := llm.Prompt(i)
		if !strings.Contains(prompt, "[central]") || !strings.Contains(prompt, "FACTS ABOUT THE CENTRAL ENTITIES") {
			t.Errorf("prompt %d lacks the central entities or their facts:\n%s", i, prompt)
		}
		if !strings.HasPrefix(c.Name, "cluster of ") || !strings.Contains(c.Summary, "keep coming up together") || len(c.Sources) == 0 || !c.SummarizedAt.Equal(t0) {
			t.Errorf("community %s: name %q summary %q sources %v summarised %s", c.ID, c.Name, c.Summary, c.Sources, c.SummarizedAt)
		}
		if !strings.Contains(c.Name, p.names[c.Members[0].EntityID]) {
			t.Errorf("community %s is named %q, want its heaviest member %s", c.ID, c.Name, p.names[c.Members[0].EntityID])
		}
	}
	llm.Reset()
	if res := p.run(llm, t0.Add(time.Hour)); llm.Calls() != 0 || res.Summarised != 0 {
		t.Errorf("unchanged graph: %d calls, %v; want none", llm.Calls(), res.Counts())
	}

	// Cluster 0 gains a member: only its community is asked again, and
	// this time the model's answer is malformed.
	fail = true
	newcomer := memory.EntityID("c0-e99")
	p.names[newcomer] = "c0-e99"
	p.writeFacts([][]string{{newcomer, p.ents[0][1], p.ents[0][2]}, {newcomer, p.ents[0][3]}}, t0.Add(2*time.Hour))
	res = p.run(llm, t0.Add(3*time.Hour))
	if llm.Calls() != 1 || res.SummaryFailed != 1 || res.Summarised != 0 || res.Changed != 1 {
		t.Errorf("one changed community, malformed answer: %d calls, %v; want 1 call, 1 failed", llm.Calls(), res.Counts())
	}
	c := communityOf(p.communities(), newcomer)
	if c == nil || c.Summary == "" || !c.SummarizedAt.Before(c.UpdatedAt) {
		t.Errorf("after a failed summary: %+v, want the old summary kept and marked older than the members", c)
	}
	fail = false
	llm.Reset()
	res = p.run(llm, t0.Add(4*time.Hour))
	if llm.Calls() != 1 || res.Summarised != 1 || res.Recomputed != 0 {
		t.Errorf("retry: %d calls, %v; want the failed one asked again", llm.Calls(), res.Counts())
	}
	if c := communityOf(p.communities(), newcomer); c == nil || !c.SummarizedAt.Equal(t0.Add(4*time.Hour)) {
		t.Errorf("after the retry: %+v", c)
	}

	// A source fact forgotten: the summary goes with it (and, the model
	// being there, comes back from facts that remain).
	c = communityOf(p.communities(), p.ents[1][0])
	if _, err := p.s.Forget(p.ctx, p.bank, c.Sources[:1], &memory.ForgetRecord{Actor: "test", At: t0}); err != nil {
		t.Fatalf("Forget: %v", err)
	}
	res = p.run(nil, t0.Add(5*time.Hour))
	if res.SummariesDropped != 1 {
		t.Errorf("a source forgotten: %v, want 1 summary dropped", res.Counts())
	}
	if got := byID(p.communities(), c.ID); got == nil || got.Summary != "" || len(got.Sources) != 0 {
		t.Errorf("after its source was forgotten: %+v, want no summary", got)
	}
}

// TestDetectCommunities_Promotion checks seed 004's promotion: a
// representative old enough, of an L2-eligible type, with its episodes
// and not contradicted, goes to L2 with its community named in the tier
// log; a young one or a topic stays.
func TestDetectCommunities_Promotion(t *testing.T) {
	p := newPlantedBank(t, 3, 8, 6)
	p.old = func(i int) bool { return i != 3 } // all but the habits c*-e3 are 200 days old
	p.write(240, 8, 0, t0)                     // 30 documents: enough episodes for every entity
	res := p.run(nil, t0)
	cs := p.communities()
	promoted := map[string]bool{}
	for _, ch := range res.Changes {
		promoted[ch.EntityID] = true
		if ch.To != memory.TierPattern || ch.From != memory.TierEpisodic || !strings.Contains(ch.Reason, "representative of community") || !ch.At.Equal(t0) {
			t.Errorf("tier change %+v, want L0 to L2 as a representative at %s", ch, t0)
		}
	}
	want := 0
	for _, c := range cs {
		for _, r := range c.Representatives {
			es, err := p.s.Entities(p.ctx, p.bank, []string{r})
			if err != nil || len(es) != 1 {
				t.Fatalf("entity %s: %v", r, err)
			}
			e := es[0]
			ok := e.Type != memory.EntityTopic && !strings.HasSuffix(e.Name, "-e3")
			if ok {
				want++
			}
			if promoted[r] != ok || (e.Tier == memory.TierPattern) != ok {
				t.Errorf("representative %s (%s, first seen %s): promoted %v, tier %q; want promoted %v", e.Name, e.Type, e.FirstSeen, promoted[r], e.Tier, ok)
			}
		}
	}
	if want == 0 || res.Promoted != want {
		t.Errorf("promoted %d, want %d (and at least one)", res.Promoted, want)
	}
	log, err := p.s.TierLog(p.ctx, p.bank, 0)
	if err != nil || len(log) != want {
		t.Errorf("tier log: %d changes, %v; want %d", len(log), err, want)
	}
	// Members that are no representative stay where they are.
	for _, c := range cs {
		for _, m := range c.Members[len(c.Representatives):] {
			if promoted[m.EntityID] {
				t.Errorf("member %s promoted, but it represents nothing", m.EntityID)
			}
		}
	}
	if again := p.run(nil, t0.Add(time.Hour)); again.Promoted != 0 {
		t.Errorf("second run promoted %d again", again.Promoted)
	}
}

// TestDetectCommunities_Errors checks bad numbers and an unknown bank.
func TestDetectCommunities_Errors(t *testing.T) {
	p := newPlantedBank(t, 1, 3, 7)
	o := consolidate.NewCommunityDefaults()
	o.MinOverlap = 0
	if _, err := consolidate.DetectCommunities(p.ctx, p.s, nil, p.bank, t0, consolidate.NewDefaults(), o); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("min overlap 0: got %v, want EINVALID", err)
	}
	o = consolidate.NewCommunityDefaults()
	o.Resolution = math.NaN()
	if _, err := consolidate.DetectCommunities(p.ctx, p.s, nil, p.bank, t0, consolidate.NewDefaults(), o); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("resolution NaN: got %v, want EINVALID", err)
	}
	if _, err := consolidate.DetectCommunities(p.ctx, p.s, nil, "nope", t0, consolidate.NewDefaults(), consolidate.NewCommunityDefaults()); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("unknown bank: got %v, want ENOTFOUND", err)
	}
	// An empty bank has no communities, and says so without error.
	res := p.run(nil, t0)
	if res.Communities != 0 || res.Recomputed != 1 {
		t.Errorf("empty bank: %v", res.Counts())
	}
}

func communityOf(cs []*memory.Community, entity string) *memory.Community {
	for _, c := range cs {
		if c.HasMember(entity) {
			return c
		}
	}
	return nil
}

func byID(cs []*memory.Community, id string) *memory.Community {
	for _, c := range cs {
		if c.ID == id {
			return c
		}
	}
	return nil
}

func sameCommunity(a, b *memory.Community) bool {
	return a.ID == b.ID && slices.Equal(a.Members, b.Members) && slices.Equal(a.Representatives, b.Representatives) &&
		a.Name == b.Name && a.Summary == b.Summary && a.UpdatedAt.Equal(b.UpdatedAt) && a.Weight == b.Weight
}

func sameCommunities(a, b []*memory.Community) bool {
	return slices.EqualFunc(a, b, sameCommunity)
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// hiddenMark is a store whose communities pass sees no stored mark (so
// it finds the communities again) and, with fresh, no stored
// communities either (so it writes them all): the benchmarks' way of
// running the pass's full work again on one bank.
type hiddenMark struct {
	memory.Store
	fresh bool
}

func (h hiddenMark) CommunityMark(context.Context, string) (memory.GraphMark, bool, error) {
	return memory.GraphMark{}, false, nil
}

func (h hiddenMark) ListCommunities(ctx context.Context, bank string) ([]*memory.Community, error) {
	if h.fresh {
		return nil, nil
	}
	return h.Store.ListCommunities(ctx, bank)
}

// BenchmarkDetectCommunities times the communities pass on planted
// banks of 1,000 to 100,000 facts (clusters of 20 entities, one per 200
// facts; 5% of the facts cross clusters), written once per size:
//
//   - First: every community found and written (a bank's first run);
//   - Changed: the graph read and split again, every community matched
//     to the stored ones and none written (a run after new facts);
//   - Unchanged: a run over an unchanged graph (the mark alone).
//
// It reports the adjusted Rand index of the communities found against
// the planted clusters, and the graph's size.
func BenchmarkDetectCommunities(b *testing.B) {
	for _, facts := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("facts=%d", facts), func(b *testing.B) {
			p := newPlantedBank(b, max(facts/200, 2), 20, 42)
			p.write(facts, 1000, 0.05, t0)
			o := consolidate.NewCommunityDefaults()
			d := consolidate.NewDefaults()
			run := func(b *testing.B, st consolidate.CommunityStore) *consolidate.CommunityResult {
				res, err := consolidate.DetectCommunities(p.ctx, st, nil, p.bank, t0, d, o)
				if err != nil {
					b.Fatal(err)
				}
				return res
			}
			first := run(b, hiddenMark{Store: p.s, fresh: true})
			ari := p.ari(p.communities())
			for _, c := range []struct {
				name string
				st   consolidate.CommunityStore
			}{{"First", hiddenMark{Store: p.s, fresh: true}}, {"Changed", hiddenMark{Store: p.s}}, {"Unchanged", p.s}} {
				b.Run(c.name, func(b *testing.B) {
					for b.Loop() {
						run(b, c.st)
					}
					b.ReportMetric(ari, "ARI")
					b.ReportMetric(float64(first.Entities), "entities")
					b.ReportMetric(float64(first.Edges), "edges")
				})
			}
		})
	}
}
