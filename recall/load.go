package recall

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// load turns fused candidates into results, best first: their facts
// (those the context strategy loaded are reused, the rest read from the
// store), those that still pass the query's filter, each scored by its
// fused score times its lifecycle boost (DESIGN §5 step 5).
func (p *Pipeline) load(ctx context.Context, q memory.Query, a *analysis, fused []candidate) ([]memory.Result, error) {
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
	now := p.Now() // the clock, not the query's reference time: expiry is real time
	for _, c := range fused {
		f := byID[c.id]
		if f == nil || !p.visible(f, q, now) {
			// Removed between search and load, reached through the graph,
			// which follows links whatever the filter says, or a short-term
			// memory whose time is up.
			continue
		}
		r := memory.Result{Fact: f, Score: c.score * boost(f, q.Now), Tier: f.Tier()}
		if q.Explain {
			r.Explain = c.explain
		}
		results = append(results, r)
	}
	sortResults(results)
	return results, nil
}

// maxBoost is the largest factor boost returns.
const maxBoost = 1 + 2*DefaultBoost

// boost is the multiplicative lifecycle factor of a fact at time now:
// 1 + b·decay + b·recency with b = DefaultBoost, where decay is the
// access decay 0.99^(hours since last access / strength) and recency the
// event recency exp(-hours/72) (seed 000). Both are in [0, 1], so the
// factor stays within [1, 1+2b] and relevance stays first.
func boost(f *memory.Fact, now time.Time) float64 {
	last := f.LastAccessed
	if last.IsZero() {
		last = f.CreatedAt
	}
	strength := 1 + float64(f.AccessCount) + float64(f.ReinforcementCount)
	decay := math.Pow(0.99, hoursSince(now, last)/strength)
	recency := math.Exp(-hoursSince(now, f.EventTime()) / DefaultRecencyHours)
	return 1 + DefaultBoost*decay + DefaultBoost*recency
}

func hoursSince(now, t time.Time) float64 {
	if t.IsZero() {
		return math.Inf(1)
	}
	return math.Max(0, now.Sub(t).Hours())
}

// sortResults orders results by score, then by ingestion order.
func sortResults(rs []memory.Result) {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Score != rs[j].Score {
			return rs[i].Score > rs[j].Score
		}
		return rs[i].Fact.Seq < rs[j].Fact.Seq
	})
}
