package consolidate

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-ai/mnemo/internal/id"
	"github.com/mnemo-ai/mnemo/memory"
)

// The numbers of the dream pass. Seed 000's text gives three ("Randomly
// sample up to 6 cluster pairs", "Dedup survivors against the 100 most
// recent dreams (cosine > 0.85 = duplicate)") and seed 001 that dreams
// are off by default; the others are those of the system seed 000
// describes (ntrp's dream pass), named here.
const (
	// DefaultDreamSample is how many of the bank's newest active facts the
	// pass clusters. The seed clusters all facts; a sample keeps the
	// pass's cost the same at any bank size (k-means is linear in it, and
	// at most DefaultDreamMaxPairs+1 LLM calls are made whatever it is).
	DefaultDreamSample = 500
	// DefaultDreamMinFacts: with fewer facts (with embeddings) to cluster
	// the pass is skipped (seed 000's system: DREAM_MIN_FACTS 20).
	DefaultDreamMinFacts = 20
	// DefaultDreamClusterFactor and DefaultDreamMinClusters give k-means'
	// k for n facts: max(MinClusters, ⌊√(n / ClusterFactor)⌋) — 12 for the
	// default sample (seed 000's system: DREAM_CLUSTER_FACTOR 3, at least
	// 4 clusters).
	DefaultDreamClusterFactor = 3.0
	DefaultDreamMinClusters   = 4
	// DefaultDreamIterations bounds k-means' rounds (seed 000's system:
	// 20); it stops earlier once no fact changes cluster.
	DefaultDreamIterations = 20
	// DefaultDreamSupporters is how many facts stand with each cluster's
	// core fact (the one nearest its centroid) in the bridge prompt: its
	// nearest neighbours in the cluster (seed 000's system: 2).
	DefaultDreamSupporters = 2
	// DefaultDreamMaxPairs caps the cluster pairs bridged, and so the
	// LLM calls (seed 000: "up to 6 cluster pairs (caps LLM calls)").
	DefaultDreamMaxPairs = 6
	// DefaultDreamDedupRecent and DefaultDreamDedupCosine: a new dream
	// whose insight has a cosine above 0.85 with one of the bank's 100
	// latest dreams (or one stored before it in the same run) is a
	// duplicate and is not stored (seed 000).
	DefaultDreamDedupRecent = 100
	DefaultDreamDedupCosine = 0.85
)

// The temperatures of the pass's two calls (seed 000's system: 0.7 to
// bridge two clusters, 0.3 to judge the candidates) and the stages their
// usage is counted under.
const (
	DreamTemperature         = 0.7
	DreamEvaluateTemperature = 0.3
	StageDream               = "dreams"
	StageDreamEvaluate       = "dreams-evaluate"
)

// DreamsOff is the reason recorded for a dream pass skipped because the
// bank has not turned dreams on (seed 001: "Dreams are disabled by
// default").
const DreamsOff = "dreams are off for this bank"

// dreamFactRunes cuts a fact's text in the bridge prompt, so that a
// prompt stays small whatever a fact holds (seed 000's system cuts
// supporting facts at 120 characters; mnemo gives every fact more room).
const dreamFactRunes = 300

// DreamDefaults holds the numbers of the dream pass, each a named default
// with the seed it comes from. Its fields carry json tags: the names a
// bank's overrides use (snake_case, prefixed by the pass).
type DreamDefaults struct {
	// Enabled turns the pass on; off by default (seed 001).
	Enabled       bool    `json:"dreams"`
	Sample        int     `json:"dream_sample"`
	MinFacts      int     `json:"dream_min_facts"`
	ClusterFactor float64 `json:"dream_cluster_factor"`
	MinClusters   int     `json:"dream_min_clusters"`
	Iterations    int     `json:"dream_iterations"`
	Supporters    int     `json:"dream_supporters"`
	MaxPairs      int     `json:"dream_max_pairs"`
	DedupRecent   int     `json:"dream_dedup_recent"`
	DedupCosine   float64 `json:"dream_dedup_cosine"`
}

// defaultDreamDefaults returns the seeds' numbers for the dream pass.
func defaultDreamDefaults() DreamDefaults {
	return DreamDefaults{
		Sample: DefaultDreamSample, MinFacts: DefaultDreamMinFacts,
		ClusterFactor: DefaultDreamClusterFactor, MinClusters: DefaultDreamMinClusters,
		Iterations: DefaultDreamIterations, Supporters: DefaultDreamSupporters,
		MaxPairs: DefaultDreamMaxPairs, DedupRecent: DefaultDreamDedupRecent, DedupCosine: DefaultDreamDedupCosine,
	}
}

// Validate reports numbers the pass cannot use as EINVALID.
func (d DreamDefaults) Validate() error {
	switch {
	case d.Sample < 2 || d.MinFacts < 2:
		return memory.Errorf(memory.EINVALID, "dreams: the sample and the least facts must be at least 2")
	case d.ClusterFactor <= 0 || d.MinClusters < 2 || d.Iterations < 1:
		return memory.Errorf(memory.EINVALID, "dreams: the cluster factor must be positive, at least 2 clusters and 1 iteration")
	case d.Supporters < 0 || d.MaxPairs < 1 || d.DedupRecent < 0:
		return memory.Errorf(memory.EINVALID, "dreams: supporters and recent dreams cannot be negative, pairs at least 1")
	case d.DedupCosine <= 0 || d.DedupCosine > 1:
		return memory.Errorf(memory.EINVALID, "dreams: the duplicate cosine must be in (0, 1]")
	}
	return nil
}

// DreamStore is what the dream pass reads and writes: the newest active
// facts with their stored vectors, and the bank's dreams.
type DreamStore interface {
	ListFacts(ctx context.Context, bankID string, q memory.FactQuery) (*memory.FactPage, error)
	FactEmbeddings(ctx context.Context, bankID string, ids []string) (map[string][]float32, error)
	PutDreams(ctx context.Context, bankID string, ds []*memory.Dream) error
	ListDreams(ctx context.Context, bankID string, limit int) ([]*memory.Dream, error)
}

// DreamResult counts what one dream pass did.
type DreamResult struct {
	Sampled  int // facts clustered
	Clusters int // clusters of two facts or more (those that can pair)
	Pairs    int // cluster pairs sent to the model: one call each
	Bridged  int // pairs the model answered with a bridge and an insight
	Failed   int // bridge calls that failed
	Kept     int // candidates the evaluator kept
	// Duplicates are kept candidates too close to a recent dream.
	Duplicates int
	Stored     int
	// Dreams are the dreams stored, in the order made.
	Dreams []*memory.Dream
}

// Counts is r as a run record's counters.
func (r *DreamResult) Counts() map[string]int {
	return map[string]int{
		"sampled": r.Sampled, "clusters": r.Clusters, "pairs": r.Pairs, "bridged": r.Bridged,
		"failed": r.Failed, "kept": r.Kept, "duplicates": r.Duplicates, "stored": r.Stored,
	}
}

// Dreams is the dream pass (seed 000 "Dream Pass"; DESIGN §6): it finds
// cross-domain insights between unrelated clusters of the bank's facts.
//
//  1. The newest d.Sample active facts are read, and those that are not
//     sensitive kept with their stored vectors (nothing is embedded
//     again); with fewer than d.MinFacts the pass is skipped.
//  2. k-means (cosine, k-means++ start) groups them into k clusters. Its
//     random choices, and the pairs', come from a generator seeded with
//     now: a run is reproducible from its time.
//  3. Up to d.MaxPairs pairs of clusters with two facts or more are drawn
//     at random; for each, the fact nearest each centroid (its core) and
//     the d.Supporters facts nearest that core go to llm, which answers a
//     bridge (the structural connection, a few words) and an insight (one
//     sentence), or nothing when there is none. A failed call is counted
//     and the other pairs go on.
//  4. One evaluator call sees every candidate and keeps only those that
//     would genuinely surprise the user.
//  5. Each kept insight is embedded with emb and compared with the
//     d.DedupRecent latest dreams and those stored before it in this run:
//     a cosine above d.DedupCosine makes it a duplicate.
//  6. The rest are stored (memory.Dreams), their sources the cores and
//     supporters. No search ever returns a dream.
//
// Off unless d.Enabled: the pass then returns a *Skipped with [DreamsOff].
// Without llm it returns a *Skipped with [NoLLM]. It fails when every
// bridge call failed, or the evaluator, the embedder or the store did,
// returning the counts so far. It writes nothing before step 6, so a run
// stopped midway leaves no trace; run again with the same now and no new
// fact, it draws the same pairs and its answers are duplicates of the
// first run's.
func Dreams(ctx context.Context, st DreamStore, llm memory.LLM, emb memory.Embedder, bank string, now time.Time, d DreamDefaults) (*DreamResult, error) {
	if !d.Enabled {
		return nil, &Skipped{Reason: DreamsOff}
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if llm == nil {
		return nil, &Skipped{Reason: NoLLM}
	}
	res := &DreamResult{}
	facts, vecs, err := sampleFacts(ctx, st, bank, d.Sample)
	if err != nil {
		return res, err
	}
	res.Sampled = len(facts)
	if len(facts) < d.MinFacts {
		return res, &Skipped{Reason: fmt.Sprintf("%d facts to dream over, fewer than %d", len(facts), d.MinFacts)}
	}
	rng := rand.New(rand.NewPCG(uint64(now.UnixNano()), 0x9e3779b97f4a7c15))
	var clusters [][]int
	for _, c := range KMeans(vecs, clusterCount(len(facts), d), d.Iterations, rng) {
		if len(c) >= 2 {
			clusters = append(clusters, c)
		}
	}
	res.Clusters = len(clusters)
	pairs := samplePairs(len(clusters), d.MaxPairs, rng)
	res.Pairs = len(pairs)
	if len(pairs) == 0 {
		return res, nil
	}
	seeds := make([]dreamSeed, len(pairs))
	for i, p := range pairs {
		seeds[i] = dreamSeed{a: clusterSide(vecs, clusters[p[0]], d.Supporters), b: clusterSide(vecs, clusters[p[1]], d.Supporters)}
	}
	cands, failed, lastErr := bridgeAll(ctx, llm, facts, seeds)
	res.Failed = failed
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if failed == len(pairs) {
		return res, fmt.Errorf("dreams: every bridge call failed: %w", lastErr)
	}
	res.Bridged = len(cands)
	if len(cands) == 0 {
		return res, nil
	}
	kept, err := evaluate(ctx, llm, cands)
	if err != nil {
		return res, err
	}
	res.Kept = len(kept)
	if len(kept) == 0 {
		return res, nil
	}
	recent, err := st.ListDreams(ctx, bank, d.DedupRecent)
	if err != nil {
		return res, fmt.Errorf("dreams: recent dreams: %w", err)
	}
	var seen [][]float32
	for _, r := range recent {
		if len(r.Embedding) > 0 {
			seen = append(seen, r.Embedding)
		}
	}
	texts := make([]string, len(kept))
	for i, c := range kept {
		texts[i] = c.Insight
	}
	ivecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return res, fmt.Errorf("dreams: embed insights: %w", err)
	}
	if len(ivecs) != len(texts) {
		return res, fmt.Errorf("dreams: embed insights: %d vectors for %d texts", len(ivecs), len(texts))
	}
	var out []*memory.Dream
	for i, c := range kept {
		if nearAny(ivecs[i], seen, d.DedupCosine) {
			res.Duplicates++
			continue
		}
		seen = append(seen, ivecs[i])
		out = append(out, &memory.Dream{
			ID: id.Derive("dream", now, bank, c.Bridge, c.Insight), BankID: bank, Bridge: c.Bridge, Insight: c.Insight,
			SourceFactIDs: c.sources, Embedding: ivecs[i], CreatedAt: now,
		})
	}
	if len(out) > 0 {
		if err := st.PutDreams(ctx, bank, out); err != nil {
			return res, fmt.Errorf("dreams: store: %w", err)
		}
	}
	res.Stored, res.Dreams = len(out), out
	return res, nil
}

// sampleFacts reads the newest n active facts of a bank and returns
// those that are not sensitive and have a stored vector, with their
// vectors (normalised), in the order listed. It reads n facts at most,
// whatever the bank holds.
func sampleFacts(ctx context.Context, st DreamStore, bank string, n int) ([]*memory.Fact, [][]float32, error) {
	var facts []*memory.Fact
	q := memory.FactQuery{Statuses: []memory.Status{memory.StatusActive}}
	for listed := 0; listed < n; {
		q.Limit = min(n-listed, memory.MaxPageSize)
		page, err := st.ListFacts(ctx, bank, q)
		if err != nil {
			return nil, nil, fmt.Errorf("dreams: list facts: %w", err)
		}
		listed += len(page.Facts)
		for _, f := range page.Facts {
			// Sensitive facts stay out of dreams, as they stay out of
			// recall unless asked for.
			if f.Sensitivity != memory.SensitivitySensitive {
				facts = append(facts, f)
			}
		}
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	ids := make([]string, len(facts))
	for i, f := range facts {
		ids[i] = f.ID
	}
	byID, err := st.FactEmbeddings(ctx, bank, ids)
	if err != nil {
		return nil, nil, fmt.Errorf("dreams: fact vectors: %w", err)
	}
	var dim int
	keep := facts[:0]
	var vecs [][]float32
	for _, f := range facts {
		v := unit(byID[f.ID])
		if v == nil || (dim != 0 && len(v) != dim) {
			continue
		}
		dim = len(v)
		keep = append(keep, f)
		vecs = append(vecs, v)
	}
	return keep, vecs, nil
}

// clusterCount is k for n facts: max(MinClusters, ⌊√(n/ClusterFactor)⌋),
// at most n.
func clusterCount(n int, d DreamDefaults) int {
	k := max(d.MinClusters, int(math.Sqrt(float64(n)/d.ClusterFactor)))
	return min(k, n)
}

// KMeans groups unit vectors into at most k clusters by cosine
// similarity: k-means++ seeding (each next centroid drawn with
// probability proportional to the squared distance 1 − cosine to the
// nearest one chosen) then at most iterations rounds of assignment to the
// most similar centroid and centroid update (the normalised mean), until
// no vector moves. Its random draws come from rng only, so the same
// vectors and generator state give the same clusters. It returns the
// non-empty clusters as indices into vecs, each in increasing order,
// clusters ordered by their smallest index. Fewer than k come back when
// vectors coincide. Pure computation: it never logs.
func KMeans(vecs [][]float32, k, iterations int, rng *rand.Rand) [][]int {
	n := len(vecs)
	if n == 0 || k <= 0 {
		return nil
	}
	k = min(k, n)
	centroids := [][]float32{slices.Clone(vecs[rng.IntN(n)])}
	dist := make([]float64, n)
	for len(centroids) < k {
		var total float64
		for i, v := range vecs {
			best := -1.0
			for _, c := range centroids {
				best = max(best, dot(v, c))
			}
			d := max(1-best, 0)
			dist[i] = d * d
			total += dist[i]
		}
		if total <= 1e-12 {
			break // every vector sits on a centroid already
		}
		r := rng.Float64() * total
		pick := -1
		for i, d := range dist {
			if d <= 0 {
				continue
			}
			pick = i // the last candidate, should rounding leave r above 0
			if r -= d; r <= 0 {
				break
			}
		}
		centroids = append(centroids, slices.Clone(vecs[pick]))
	}
	assign := make([]int, n)
	for i := range assign {
		assign[i] = -1
	}
	dim := len(vecs[0])
	for range iterations {
		moved := false
		for i, v := range vecs {
			best, bestSim := 0, math.Inf(-1)
			for c, cv := range centroids {
				if s := dot(v, cv); s > bestSim {
					best, bestSim = c, s
				}
			}
			if assign[i] != best {
				assign[i], moved = best, true
			}
		}
		if !moved {
			break
		}
		sums := make([][]float64, len(centroids))
		for i, v := range vecs {
			c := assign[i]
			if sums[c] == nil {
				sums[c] = make([]float64, dim)
			}
			for j, x := range v {
				sums[c][j] += float64(x)
			}
		}
		for c, s := range sums {
			if s == nil {
				continue // an empty cluster keeps its centroid
			}
			mean := make([]float32, dim)
			for j, x := range s {
				mean[j] = float32(x)
			}
			if u := unit(mean); u != nil {
				centroids[c] = u
			}
		}
	}
	byCluster := make([][]int, len(centroids))
	for i, c := range assign {
		byCluster[c] = append(byCluster[c], i)
	}
	var out [][]int
	for _, members := range byCluster {
		if len(members) > 0 {
			out = append(out, members)
		}
	}
	slices.SortFunc(out, func(a, b []int) int { return a[0] - b[0] })
	return out
}

// samplePairs draws up to max distinct pairs {i, j} (i < j) of n clusters
// at random (a partial Fisher–Yates shuffle of every pair).
func samplePairs(n, maxPairs int, rng *rand.Rand) [][2]int {
	var all [][2]int
	for i := range n {
		for j := i + 1; j < n; j++ {
			all = append(all, [2]int{i, j})
		}
	}
	m := min(maxPairs, len(all))
	for i := range m {
		j := i + rng.IntN(len(all)-i)
		all[i], all[j] = all[j], all[i]
	}
	return all[:m]
}

// side is one cluster as the bridge prompt shows it: its core fact (the
// one nearest its centroid) and the core's nearest neighbours in it, as
// indices into the sample.
type side struct {
	core       int
	supporters []int
}

// dreamSeed is one pair of clusters to bridge.
type dreamSeed struct{ a, b side }

// clusterSide picks a cluster's core and its n supporters (ties by
// sample order: newer facts first).
func clusterSide(vecs [][]float32, members []int, n int) side {
	dim := len(vecs[members[0]])
	mean := make([]float32, dim)
	for _, m := range members {
		for j, x := range vecs[m] {
			mean[j] += x
		}
	}
	core, best := members[0], math.Inf(-1)
	for _, m := range members {
		if s := dot(vecs[m], mean); s > best {
			core, best = m, s
		}
	}
	others := slices.DeleteFunc(slices.Clone(members), func(m int) bool { return m == core })
	slices.SortStableFunc(others, func(a, b int) int {
		sa, sb := dot(vecs[a], vecs[core]), dot(vecs[b], vecs[core])
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return a - b
	})
	return side{core: core, supporters: others[:min(n, len(others))]}
}

// candidate is one bridged pair: the model's bridge and insight, and the
// facts they came from (cores first, then supporters).
type candidate struct {
	Bridge, Insight string
	sources         []string
}

// bridgeAll asks llm to bridge every seed, a few calls at a time, and
// returns the candidates in the seeds' order, how many calls failed and
// the last failure.
func bridgeAll(ctx context.Context, llm memory.LLM, facts []*memory.Fact, seeds []dreamSeed) ([]candidate, int, error) {
	type answer struct {
		c   *candidate
		err error
	}
	answers := make([]answer, len(seeds))
	var wg sync.WaitGroup
	sem := make(chan struct{}, dreamConcurrency)
	for i, s := range seeds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			c, err := bridge(ctx, llm, facts, s)
			answers[i] = answer{c, err}
		}()
	}
	wg.Wait()
	var out []candidate
	failed := 0
	var last error
	for _, a := range answers {
		switch {
		case a.err != nil:
			failed++
			last = a.err
		case a.c != nil:
			out = append(out, *a.c)
		}
	}
	return out, failed, last
}

// dreamConcurrency bounds the bridge calls in flight at once (the
// provider's guard caps them across the engine too).
const dreamConcurrency = 3

// bridge makes one bridge call; nil without error when the model found
// no genuine insight.
func bridge(ctx context.Context, llm memory.LLM, facts []*memory.Fact, s dreamSeed) (*candidate, error) {
	var b strings.Builder
	domain := func(name string, sd side) {
		fmt.Fprintf(&b, "DOMAIN %s\n  Core: %s\n  Supporting:\n", name, quoteFact(facts[sd.core]))
		if len(sd.supporters) == 0 {
			b.WriteString("    (none)\n")
		}
		for _, i := range sd.supporters {
			fmt.Fprintf(&b, "    - %s\n", quoteFact(facts[i]))
		}
	}
	domain("A", s.a)
	b.WriteByte('\n')
	domain("B", s.b)
	resp, err := llm.Chat(ctx, &memory.ChatRequest{
		Stage:       StageDream,
		System:      dreamSystem,
		Messages:    []memory.ChatMessage{{Role: memory.RoleUser, Content: b.String()}},
		Schema:      &memory.Schema{Name: "dream", Description: "a bridge and an insight, or two empty strings", JSON: json.RawMessage(dreamSchema)},
		Temperature: DreamTemperature,
	})
	if err != nil {
		return nil, fmt.Errorf("dreams: bridge: %w", err)
	}
	var ans struct {
		Bridge  string `json:"bridge"`
		Insight string `json:"insight"`
	}
	if err := json.Unmarshal(resp.JSON, &ans); err != nil {
		return nil, memory.Errorf(memory.EINVALID, "dreams: bridge: malformed answer: %v", err)
	}
	ans.Bridge, ans.Insight = strings.TrimSpace(ans.Bridge), strings.TrimSpace(ans.Insight)
	if ans.Bridge == "" || ans.Insight == "" || len(ans.Bridge) > memory.MaxDreamBytes || len(ans.Insight) > memory.MaxDreamBytes {
		return nil, nil
	}
	c := &candidate{Bridge: ans.Bridge, Insight: ans.Insight}
	c.sources = append(c.sources, facts[s.a.core].ID, facts[s.b.core].ID)
	for _, i := range append(slices.Clone(s.a.supporters), s.b.supporters...) {
		c.sources = append(c.sources, facts[i].ID)
	}
	return c, nil
}

// quoteFact is a fact as the bridge prompt quotes it: its speaker and
// text on one line, cut at dreamFactRunes.
func quoteFact(f *memory.Fact) string {
	s := strings.Join(strings.Fields(f.Body()), " ")
	if r := []rune(s); len(r) > dreamFactRunes {
		s = string(r[:dreamFactRunes]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// evaluate asks llm which candidates would surprise the user and returns
// those, in the candidates' order, each once; indices out of range are
// ignored.
func evaluate(ctx context.Context, llm memory.LLM, cands []candidate) ([]candidate, error) {
	var b strings.Builder
	for i, c := range cands {
		fmt.Fprintf(&b, "[%d] BRIDGE: %s\n    INSIGHT: %s\n", i, oneLine(c.Bridge), oneLine(c.Insight))
	}
	resp, err := llm.Chat(ctx, &memory.ChatRequest{
		Stage:       StageDreamEvaluate,
		System:      dreamEvaluateSystem,
		Messages:    []memory.ChatMessage{{Role: memory.RoleUser, Content: b.String()}},
		Schema:      &memory.Schema{Name: "dream_evaluation", Description: "the candidates kept", JSON: json.RawMessage(dreamEvaluateSchema)},
		Temperature: DreamEvaluateTemperature,
	})
	if err != nil {
		return nil, fmt.Errorf("dreams: evaluate: %w", err)
	}
	var ans struct {
		Selected []int `json:"selected"`
	}
	if err := json.Unmarshal(resp.JSON, &ans); err != nil {
		return nil, memory.Errorf(memory.EINVALID, "dreams: evaluate: malformed answer: %v", err)
	}
	keep := make([]bool, len(cands))
	for _, i := range ans.Selected {
		if i >= 0 && i < len(cands) {
			keep[i] = true
		}
	}
	var out []candidate
	for i, c := range cands {
		if keep[i] {
			out = append(out, c)
		}
	}
	return out, nil
}

// nearAny reports whether v has a cosine above min with one of vs of its
// dimension.
func nearAny(v []float32, vs [][]float32, minCos float64) bool {
	u := unit(v)
	if u == nil {
		return false
	}
	for _, w := range vs {
		if len(w) != len(u) {
			continue
		}
		if x := unit(w); x != nil && dot(u, x) > minCos {
			return true
		}
	}
	return false
}

// unit returns v scaled to length 1, or nil for an empty or zero vector.
func unit(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return nil
	}
	n = math.Sqrt(n)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// dreamSystem is the system prompt of a bridge call.
const dreamSystem = `You look for cross-domain insight in one person's memories. You get two clusters of facts from different areas of their life: each a core fact and a few supporting ones.

Find the deepest structural pattern, hidden dependency or ironic contradiction that connects the two areas — something true of this person that neither cluster shows alone.

Answer with:
- bridge: the connection as an abstract concept of two to four words.
- insight: one vivid, specific sentence about this person that states it. Ground it in the facts given; invent nothing. No generic wisdom, no fortune-cookie lines.

If there is no genuine connection, answer with an empty bridge and an empty insight.`

// dreamSchema is the JSON Schema of a bridge answer.
const dreamSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["bridge", "insight"],
  "properties": {
    "bridge": {"type": "string"},
    "insight": {"type": "string"}
  }
}`

// dreamEvaluateSystem is the system prompt of the evaluator.
const dreamEvaluateSystem = `You are a strict filter for insights a memory system generated about one person, each bridging two unrelated areas of their life.

Keep only the candidates that would genuinely surprise this person: a connection they have not considered, that makes them pause. Reject anything generic (true of anyone), obvious (a restatement of the facts), forced (a stretch), fortune-cookie wisdom, or repetitive of another candidate. Most candidates should be rejected; keeping none is a good answer.

Answer with the 0-based indices of the candidates you keep in selected, and one sentence of reasoning.`

// dreamEvaluateSchema is the JSON Schema of an evaluator answer.
const dreamEvaluateSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["selected", "reasoning"],
  "properties": {
    "selected": {"type": "array", "items": {"type": "integer"}},
    "reasoning": {"type": "string"}
  }
}`
