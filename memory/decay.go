package memory

import (
	"context"
	"time"
)

// Decay writes what the lifecycle pass computes: facts' decay scores,
// entities' salience and tier, and the log of tier changes. It is apart
// from [Lifecycle] (fact status moves) because it never changes what
// recall may return, only how facts and entities rank and are shown.
// Part of [Store].
type Decay interface {
	// ApplyDecay applies u in one transaction: every fact of u.Facts
	// gets its decay score, every entity of u.Entities its salience and
	// tier, and u.Changes are appended to the tier log. Facts and
	// entities that no longer exist (forgotten while the pass ran) are
	// skipped, and so are changes of entities that no longer exist;
	// nothing else about them changes. An unknown bank is ENOTFOUND.
	ApplyDecay(ctx context.Context, bankID string, u *DecayUpdate) error
	// TierLog returns a bank's tier changes, newest (At, then insertion)
	// first, at most limit (0 or less: all).
	TierLog(ctx context.Context, bankID string, limit int) ([]TierChange, error)
}

// DecayUpdate is one batch of the lifecycle pass's writes.
type DecayUpdate struct {
	// Facts maps fact ids to their new decay score.
	Facts map[string]float64
	// Entities are the entities' new salience and tier.
	Entities []EntityDecay
	// Changes are the tier changes to log.
	Changes []TierChange
}

// EntityDecay is an entity's salience and tier as the lifecycle pass
// computed them.
type EntityDecay struct {
	ID       string
	Salience float64
	Tier     Tier
}

// TierChange is one promotion or demotion of an entity (seed 004: every
// change is logged for observability).
type TierChange struct {
	EntityID string
	From, To Tier
	// Reason says which rule moved it ("age 8d, 3 episodes",
	// "contradicted").
	Reason string
	At     time.Time
}

// TierRank orders the tiers: L0 < L1 < L2; an unknown tier ranks as L0.
func TierRank(t Tier) int {
	switch t {
	case TierSemantic:
		return 1
	case TierPattern:
		return 2
	}
	return 0
}

// TierStats counts a bank's entities per tier (seed 004's get_tier_stats:
// {"L0", "L1", "L2", "low_salience"}), with the L0 entities eligible for
// early promotion.
type TierStats struct {
	L0, L1, L2 int
	// LowSalience counts entities under the low-salience threshold.
	LowSalience int
	// EarlyPromotion counts L0 entities with enough episodes before the
	// age L1 needs (seed 004: eligible for early promotion
	// consideration).
	EarlyPromotion int
}
