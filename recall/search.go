package recall

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"golang.org/x/sync/errgroup"
)

// ranking is one strategy's ranked hits.
type ranking struct {
	name   string
	weight float64
	hits   []memory.Hit
	// byScore fuses the hits by their scores rather than their ranks
	// (see fuse).
	byScore bool
}

// search runs the strategies (DESIGN §5 step 2): the vector strategies
// (semantic, temporal), the keyword and context strategies and the
// lookup of the query's entity mentions in parallel, then the graph
// strategy seeded by their fused top. A strategy of weight 0 does not
// run.
func (p *Pipeline) search(ctx context.Context, q memory.Query, a *analysis) ([]ranking, error) {
	w := p.Weights
	var sem, tmp, key, cx []memory.Hit
	g, gctx := errgroup.WithContext(ctx)
	if w.Semantic > 0 || (w.Temporal > 0 && a.window) {
		g.Go(func() (err error) {
			sem, tmp, err = p.vector(gctx, q, a)
			return err
		})
	}
	if w.Keyword > 0 || w.Context > 0 {
		g.Go(func() (err error) {
			key, cx, err = p.keyword(gctx, q, a)
			return err
		})
	}
	g.Go(func() error { return p.mentions(gctx, q, a) }) // names.go
	if err := g.Wait(); err != nil {
		return nil, err
	}
	ranks := []ranking{
		{name: memory.StrategySemantic, weight: w.Semantic, hits: sem},
		{name: memory.StrategyKeyword, weight: w.Keyword, hits: key},
		{name: memory.StrategyTemporal, weight: w.Temporal, hits: tmp},
		{name: StrategyContext, weight: w.Context, hits: cx, byScore: true},
	}
	if w.Graph > 0 {
		seeds := fuse(ranks, p.RRFK)
		gh, err := p.graph(ctx, q, a, seeds) // graph.go
		if err != nil {
			return nil, err
		}
		ranks = append(ranks, ranking{name: memory.StrategyGraph, weight: w.Graph, hits: gh})
	}
	return ranks, nil
}

// vector runs the strategies that search by the query's embedding, each
// when weighed: semantic (the facts most similar to the query) and
// temporal (the most similar facts within the query's time window).
func (p *Pipeline) vector(ctx context.Context, q memory.Query, a *analysis) (sem, tmp []memory.Hit, err error) {
	w := p.Weights
	k := max(p.Candidates, q.Limit)
	vecs, err := p.Embedder.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, nil, fmt.Errorf("embed query: %w", err)
	}
	if w.Semantic > 0 {
		if sem, err = p.Store.SearchVector(ctx, q.BankID, vecs[0], k, q.Filter); err != nil {
			return nil, nil, fmt.Errorf("semantic search: %w", err)
		}
		sem = cutWeak(sem, 0) // a cosine of 0 or less is no evidence
	}
	if w.Temporal > 0 && a.window {
		f := q.Filter
		f.From, f.To = laterOf(f.From, a.From), earlierOf(f.To, a.To)
		if tmp, err = p.Store.SearchVector(ctx, q.BankID, vecs[0], k, f); err != nil {
			return nil, nil, fmt.Errorf("temporal search: %w", err)
		}
	}
	return sem, tmp, nil
}

// keyword runs the keyword strategy and, when weighed, the context
// strategy it feeds: the keyword search, the kind search (kinds.go) and
// the document search (context.go) in parallel, then the context
// strategy over every keyword hit (a weak hit can be the neighbour of the
// answer) merged with the kinds'. It keeps the facts the context strategy
// loaded in a.facts.
func (p *Pipeline) keyword(ctx context.Context, q memory.Query, a *analysis) (key, cx []memory.Hit, err error) {
	withContext := p.Weights.Context > 0
	var all, kinds []memory.Hit
	var docs map[string]float64
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		if all, err = p.Store.SearchText(gctx, q.BankID, a.Terms, max(p.Candidates, q.Limit), q.Filter); err != nil {
			return fmt.Errorf("keyword search: %w", err)
		}
		return nil
	})
	if withContext {
		g.Go(func() (err error) {
			kinds, err = p.kindSearch(gctx, q, a)
			return err
		})
		g.Go(func() (err error) {
			docs, err = p.documentScores(gctx, q, a.Terms)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	key = cutWeak(all, p.KeywordFloor)
	if !withContext {
		return key, nil, nil
	}
	all = mergeKinds(all, kinds, p.KindWeight)
	cx, a.facts, err = p.contextual(ctx, q, all, docs)
	return key, cx, err
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
