package bench

import "math"

// MRRCutoff is how deep the reciprocal rank looks: a first relevant id
// beyond this rank scores 0 (PROTOCOL §4).
const MRRCutoff = 100

// The metric functions below follow PROTOCOL §4 and ref_eval.py formula for
// formula, summation order included, so they agree with the reference to
// the last bits. ranked is R, the run's ranked ids best first, already
// deduplicated (see [Dedup]; [ScoreQuery] does it); gold is G. R[:k] is the
// first min(k, |R|) ids; a k below 1 selects nothing. Gold ids are a set:
// repeats count once. Every function returns 0 when gold is empty.

// Dedup returns ranked without repeated ids, keeping each id's first
// occurrence. It returns a new slice and leaves ranked alone.
func Dedup(ranked []string) []string {
	seen := make(map[string]struct{}, len(ranked))
	out := make([]string, 0, len(ranked))
	for _, id := range ranked {
		if _, ok := seen[id]; ok {
			continue
		}
		seen[id] = struct{}{}
		out = append(out, id)
	}
	return out
}

// Recall returns recall@k: |G ∩ R[:k]| / |G|.
func Recall(ranked, gold []string, k int) float64 {
	return recallAt(ranked, newIDSet(gold), k)
}

// Hit returns hit@k (LongMemEval's recall_any@k): 1 if any gold id is in
// R[:k], else 0.
func Hit(ranked, gold []string, k int) float64 {
	return hitAt(ranked, newIDSet(gold), k)
}

// All returns all@k (LongMemEval's recall_all@k): 1 if every gold id is in
// R[:k], else 0.
func All(ranked, gold []string, k int) float64 {
	return allAt(ranked, newIDSet(gold), k)
}

// ReciprocalRank returns 1/rank of the first gold id in R[:MRRCutoff], or
// 0 if there is none. MRR is its mean.
func ReciprocalRank(ranked, gold []string) float64 {
	return reciprocalRank(ranked, newIDSet(gold))
}

// NDCG returns the standard binary ndcg@k: DCG = Σ_{i≤k, R_i∈G} 1/log2(i+1)
// over IDCG = Σ_{i=1}^{min(|G|,k)} 1/log2(i+1).
func NDCG(ranked, gold []string, k int) float64 {
	return ndcgStd(ranked, newIDSet(gold), k)
}

// NDCGLME returns ndcg_any@k with LongMemEval's DCG weights, w(1) = 1 and
// w(i) = 1/log2(i) for i ≥ 2, so ranks 1 and 2 both weigh 1.
func NDCGLME(ranked, gold []string, k int) float64 {
	return ndcgLME(ranked, newIDSet(gold), k)
}

// QueryScore is the metrics of one query, or with [GroupScore] their mean
// over a group. Its JSON names are the protocol's.
type QueryScore struct {
	Recall5  float64 `json:"recall@5"`
	Recall10 float64 `json:"recall@10"`
	Recall20 float64 `json:"recall@20"`
	Hit5     float64 `json:"hit@5"`
	Hit10    float64 `json:"hit@10"`
	All10    float64 `json:"all@10"`
	MRR      float64 `json:"mrr"`
	NDCG10   float64 `json:"ndcg@10"`
}

// ScoreQuery deduplicates ranked (first occurrence kept) and computes every
// metric of [QueryScore] against gold.
func ScoreQuery(ranked, gold []string) QueryScore {
	r, g := Dedup(ranked), newIDSet(gold)
	return QueryScore{
		Recall5:  recallAt(r, g, 5),
		Recall10: recallAt(r, g, 10),
		Recall20: recallAt(r, g, 20),
		Hit5:     hitAt(r, g, 5),
		Hit10:    hitAt(r, g, 10),
		All10:    allAt(r, g, 10),
		MRR:      reciprocalRank(r, g),
		NDCG10:   ndcgStd(r, g, 10),
	}
}

// GroupScore is the arithmetic mean of the QueryScores of N queries. Its
// JSON is {"n": N, "recall@5": …, …}.
type GroupScore struct {
	N int `json:"n"`
	QueryScore
}

// Mean returns the arithmetic mean of scores, metric by metric, summed in
// order as the reference does. An empty group has N = 0 and zero metrics
// (never NaN, which JSON cannot carry).
func Mean(scores []QueryScore) GroupScore {
	g := GroupScore{N: len(scores)}
	if len(scores) == 0 {
		return g
	}
	var sum QueryScore
	for _, s := range scores {
		sum.Recall5 += s.Recall5
		sum.Recall10 += s.Recall10
		sum.Recall20 += s.Recall20
		sum.Hit5 += s.Hit5
		sum.Hit10 += s.Hit10
		sum.All10 += s.All10
		sum.MRR += s.MRR
		sum.NDCG10 += s.NDCG10
	}
	n := float64(len(scores))
	g.QueryScore = QueryScore{
		Recall5:  sum.Recall5 / n,
		Recall10: sum.Recall10 / n,
		Recall20: sum.Recall20 / n,
		Hit5:     sum.Hit5 / n,
		Hit10:    sum.Hit10 / n,
		All10:    sum.All10 / n,
		MRR:      sum.MRR / n,
		NDCG10:   sum.NDCG10 / n,
	}
	return g
}

// Summarize aggregates per-query scores: overall is the mean over all of
// them (the micro average, not the mean of group means) and byGroup the
// mean per group, where groups[i] names the group of scores[i]. It panics
// if the two slices differ in length.
func Summarize(scores []QueryScore, groups []string) (overall GroupScore, byGroup map[string]GroupScore) {
	if len(scores) != len(groups) {
		panic("bench: Summarize: scores and groups differ in length")
	}
	members := make(map[string][]QueryScore)
	for i, s := range scores {
		members[groups[i]] = append(members[groups[i]], s)
	}
	byGroup = make(map[string]GroupScore, len(members))
	for name, ss := range members {
		byGroup[name] = Mean(ss)
	}
	return Mean(scores), byGroup
}

// idSet is a gold set.
type idSet map[string]struct{}

func newIDSet(ids []string) idSet {
	s := make(idSet, len(ids))
	for _, id := range ids {
		s[id] = struct{}{}
	}
	return s
}

func (s idSet) has(id string) bool {
	_, ok := s[id]
	return ok
}

// top returns R[:k].
func top(ranked []string, k int) []string {
	return ranked[:min(max(k, 0), len(ranked))]
}

// goldIn counts the distinct gold ids in ids.
func goldIn(ids []string, gold idSet) int {
	seen := make(map[string]struct{}, len(gold))
	for _, id := range ids {
		if gold.has(id) {
			seen[id] = struct{}{}
		}
	}
	return len(seen)
}

func recallAt(ranked []string, gold idSet, k int) float64 {
	if len(gold) == 0 {
		return 0
	}
	return float64(goldIn(top(ranked, k), gold)) / float64(len(gold))
}

func hitAt(ranked []string, gold idSet, k int) float64 {
	if goldIn(top(ranked, k), gold) > 0 {
		return 1
	}
	return 0
}

func allAt(ranked []string, gold idSet, k int) float64 {
	if len(gold) > 0 && goldIn(top(ranked, k), gold) == len(gold) {
		return 1
	}
	return 0
}

func reciprocalRank(ranked []string, gold idSet) float64 {
	for i, id := range top(ranked, MRRCutoff) {
		if gold.has(id) {
			return 1 / float64(i+1)
		}
	}
	return 0
}

func ndcgStd(ranked []string, gold idSet, k int) float64 {
	var dcg float64
	for i, id := range top(ranked, k) {
		if gold.has(id) {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	var idcg float64
	for i := range min(len(gold), max(k, 0)) {
		idcg += 1 / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

func ndcgLME(ranked []string, gold idSet, k int) float64 {
	rel := make([]float64, len(ranked))
	for i, id := range ranked {
		if gold.has(id) {
			rel[i] = 1
		}
	}
	ideal := make([]float64, len(gold))
	for i := range ideal {
		ideal[i] = 1
	}
	idcg := dcgLME(ideal, k)
	if idcg == 0 {
		return 0
	}
	return dcgLME(rel, k) / idcg
}

// dcgLME is LongMemEval's dcg: rels[0] plus, added after, the sum of
// rels[i]/log2(i+1) for the 0-based i ≥ 1 below k.
func dcgLME(rels []float64, k int) float64 {
	rels = rels[:min(max(k, 0), len(rels))]
	if len(rels) == 0 {
		return 0
	}
	var tail float64
	for i := 1; i < len(rels); i++ {
		tail += rels[i] / math.Log2(float64(i+1))
	}
	return rels[0] + tail
}
