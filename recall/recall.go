// Package recall is mnemo's read path (DESIGN §5): it analyses a query,
// runs the semantic, keyword, graph and temporal strategies, fuses them
// with weighted Reciprocal Rank Fusion, applies small decay and recency
// boosts, reranks the head (a cross-encoder when configured, else by
// query-term coverage) and packs the best facts into a token-budgeted
// context.
//
// It makes no LLM call and works on contracts only: a Store (the few
// methods of memory.Store it reads) and a memory.Embedder. Scoring and
// fusion are pure functions and never log. Rendering one fact as a line
// is memory's (memory.FormatFact), so adapters need not import recall.
package recall

import (
	"context"
	"time"

	"github.com/mnemo-ai/mnemo/internal/wordnet"
	"github.com/mnemo-ai/mnemo/memory"
	"golang.org/x/sync/errgroup"
)

// TimeResolver finds a time expression in text and resolves it against
// ref to a [from, to) window.
type TimeResolver func(text string, ref time.Time) (from, to time.Time, ok bool)

// Pipeline is the read path. Create it with New; it is safe for
// concurrent use.
//
// Its fields are of two sorts. The collaborators are what it calls:
// Store and Embedder are required; a nil ResolveTime, Reranker or Kinds
// leaves out the step it serves, and a nil Now is time.Now. The tunables
// are the embedded Options, whose zero value is the defaults and where a
// negative value turns a signal off (see Options).
type Pipeline struct {
	Store    Store
	Embedder memory.Embedder
	// ResolveTime resolves time expressions in queries; nil disables the
	// temporal strategy.
	ResolveTime TimeResolver
	// Reranker, when set, reorders the best RerankDepth fused results by
	// a cross-encoder's scores (DESIGN §5 step 4); nil leaves the rerank
	// step to the coverage fallback (signals.go).
	Reranker memory.Reranker
	// Kinds finds the query words that name what the answer is a kind
	// of, and words for those kinds ("what martial arts…" → "arts":
	// karate, judo, …); a fact that says a kind joins the keyword hits of
	// the context strategy (kinds.go). New sets it to the embedded
	// WordNet (wordnet.QueryKinds); nil turns the expansion off.
	Kinds func(words []string) map[string][]string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Lapsed, when set, names the facts whose time is up at now: the
	// short-term memories the expire pass will prune (seed 002,
	// "short_term_memory: 48h TTL, auto-expires"). Recall leaves them
	// out, among its results and an observation's bundled facts alike,
	// so that a short-term memory leaves recall at its TTL, not at the
	// next pass. Nil leaves every fact in.
	Lapsed func(f *memory.Fact, now time.Time) bool

	Options

	// words keeps the distinct words of the texts the coverage reranker
	// scanned (words.go); New makes it, a Pipeline made otherwise scans
	// every time.
	words *wordCache
}

// New returns a pipeline with the default tunables.
func New(store Store, emb memory.Embedder, rt TimeResolver) *Pipeline {
	return &Pipeline{Store: store, Embedder: emb, ResolveTime: rt, Kinds: wordnet.QueryKinds,
		Now: time.Now, Options: DefaultOptions(), words: newWordCache(DefaultWordCacheBytes)}
}

// Recall answers a query. Its stages, in order, each in its own file:
//
//   - query.go: the query checked, its limit, budget and time filled in;
//   - analyse.go: its terms, time window and whether it counts;
//   - observations.go: the first phase, the best observations, run
//     beside the second (facts, below);
//   - search.go: the strategies (context.go, kinds.go, names.go,
//     graph.go);
//   - fuse.go: weighted Reciprocal Rank Fusion, cut to the candidates
//     that can still reach the limit;
//   - load.go: their facts, filtered again, boosted by decay and recency;
//   - rerank.go: the head reordered (signals.go, count.go);
//   - observations.go again: the facts the first phase bundled dropped;
//   - history.go: what each result superseded;
//   - pack.go: the token-budgeted context.
//
// Its store calls share one memory.ReadScope: a store checks the bank's
// own row once per recall, not at each of its ten-odd calls.
func (p *Pipeline) Recall(ctx context.Context, q memory.Query) (*memory.Recollection, error) {
	ctx = memory.WithReadScope(ctx)
	p = p.resolved()
	q, err := p.query(q)
	if err != nil {
		return nil, err
	}
	a := p.analyse(q)
	var obs []memory.ObservationResult
	var results []memory.Result
	g, gctx := errgroup.WithContext(ctx)
	terms := a.Terms
	g.Go(func() (err error) {
		obs, err = p.observations(gctx, q, terms)
		return err
	})
	g.Go(func() (err error) {
		results, err = p.facts(gctx, q, &a)
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	results = unbundled(results, obs)
	if len(results) > q.Limit {
		results = results[:q.Limit]
	}
	if err := p.history(ctx, q.BankID, q.Filter.AsOf, results); err != nil {
		return nil, err
	}
	return pack(q, &a, results, obs), nil
}

// facts is recall's second phase: the strategies' hits fused, loaded as
// boosted results and reranked, best first.
func (p *Pipeline) facts(ctx context.Context, q memory.Query, a *analysis) ([]memory.Result, error) {
	ranks, err := p.search(ctx, q, a)
	if err != nil {
		return nil, err
	}
	fused := reachable(fuse(ranks, p.RRFK), q.Limit)
	results, err := p.load(ctx, q, a, fused)
	if err != nil {
		return nil, err
	}
	return p.rerank(ctx, q, a, results), nil
}

// visible reports whether f is shown to q at now: it passes q's filter
// (Matches) and has not lapsed (Pipeline.Lapsed).
func (p *Pipeline) visible(f *memory.Fact, q memory.Query, now time.Time) bool {
	return Matches(f, q.Filter) && (p.Lapsed == nil || !p.Lapsed(f, now))
}

// resolved is a copy of p whose Options follow their rule (every zero a
// default, every negative off) and whose clock is set, so that the stages
// read plain values.
func (p *Pipeline) resolved() *Pipeline {
	r := *p
	r.Options = p.Options.resolved()
	if r.Now == nil {
		r.Now = time.Now
	}
	return &r
}
