package recall

import (
	"context"
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

// StrategyRerank names the reranker's score in explanations.
const StrategyRerank = "rerank"

// rerank is the rerank step (DESIGN §5 step 4) over the best RerankDepth
// results (sorted): the Reranker reorders them when the pipeline has one,
// else the coverage fallback rescales them (signals.go); a counting
// question's head is then spread over documents (count.go).
func (p *Pipeline) rerank(ctx context.Context, q memory.Query, a *analysis, results []memory.Result) []memory.Result {
	if p.Reranker != nil {
		results = p.crossEncode(ctx, q, results)
	} else {
		results = p.coverage(q, a, results)
	}
	if a.count && p.CountSpread > 0 {
		spread(results, p.RerankDepth, p.CountSpread)
	}
	return results
}

// crossEncode reorders the head of results by the Reranker's scores,
// keeping the fused order among equal scores and for the tail. When the
// reranker fails the fused order stands: a correct answer, only less
// refined.
func (p *Pipeline) crossEncode(ctx context.Context, q memory.Query, results []memory.Result) []memory.Result {
	if len(results) < 2 {
		return results
	}
	head := results[:min(p.RerankDepth, len(results))]
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
