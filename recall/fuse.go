package recall

import (
	"sort"

	"github.com/mnemo-ai/mnemo/memory"
)

// candidate is a fact with its fused score and, per strategy, its rank.
type candidate struct {
	id      string
	score   float64
	first   int // best rank across strategies, for stable ties
	explain map[string]memory.StrategyScore
}

// fuse combines rankings with weighted Reciprocal Rank Fusion:
// score(f) = Σ weight_s / (k + rank_s(f)). A ranking fused by score
// contributes weight_s / (k + 1) · score_s(f) / best score_s instead: its
// scores are calibrated (the context strategy's), and RRF would flatten a
// hit and the neighbour that inherits half of its score into adjacent
// ranks. Ties go to the fact with the better best rank, then to the id.
func fuse(ranks []ranking, k float64) []candidate {
	byID := map[string]*candidate{}
	var order []*candidate
	for _, r := range ranks {
		if r.weight <= 0 {
			continue
		}
		for i, h := range r.hits {
			c := byID[h.ID]
			if c == nil {
				c = &candidate{id: h.ID, first: i, explain: map[string]memory.StrategyScore{}}
				byID[h.ID] = c
				order = append(order, c)
			}
			if _, seen := c.explain[r.name]; seen {
				continue
			}
			if r.byScore {
				// Scored in proportion to the best hit, as rank 1 is in RRF.
				if top := r.hits[0].Score; top > 0 {
					c.score += r.weight / (k + 1) * max(h.Score, 0) / top
				}
			} else {
				c.score += r.weight / (k + float64(i+1))
			}
			c.first = min(c.first, i)
			c.explain[r.name] = memory.StrategyScore{Rank: i + 1, Score: h.Score}
		}
	}
	out := make([]candidate, len(order))
	for i, c := range order {
		out[i] = *c
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		if out[i].first != out[j].first {
			return out[i].first < out[j].first
		}
		return out[i].id < out[j].id
	})
	return out
}

// reachable cuts fused candidates to those that can still reach the top
// limit once boosted: boost multiplies by at most maxBoost, so a candidate
// whose boosted score stays below the limit-th unboosted score never gets
// in, and its fact need not be loaded.
func reachable(fused []candidate, limit int) []candidate {
	if len(fused) <= limit {
		return fused
	}
	floor := fused[limit-1].score
	n := limit
	for n < len(fused) && fused[n].score*maxBoost >= floor {
		n++
	}
	return fused[:n]
}
