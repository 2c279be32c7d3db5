// Package recall is mnemo's read path (DESIGN §5): it analyses a query,
// runs the semantic, keyword, graph and temporal strategies, fuses them
// with weighted Reciprocal Rank Fusion, applies small decay and recency
// boosts, reranks the head (a cross-encoder when configured, else by
// query-term coverage) and packs the best facts into a token-budgeted
// context.
//
// It makes no LLM call and works on contracts only: a memory.Store and a
// memory.Embedder. Scoring and fusion are pure functions and never log.
package recall

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/internal/wordnet"
	"github.com/mnemo-ai/mnemo/memory"
	"golang.org/x/sync/errgroup"
)

// Defaults of the read path.
const (
	// DefaultRRFK is the k of Reciprocal Rank Fusion (Cormack et al.; seeds 000, 003).
	DefaultRRFK = 60
	// DefaultCandidates is how many hits each strategy contributes.
	DefaultCandidates = 100
	// DefaultGraphSeeds is how many top fused facts seed the graph strategy.
	DefaultGraphSeeds = 8
	// DefaultEntityFanout bounds the facts fetched per expanded entity.
	DefaultEntityFanout = 32
	// DefaultRecencyHours is the time constant of event recency
	// exp(-hours/72) (seed 000; Robothor's 72 h).
	DefaultRecencyHours = 72.0
	// DefaultKeywordFloor: keyword hits under half the best keyword score
	// are not keyword evidence (measured on LoCoMo dev: R@10 0.664 → 0.68,
	// MRR 0.40 → 0.46).
	DefaultKeywordFloor = 0.5
	// DefaultBoost bounds each multiplicative boost (decay, recency), so
	// relevance stays first.
	DefaultBoost = 0.05
	// DefaultKindWeight: the facts that name kinds of what a question
	// asks for ("karate" for "what martial arts…") join the keyword hits
	// with their best scoring as the best keyword hit (docs/recall.md).
	DefaultKindWeight = 1.0
	// DefaultCountSpread: for a counting question, a document's second
	// result in the head scores × 0.7, its third × 0.49 (docs/recall.md).
	DefaultCountSpread = 0.3
)

// Weights are the per-strategy weights of the fusion. A zero weight turns
// a strategy off.
type Weights struct {
	Semantic float64
	Keyword  float64
	Graph    float64
	Temporal float64
	// Context weighs the context strategy: keyword hits rescored with
	// their documents, neighbours and speakers (context.go).
	Context float64
}

// DefaultWeights were measured on the LoCoMo dev split with the offline
// defaults (docs/recall.md): the context strategy (keyword hits lifted by
// their document, neighbours and speaker) carries the signal, the
// temporal window adds to it. Rank fusion with the hashed embedding, the
// plain keyword ranking or the graph only pulled its answers down, so
// they are off; with a learned embedder, weigh Semantic anew.
var DefaultWeights = Weights{Context: 1.0, Temporal: 0.3}

// EmbedderWeights are the defaults with a learned embedder: the semantic
// strategy joins at a low weight. Measured on the LoCoMo dev split with
// GloVe 6B 100-d (provider/wordvec): semantic 0 / 0.1 / 0.3 / 0.5 gave
// R@10 0.7606 / 0.7652 / 0.7528 / 0.7313 (docs/embeddings.md).
var EmbedderWeights = Weights{Context: 1.0, Temporal: 0.3, Semantic: 0.1}

// TimeResolver finds a time expression in text and resolves it against
// ref to a [from, to) window.
type TimeResolver func(text string, ref time.Time) (from, to time.Time, ok bool)

// Pipeline is the read path. Create it with New; it is safe for
// concurrent use.
type Pipeline struct {
	Store    memory.Store
	Embedder memory.Embedder
	// ResolveTime resolves time expressions in queries; nil disables the
	// temporal strategy.
	ResolveTime TimeResolver
	Weights     Weights
	RRFK        float64
	Candidates  int
	// KeywordFloor (DefaultKeywordFloor) drops keyword hits scoring below
	// this fraction of the best one: RRF sees only ranks, so without a floor a fact matching
	// only a common word (a speaker's name) gets keyword credit next to
	// one matching the rare words of the question.
	KeywordFloor float64
	// Reranker, when set, reorders the best RerankDepth fused results by
	// a cross-encoder's scores (DESIGN §5 step 4). Without one, the
	// fallback multiplies their scores by 1 + RerankCoverage·C, C the
	// IDF-weighted share of the query's terms a fact covers, a term only
	// its adjacent fact holds counting RerankNeighbour (signals.go); New
	// sets both to their Default*, a zero RerankCoverage turns it off.
	Reranker        memory.Reranker
	RerankDepth     int
	RerankCoverage  float64
	RerankNeighbour float64
	Now             func() time.Time

	// DocumentShare, NeighbourShare, NeighbourRadius, NeighbourDecay and
	// SpeakerBoost tune the context strategy (context.go); New sets them
	// to their Default*. A zero share or boost leaves that signal out.
	DocumentShare   float64
	NeighbourShare  float64
	NeighbourRadius int
	NeighbourDecay  float64
	SpeakerBoost    float64

	// Kinds finds the query words that name what the answer is a kind
	// of, and words for those kinds ("what martial arts…" → "arts":
	// karate, judo, …); a fact that says a kind joins the keyword hits of
	// the context strategy. New sets it to the embedded WordNet
	// (wordnet.QueryKinds); nil turns the expansion off.
	Kinds func(words []string) map[string][]string
	// KindWeight (DefaultKindWeight) is what the best hit of the kinds
	// scores against the best keyword hit; 0 turns the search off.
	KindWeight float64
	// CountSpread (DefaultCountSpread) spreads the answer to a question
	// that counts ("how many times…", "how many children…") over
	// documents: each occurrence counts, and they are seldom told in one
	// session. ("How often…" asks for a frequency one turn states.) Among
	// the best RerankDepth results, the n-th of a document (from 0)
	// scores × (1 − CountSpread)^n. 0 turns it off.
	CountSpread float64
}

// rerankDepth is RerankDepth or its default.
func (p *Pipeline) rerankDepth() int {
	if p.RerankDepth <= 0 {
		return DefaultRerankDepth
	}
	return p.RerankDepth
}

// DefaultRerankDepth is how many fused results a Reranker reorders.
const DefaultRerankDepth = 20

// rerank reorders the head of results by the Reranker's scores, keeping
// the fused order among equal scores and for the tail. When the reranker
// fails the fused order stands: a correct answer, only less refined.
func (p *Pipeline) rerank(ctx context.Context, q memory.Query, results []memory.Result) []memory.Result {
	if p.Reranker == nil || len(results) < 2 {
		return results
	}
	head := results[:min(p.rerankDepth(), len(results))]
	docs := make([]string, len(head))
	for i, r := range head {
		docs[i] = memory.FormatFact(r.Fact)
	}
	scores, err := p.Reranker.Rerank(ctx, q.Text, docs)
	if err != nil || len(scores) != len(head) {
		return results
	}
	idx := make([]int, len(head))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	out := make([]memory.Result, 0, len(results))
	for _, i := range idx {
		r := head[i]
		if q.Explain {
			if r.Explain == nil {
				r.Explain = map[string]memory.StrategyScore{}
			}
			r.Explain[StrategyRerank] = memory.StrategyScore{Rank: len(out) + 1, Score: scores[i]}
		}
		out = append(out, r)
	}
	return append(out, results[len(head):]...)
}

// StrategyRerank names the reranker's score in explanations.
const StrategyRerank = "rerank"

// history attaches to each result the facts it superseded, so a current
// fact shows what it replaced ("previously: …").
func (p *Pipeline) history(ctx context.Context, bank string, asOf time.Time, results []memory.Result) error {
	if len(results) == 0 {
		return nil
	}
	ids := make([]string, len(results))
	at := make(map[string]int, len(results))
	for i, r := range results {
		ids[i] = r.Fact.ID
		at[r.Fact.ID] = i
	}
	old, err := p.Store.SupersededBy(ctx, bank, ids)
	if err != nil {
		return fmt.Errorf("load history: %w", err)
	}
	for _, f := range old {
		if !asOf.IsZero() && (f.ExpiredAt.IsZero() || f.ExpiredAt.After(asOf)) {
			continue // not yet replaced at the as-of time
		}
		if i, ok := at[f.SupersededBy]; ok {
			results[i].Previously = append(results[i].Previously, f)
		}
	}
	return nil
}

// cutWeak drops the hits (ordered best first) that score no more than 0
// or below floor times the best score.
func cutWeak(hits []memory.Hit, floor float64) []memory.Hit {
	if len(hits) == 0 {
		return hits
	}
	min := hits[0].Score * max(floor, 0)
	for i, h := range hits {
		if h.Score <= 0 || h.Score < min {
			return hits[:i]
		}
	}
	return hits
}

// New returns a pipeline with the default tunables.
func New(store memory.Store, emb memory.Embedder, rt TimeResolver) *Pipeline {
	return &Pipeline{Store: store, Embedder: emb, ResolveTime: rt, Weights: DefaultWeights,
		RRFK: DefaultRRFK, Candidates: DefaultCandidates, KeywordFloor: DefaultKeywordFloor, Now: time.Now,
		DocumentShare: DefaultDocumentShare, NeighbourShare: DefaultNeighbourShare, NeighbourRadius: DefaultNeighbourRadius,
		NeighbourDecay: DefaultNeighbourDecay, SpeakerBoost: DefaultSpeakerBoost,
		RerankCoverage: DefaultRerankCoverage, RerankNeighbour: DefaultRerankNeighbour,
		Kinds: wordnet.QueryKinds, KindWeight: DefaultKindWeight, CountSpread: DefaultCountSpread}
}

// Validate checks a query: a valid bank, non-empty valid UTF-8 text of at
// most memory.MaxQueryBytes, a sane limit and budget.
func Validate(q *memory.Query) error {
	if err := memory.ValidateBankName(q.BankID); err != nil {
		return err
	}
	if !utf8.ValidString(q.Text) {
		return memory.Errorf(memory.EINVALID, "query is not valid UTF-8")
	}
	if strings.TrimSpace(q.Text) == "" {
		return memory.Errorf(memory.EINVALID, "query is empty")
	}
	if len(q.Text) > memory.MaxQueryBytes {
		return memory.Errorf(memory.EINVALID, "query is %d bytes; the limit is %d", len(q.Text), memory.MaxQueryBytes)
	}
	if q.Limit < 0 || q.Limit > memory.MaxRecallLimit {
		return memory.Errorf(memory.EINVALID, "limit %d is out of range 1-%d", q.Limit, memory.MaxRecallLimit)
	}
	if q.Budget < 0 {
		return memory.Errorf(memory.EINVALID, "token budget %d is negative", q.Budget)
	}
	switch q.Format {
	case "", memory.FormatText, memory.FormatMarkdown, memory.FormatJSON:
	default:
		return memory.Errorf(memory.EINVALID, "context format %q: want text, markdown or json", q.Format)
	}
	return nil
}

// Recall answers a query.
func (p *Pipeline) Recall(ctx context.Context, q memory.Query) (*memory.Recollection, error) {
	if err := Validate(&q); err != nil {
		return nil, err
	}
	if q.Limit == 0 {
		q.Limit = memory.DefaultRecallLimit
	}
	if q.Budget == 0 {
		q.Budget = memory.DefaultTokenBudget
	}
	if q.Now.IsZero() {
		// As of a past time, "last week" and recency are reckoned from then.
		q.Now = q.Filter.AsOf
	}
	if q.Now.IsZero() {
		q.Now = p.Now()
	}
	a := p.analyse(q)
	// The first phase (observations) runs beside the fact strategies.
	type phase1 struct {
		obs []memory.ObservationResult
		err error
	}
	first := make(chan phase1, 1)
	go func() {
		obs, err := p.observations(ctx, q, a.Terms)
		first <- phase1{obs, err}
	}()
	ranks, err := p.search(ctx, q, &a) // first is buffered: an early return leaks nothing
	if err != nil {
		return nil, err
	}
	fused := fuse(ranks, p.rrfK())
	fused = reachable(fused, q.Limit)
	byID := make(map[string]*memory.Fact, len(fused))
	var ids []string
	for _, c := range fused {
		if f := a.facts[c.id]; f != nil {
			byID[c.id] = f
		} else {
			ids = append(ids, c.id)
		}
	}
	if len(ids) > 0 {
		facts, err := p.Store.Facts(ctx, q.BankID, ids)
		if err != nil {
			return nil, fmt.Errorf("load facts: %w", err)
		}
		for _, f := range facts {
			byID[f.ID] = f
		}
	}
	results := make([]memory.Result, 0, len(fused))
	for _, c := range fused {
		f := byID[c.id]
		if f == nil || !Matches(f, q.Filter) {
			// Removed between search and load, or reached through the graph,
			// which follows links whatever the filter says.
			continue
		}
		r := memory.Result{Fact: f, Score: c.score * boost(f, q.Now)}
		if q.Explain {
			r.Explain = c.explain
		}
		results = append(results, r)
	}
	sortResults(results)
	if p.Reranker == nil {
		results = p.coverage(q, &a, results)
	}
	results = p.rerank(ctx, q, results)
	if a.count && p.CountSpread > 0 {
		spread(results, p.rerankDepth(), p.CountSpread)
	}
	ph := <-first
	if ph.err != nil {
		return nil, ph.err
	}
	obs := ph.obs
	results = unbundled(results, obs)
	if len(results) > q.Limit {
		results = results[:q.Limit]
	}
	if err := p.history(ctx, q.BankID, q.Filter.AsOf, results); err != nil {
		return nil, err
	}
	out := &memory.Recollection{Results: results, Analysis: a.QueryAnalysis, Observations: obs}
	out.Context, out.Tokens = PackContext(out, PackOptions{Budget: q.Budget, Format: q.Format, Chronological: a.window})
	return out, nil
}

func (p *Pipeline) weights() Weights {
	if p.Weights == (Weights{}) {
		return DefaultWeights
	}
	return p.Weights
}

func (p *Pipeline) rrfK() float64 {
	if p.RRFK <= 0 {
		return DefaultRRFK
	}
	return p.RRFK
}

// analysis is what the strategies need of the query.
type analysis struct {
	memory.QueryAnalysis
	words    []string // all words, lower case
	window   bool
	count    bool // the query counts: "how many"
	entities []*memory.Entity
	// facts are the facts the context strategy loaded, by id, that pass
	// the query's filter: Recall need not load them again.
	facts map[string]*memory.Fact
}

// analyse finds the keyword terms and the time window of a query.
func (p *Pipeline) analyse(q memory.Query) analysis {
	a := analysis{words: lex.Words(q.Text)}
	for i := 0; i+1 < len(a.words); i++ {
		if a.words[i] == "how" && a.words[i+1] == "many" {
			a.count = true
		}
	}
	seen := map[string]bool{}
	for _, w := range a.words {
		if lex.IsStopword(w) || seen[w] {
			continue
		}
		seen[w] = true
		a.Terms = append(a.Terms, w)
	}
	if p.ResolveTime != nil {
		if from, to, ok := p.ResolveTime(q.Text, q.Now); ok {
			a.From, a.To, a.window = from, to, true
		}
	}
	return a
}

// nameCandidates are the word n-grams (n ≤ 3) of a query that could name
// an entity, normalised as memory.NormalizeName does.
func nameCandidates(words []string) []string {
	var out []string
	for n := 1; n <= 3; n++ {
		for i := 0; i+n <= len(words); i++ {
			if n == 1 && lex.IsStopword(words[i]) {
				continue
			}
			out = append(out, strings.Join(words[i:i+n], " "))
		}
	}
	return out
}

// ranking is one strategy's ranked hits.
type ranking struct {
	name   string
	weight float64
	hits   []memory.Hit
	// byScore fuses the hits by their scores rather than their ranks
	// (see fuse).
	byScore bool
}

// search runs the strategies: semantic, keyword and temporal in parallel,
// then the graph strategy seeded by their fused top.
func (p *Pipeline) search(ctx context.Context, q memory.Query, a *analysis) ([]ranking, error) {
	w := p.weights()
	k := max(p.Candidates, q.Limit)
	var sem, key, tmp, cx []memory.Hit
	g, gctx := errgroup.WithContext(ctx)
	if w.Semantic > 0 || (w.Temporal > 0 && a.window) {
		g.Go(func() error {
			vecs, err := p.Embedder.Embed(gctx, []string{q.Text})
			if err != nil {
				return fmt.Errorf("embed query: %w", err)
			}
			if w.Semantic > 0 {
				if sem, err = p.Store.SearchVector(gctx, q.BankID, vecs[0], k, q.Filter); err != nil {
					return fmt.Errorf("semantic search: %w", err)
				}
				sem = cutWeak(sem, 0) // a cosine of 0 or less is no evidence
			}
			if w.Temporal > 0 && a.window {
				f := q.Filter
				f.From, f.To = laterOf(f.From, a.From), earlierOf(f.To, a.To)
				if tmp, err = p.Store.SearchVector(gctx, q.BankID, vecs[0], k, f); err != nil {
					return fmt.Errorf("temporal search: %w", err)
				}
			}
			return nil
		})
	}
	if w.Keyword > 0 || w.Context > 0 {
		var docs func() (map[string]float64, error)
		var kinds func() ([]memory.Hit, error)
		if w.Context > 0 {
			docs = p.documentScores(gctx, q, a.Terms) // beside the keyword search
			kinds = p.kindSearch(gctx, q, a)
		}
		g.Go(func() error {
			all, err := p.Store.SearchText(gctx, q.BankID, a.Terms, k, q.Filter)
			if err != nil {
				return fmt.Errorf("keyword search: %w", err)
			}
			key = cutWeak(all, p.KeywordFloor)
			if kinds != nil {
				kh, err := kinds()
				if err != nil {
					return err
				}
				all = mergeKinds(all, kh, p.KindWeight)
			}
			if w.Context > 0 {
				ds, err := docs()
				if err != nil {
					return err
				}
				// The context strategy sees every hit: a weak hit can be
				// the neighbour of the answer.
				cx, a.facts, err = p.contextual(gctx, q, all, ds)
				return err
			}
			return nil
		})
	}
	{ // the query's entity mentions (DESIGN §5 step 1), for the analysis and the graph
		g.Go(func() error {
			ents, err := p.Store.EntitiesByName(gctx, q.BankID, nameCandidates(a.words))
			if err != nil {
				return fmt.Errorf("entity lookup: %w", err)
			}
			a.entities = ents
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for _, e := range a.entities {
		a.Entities = append(a.Entities, e.Name)
	}
	ranks := []ranking{
		{name: memory.StrategySemantic, weight: w.Semantic, hits: sem},
		{name: memory.StrategyKeyword, weight: w.Keyword, hits: key},
		{name: memory.StrategyTemporal, weight: w.Temporal, hits: tmp},
		{name: StrategyContext, weight: w.Context, hits: cx, byScore: true},
	}
	if w.Graph > 0 {
		seeds := fuse(ranks, p.rrfK())
		gh, err := p.graph(ctx, q, a, seeds)
		if err != nil {
			return nil, err
		}
		ranks = append(ranks, ranking{name: memory.StrategyGraph, weight: w.Graph, hits: gh})
	}
	return ranks, nil
}

func laterOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlierOf(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// Matches reports whether a fact passes a filter, with the store's
// semantics: statuses default to active only, kinds and tags match any of
// theirs, the event time must fall in [From, To), and sensitive facts
// need Filter.Sensitive.
func Matches(f *memory.Fact, flt memory.Filter) bool {
	statuses := flt.Statuses
	if len(statuses) == 0 {
		statuses = []memory.Status{memory.StatusActive}
	}
	status := f.Status
	if !flt.AsOf.IsZero() {
		if !memory.KnownAt(f, flt.AsOf) {
			return false
		}
		status = memory.StatusAt(f, flt.AsOf)
	}
	if !slices.Contains(statuses, status) {
		return false
	}
	if f.Sensitivity == memory.SensitivitySensitive && !flt.Sensitive {
		return false
	}
	if len(flt.Kinds) > 0 && !slices.Contains(flt.Kinds, f.Kind) {
		return false
	}
	if len(flt.Tags) > 0 && !slices.ContainsFunc(flt.Tags, func(t string) bool { return slices.Contains(f.Tags, t) }) {
		return false
	}
	if !flt.From.IsZero() || !flt.To.IsZero() {
		t := f.EventTime()
		if t.IsZero() || (!flt.From.IsZero() && t.Before(flt.From)) || (!flt.To.IsZero() && !t.Before(flt.To)) {
			return false
		}
	}
	return true
}

// kindSearch starts the keyword search for the words naming kinds of what
// the query asks for (Pipeline.Kinds), beside the keyword search, and
// returns a function that waits for its hits (none when the query asks
// for no kind); nil when the search is off.
func (p *Pipeline) kindSearch(ctx context.Context, q memory.Query, a *analysis) func() ([]memory.Hit, error) {
	if p.Kinds == nil || p.KindWeight <= 0 {
		return nil
	}
	type result struct {
		hits []memory.Hit
		err  error
	}
	done := make(chan result, 1)
	go func() {
		terms := kindTerms(p.Kinds(a.words), a.Terms)
		if len(terms) == 0 {
			done <- result{}
			return
		}
		hits, err := p.Store.SearchText(ctx, q.BankID, terms, max(p.Candidates, q.Limit), q.Filter)
		done <- result{hits, err}
	}()
	return func() ([]memory.Hit, error) {
		r := <-done
		if r.err != nil {
			return nil, fmt.Errorf("kind search: %w", r.err)
		}
		return r.hits, nil
	}
}

// kindTerms are the words of kinds (by query word) that are not already
// among the query's terms, each once, in a fixed order. The lists are
// long (thousands of words) and each is free of repeats already, so one
// list is only filtered; several are merged through a set.
func kindTerms(kinds map[string][]string, terms []string) []string {
	var out []string
	if len(kinds) == 1 {
		for _, ks := range kinds {
			out = make([]string, 0, len(ks))
			for _, k := range ks {
				if !slices.Contains(terms, k) {
					out = append(out, k)
				}
			}
		}
		return out
	}
	seen := map[string]bool{}
	for _, t := range terms {
		seen[t] = true
	}
	for _, w := range slices.Sorted(maps.Keys(kinds)) {
		for _, k := range kinds[w] {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// mergeKinds adds the hits of the kind search to the keyword hits (best
// first), scaled so the best kind hit scores weight × the best keyword
// hit, and returns them best first.
func mergeKinds(hits, ex []memory.Hit, weight float64) []memory.Hit {
	if len(ex) == 0 || ex[0].Score <= 0 {
		return hits
	}
	top := 1.0
	if len(hits) > 0 && hits[0].Score > 0 {
		top = hits[0].Score
	}
	at := make(map[string]int, len(hits))
	for i, h := range hits {
		at[h.ID] = i
	}
	out := slices.Clone(hits)
	for _, h := range ex {
		s := weight * top * h.Score / ex[0].Score
		if i, ok := at[h.ID]; ok {
			out[i].Score += s
		} else {
			at[h.ID] = len(out)
			out = append(out, memory.Hit{ID: h.ID, Score: s})
		}
	}
	slices.SortStableFunc(out, func(a, b memory.Hit) int {
		if a.Score > b.Score {
			return -1
		}
		if a.Score < b.Score {
			return 1
		}
		return 0
	})
	return out
}

// spread reorders the best depth results (sorted) so that the n-th of a
// document (n from 0) scores × (1 − d)^n: results from other documents
// move up. Results without a document are left as they are.
func spread(results []memory.Result, depth int, d float64) {
	head := results[:min(depth, len(results))]
	seen := map[string]int{}
	for i := range head {
		doc := head[i].Fact.DocumentID
		if doc == "" {
			continue
		}
		n := seen[doc]
		seen[doc] = n + 1
		for ; n > 0; n-- {
			head[i].Score *= 1 - d
		}
	}
	sortResults(head)
}
