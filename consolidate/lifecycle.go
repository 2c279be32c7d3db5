package consolidate

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// LifecycleStore is what the lifecycle pass needs of a store: walk the
// bank's facts and entities a page at a time, and write the scores,
// salience and tiers it computes.
type LifecycleStore interface {
	ListFacts(ctx context.Context, bankID string, q memory.FactQuery) (*memory.FactPage, error)
	ListEntities(ctx context.Context, bankID string, q memory.EntityQuery) (*memory.EntityPage, error)
	ApplyDecay(ctx context.Context, bankID string, u *memory.DecayUpdate) error
}

// EntityLister is what [Tiers] needs of a store.
type EntityLister interface {
	ListEntities(ctx context.Context, bankID string, q memory.EntityQuery) (*memory.EntityPage, error)
}

// LifecycleResult counts what one lifecycle pass did.
type LifecycleResult struct {
	FactsScored     int // facts whose score was computed
	FactsUpdated    int // of them, those whose stored score changed
	EntitiesScored  int
	EntitiesUpdated int // salience or tier changed
	Promoted        int
	Demoted         int
	// Changes are the tier changes logged, in the order made.
	Changes []memory.TierChange
	// Tiers are the bank's tier stats after the pass.
	Tiers memory.TierStats
}

// Counts is r as a run record's counters.
func (r *LifecycleResult) Counts() map[string]int {
	return map[string]int{
		"facts_scored":     r.FactsScored,
		"facts_updated":    r.FactsUpdated,
		"entities_scored":  r.EntitiesScored,
		"entities_updated": r.EntitiesUpdated,
		"promoted":         r.Promoted,
		"demoted":          r.Demoted,
		"L0":               r.Tiers.L0,
		"L1":               r.Tiers.L1,
		"L2":               r.Tiers.L2,
		"low_salience":     r.Tiers.LowSalience,
		"early_promotion":  r.Tiers.EarlyPromotion,
	}
}

// Lifecycle is the lifecycle pass (no LLM): it recomputes the decay score
// of every fact of the bank (any status; [DecayScore]) and the salience
// and tier of every entity ([Salience], [ClassifyTier]), writes those
// that changed a page at a time (d.BatchSize; one ApplyDecay each) and
// logs every promotion and demotion at now. Run twice with the same now
// it changes nothing the second time; stopped midway, a new run finishes
// the work. Facts and entities written while it runs are scored by the
// next run. Errors come from the store, or d.Validate.
func Lifecycle(ctx context.Context, st LifecycleStore, bank string, now time.Time, d Defaults) (*LifecycleResult, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	res := &LifecycleResult{}
	fq := memory.FactQuery{Limit: d.BatchSize}
	for {
		page, err := st.ListFacts(ctx, bank, fq)
		if err != nil {
			return res, fmt.Errorf("list facts: %w", err)
		}
		u := &memory.DecayUpdate{Facts: map[string]float64{}}
		for _, f := range page.Facts {
			res.FactsScored++
			if s := DecayScore(f, now, d); !same(s, f.DecayScore) {
				u.Facts[f.ID] = s
			}
		}
		if len(u.Facts) > 0 {
			if err := st.ApplyDecay(ctx, bank, u); err != nil {
				return res, fmt.Errorf("apply decay scores: %w", err)
			}
			res.FactsUpdated += len(u.Facts)
		}
		if page.Next == "" {
			break
		}
		fq.Cursor = page.Next
	}
	eq := memory.EntityQuery{Limit: d.BatchSize}
	for {
		page, err := st.ListEntities(ctx, bank, eq)
		if err != nil {
			return res, fmt.Errorf("list entities: %w", err)
		}
		u := &memory.DecayUpdate{}
		for _, e := range page.Entities {
			res.EntitiesScored++
			sal := Salience(e, now, d)
			tier, reason := ClassifyTier(e, now, d)
			if tier != e.Tier {
				c := memory.TierChange{EntityID: e.ID, From: e.Tier, To: tier, Reason: reason, At: now}
				u.Changes = append(u.Changes, c)
				if memory.TierRank(tier) > memory.TierRank(e.Tier) {
					res.Promoted++
				} else {
					res.Demoted++
				}
			}
			if tier != e.Tier || !same(sal, e.Salience) {
				u.Entities = append(u.Entities, memory.EntityDecay{ID: e.ID, Salience: sal, Tier: tier})
			}
			after := *e
			after.Salience, after.Tier = sal, tier
			countTier(&res.Tiers, &after, now, d)
		}
		if len(u.Entities) > 0 {
			if err := st.ApplyDecay(ctx, bank, u); err != nil {
				return res, fmt.Errorf("apply salience and tiers: %w", err)
			}
			res.EntitiesUpdated += len(u.Entities)
			res.Changes = append(res.Changes, u.Changes...)
		}
		if page.Next == "" {
			break
		}
		eq.Cursor = page.Next
	}
	return res, nil
}

// Tiers counts a bank's entities per tier, with low_salience and early
// promotion eligibility at now (seed 004's get_tier_stats), walking them
// a page of d.BatchSize at a time. It reads the stored tiers and
// salience: what the last lifecycle pass wrote.
func Tiers(ctx context.Context, st EntityLister, bank string, now time.Time, d Defaults) (*memory.TierStats, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	stats := &memory.TierStats{}
	q := memory.EntityQuery{Limit: d.BatchSize}
	for {
		page, err := st.ListEntities(ctx, bank, q)
		if err != nil {
			return nil, fmt.Errorf("list entities: %w", err)
		}
		for _, e := range page.Entities {
			countTier(stats, e, now, d)
		}
		if page.Next == "" {
			return stats, nil
		}
		q.Cursor = page.Next
	}
}

// same reports whether two stored scores are equal for the pass's
// purposes: closer than a store's rounding, so that a second run with the
// same clock writes nothing.
func same(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// DecayScore is Robothor's decay score of f at now (seed 002):
//
//	max(importance·ImportanceFloor, 2^(-hours/RecencyHalfLife))
//	+ min(ln(1+accesses)/AccessDivisor, AccessBoostMax)
//	+ min(ln(1+reinforcements)/ReinforcementDivisor, ReinforcementBoostMax)
//
// where hours run from the last access, or from the fact's creation when
// it was never accessed (a time after now counts as now).
func DecayScore(f *memory.Fact, now time.Time, d Defaults) float64 {
	since := f.LastAccessed
	if since.IsZero() {
		since = f.CreatedAt
	}
	recency := 1.0
	if !since.IsZero() {
		recency = halfLife(now.Sub(since), d.RecencyHalfLife)
	}
	score := math.Max(f.Importance*d.ImportanceFloor, recency)
	score += math.Min(math.Log1p(float64(max(f.AccessCount, 0)))/d.AccessDivisor, d.AccessBoostMax)
	score += math.Min(math.Log1p(float64(max(f.ReinforcementCount, 0)))/d.ReinforcementDivisor, d.ReinforcementBoostMax)
	return score
}

// Salience is Annie's salience of e at now (seed 004): 2^(-days since
// last seen / SalienceHalfLife), at least EvergreenFloor for the
// evergreen types. An entity never seen (zero LastSeen) counts from
// FirstSeen, and one with neither is fresh (1).
func Salience(e *memory.Entity, now time.Time, d Defaults) float64 {
	last := e.LastSeen
	if last.IsZero() {
		last = e.FirstSeen
	}
	s := 1.0
	if !last.IsZero() {
		s = halfLife(now.Sub(last), d.SalienceHalfLife)
	}
	if d.evergreen(e.Type) {
		s = math.Max(s, d.EvergreenFloor)
	}
	return s
}

// ClassifyTier is Annie's classify_tier (seed 004) with her L2 rule: a
// contradicted entity is demoted from L2 to L1 and otherwise keeps its
// tier (never promoted); any other is L2 when L2-eligible by type, at
// least L2MinAge old and with L1MinEpisodes episodes, else L1 when at
// least L1MinAge old with L1MinEpisodes episodes, else L0. Age counts
// from FirstSeen. The reason says which rule decided, for the tier log.
func ClassifyTier(e *memory.Entity, now time.Time, d Defaults) (memory.Tier, string) {
	cur := e.Tier
	if cur == "" {
		cur = memory.TierEpisodic
	}
	if e.Contradicted {
		if cur == memory.TierPattern {
			return memory.TierSemantic, "contradicted: demoted from L2"
		}
		return cur, "contradicted: promotion blocked"
	}
	age := entityAge(e, now)
	why := fmt.Sprintf("age %s, %d episodes", days(age), e.EpisodeCount)
	enough := e.EpisodeCount >= d.L1MinEpisodes
	switch {
	case enough && age >= d.L2MinAge && d.l2Eligible(e.Type):
		return memory.TierPattern, why + ", type " + string(e.Type)
	case enough && age >= d.L1MinAge:
		return memory.TierSemantic, why
	}
	return memory.TierEpisodic, why
}

// EarlyPromotion reports whether e is eligible for early promotion
// consideration (seed 004): an L0 entity, not contradicted, younger than
// L1MinAge with at least EarlyPromotionEpisodes episodes.
func EarlyPromotion(e *memory.Entity, now time.Time, d Defaults) bool {
	return (e.Tier == memory.TierEpisodic || e.Tier == "") && !e.Contradicted &&
		entityAge(e, now) < d.L1MinAge && e.EpisodeCount >= d.EarlyPromotionEpisodes
}

// countTier counts e, with its stored tier and salience, into s.
func countTier(s *memory.TierStats, e *memory.Entity, now time.Time, d Defaults) {
	switch e.Tier {
	case memory.TierSemantic:
		s.L1++
	case memory.TierPattern:
		s.L2++
	default:
		s.L0++
	}
	if e.Salience < d.LowSalience {
		s.LowSalience++
	}
	if EarlyPromotion(e, now, d) {
		s.EarlyPromotion++
	}
}

func entityAge(e *memory.Entity, now time.Time) time.Duration {
	if e.FirstSeen.IsZero() || now.Before(e.FirstSeen) {
		return 0
	}
	return now.Sub(e.FirstSeen)
}

// halfLife is 2^(-elapsed/h); a negative elapsed time counts as 0.
func halfLife(elapsed, h time.Duration) float64 {
	if elapsed < 0 {
		elapsed = 0
	}
	return math.Exp2(-elapsed.Seconds() / h.Seconds())
}

func days(d time.Duration) string {
	return fmt.Sprintf("%.1fd", d.Hours()/24)
}
