package recall

import (
	"context"
	"fmt"
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

// Defaults of recall's first phase (seed 000: "Observations — vector +
// full-text hybrid search, top 5 results").
const (
	// DefaultObservations is how many observations the first phase
	// returns.
	DefaultObservations = 5
	// DefaultBundled is how many of an observation's most recent source
	// facts come bundled with it.
	DefaultBundled = 3
)

// observations is recall's first phase: the best observations by hybrid
// search (vector and full text fused with RRF), each with its most recent
// source facts that pass the query's filter. It returns nothing when the
// store keeps no observations or the bank has none that match.
func (p *Pipeline) observations(ctx context.Context, q memory.Query, terms []string) ([]memory.ObservationResult, error) {
	os, ok := p.Store.(memory.ObservationStore)
	if !ok {
		return nil, nil
	}
	k := 4 * DefaultObservations
	text, err := os.SearchObservationsText(ctx, q.BankID, terms, k)
	if err != nil {
		return nil, fmt.Errorf("observations: %w", err)
	}
	vecs, err := p.Embedder.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	var vector []memory.Hit
	if len(vecs) == 1 {
		if vector, err = os.SearchObservationsVector(ctx, q.BankID, vecs[0], k); err != nil {
			return nil, fmt.Errorf("observations: %w", err)
		}
	}
	// Vector hits alone are weak evidence with the offline embedder: an
	// observation needs a keyword match, or a close vector.
	vector = slices.DeleteFunc(vector, func(h memory.Hit) bool { return h.Score < minObservationCosine })
	if len(text) == 0 && len(vector) == 0 {
		return nil, nil
	}
	fused := fuse([]ranking{{name: memory.StrategyKeyword, weight: 1, hits: text}, {name: memory.StrategySemantic, weight: 1, hits: vector}}, p.RRFK)
	if len(fused) > DefaultObservations {
		fused = fused[:DefaultObservations]
	}
	ids := make([]string, len(fused))
	for i, c := range fused {
		ids[i] = c.id
	}
	obs, err := os.Observations(ctx, q.BankID, ids)
	if err != nil {
		return nil, fmt.Errorf("observations: %w", err)
	}
	var sources []string
	for _, o := range obs {
		sources = append(sources, o.SourceFactIDs...)
	}
	facts, err := p.Store.Facts(ctx, q.BankID, sources)
	if err != nil {
		return nil, fmt.Errorf("observation sources: %w", err)
	}
	byID := make(map[string]*memory.Fact, len(facts))
	now := p.Now()
	for _, f := range facts {
		if p.visible(f, q, now) {
			byID[f.ID] = f
		}
	}
	score := make(map[string]float64, len(fused))
	for _, c := range fused {
		score[c.id] = c.score
	}
	out := make([]memory.ObservationResult, 0, len(obs))
	for _, o := range obs {
		r := memory.ObservationResult{Observation: o, Score: score[o.ID]}
		for _, id := range o.SourceFactIDs {
			if f := byID[id]; f != nil && !slices.Contains(r.Facts, f) {
				r.Facts = append(r.Facts, f)
			}
		}
		// Most recent first: by event time, then by ingestion order.
		slices.SortStableFunc(r.Facts, func(a, b *memory.Fact) int {
			if c := b.EventTime().Compare(a.EventTime()); c != 0 {
				return c
			}
			return int(b.Seq - a.Seq)
		})
		if len(r.Facts) > DefaultBundled {
			r.Facts = r.Facts[:DefaultBundled]
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b memory.ObservationResult) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return out, nil
}

// minObservationCosine is the cosine an observation needs to be found by
// its vector alone.
const minObservationCosine = 0.5

// unbundled drops from results the facts the first phase already returned
// inside an observation.
func unbundled(results []memory.Result, obs []memory.ObservationResult) []memory.Result {
	if len(obs) == 0 {
		return results
	}
	bundled := map[string]bool{}
	for _, o := range obs {
		for _, f := range o.Facts {
			bundled[f.ID] = true
		}
	}
	return slices.DeleteFunc(results, func(r memory.Result) bool { return bundled[r.Fact.ID] })
}
