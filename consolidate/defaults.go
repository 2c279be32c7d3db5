package consolidate

import (
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Day is the unit of seed 004's ages and half-lives.
const Day = 24 * time.Hour

// The numbers of Robothor's fact decay score (seed 002):
//
//	recency  = 2^(-hours since last access / 72)
//	score    = max(importance·0.4, recency)
//	         + min(ln(1+access_count)/5, 0.3)
//	         + min(ln(1+reinforcement_count)/5, 0.2)
const (
	// DefaultRecencyHalfLife is the half-life of a fact's recency: 72 h
	// (seed 002, "72h half-life").
	DefaultRecencyHalfLife = 72 * time.Hour
	// DefaultImportanceFloor multiplies importance into the floor recency
	// cannot push the score under: 0.4 (seed 002, importance_floor).
	DefaultImportanceFloor = 0.4
	// DefaultAccessDivisor and DefaultAccessBoostMax shape the access
	// boost min(ln(1+accesses)/5, 0.3) (seed 002, access_boost).
	DefaultAccessDivisor  = 5.0
	DefaultAccessBoostMax = 0.3
	// DefaultReinforcementDivisor and DefaultReinforcementBoostMax shape
	// the reinforcement boost min(ln(1+reinforcements)/5, 0.2) (seed 002,
	// reinforcement_boost).
	DefaultReinforcementDivisor  = 5.0
	DefaultReinforcementBoostMax = 0.2
)

// The numbers of Annie's entity salience and tiers (seed 004).
const (
	// DefaultSalienceHalfLife is the half-life of an entity's salience,
	// counted from its last mention: 30 days (seed 004,
	// TEMPORAL_DECAY_HALF_LIFE_DAYS).
	DefaultSalienceHalfLife = 30 * Day
	// DefaultEvergreenFloor is the least salience of an evergreen entity:
	// 0.3 (seed 004, EVERGREEN_DECAY_FLOOR).
	DefaultEvergreenFloor = 0.3
	// DefaultL1MinAge and DefaultL1MinEpisodes promote L0 to L1: at least
	// 7 days since first seen and 3 episodes (seed 004,
	// L0_TO_L1_AGE_DAYS, L0_TO_L1_MIN_EPISODES).
	DefaultL1MinAge      = 7 * Day
	DefaultL1MinEpisodes = 3
	// DefaultL2MinAge promotes an L2-eligible entity to L2: at least 90
	// days since first seen (seed 004, L1_TO_L2_AGE_DAYS), with the
	// episodes L1 needs (the seed's summary table: L2 min episodes 3).
	DefaultL2MinAge = 90 * Day
	// DefaultEarlyPromotionEpisodes: an L0 entity younger than
	// DefaultL1MinAge with this many episodes is eligible for early
	// promotion consideration (seed 004, "3+ episode mentions within 7
	// days"). The pass counts such entities; it does not promote them.
	DefaultEarlyPromotionEpisodes = 3
	// DefaultLowSalience is the salience under which an entity counts as
	// low_salience in the tier stats: 0.1 (seed 004, get_tier_stats).
	DefaultLowSalience = 0.1
)

// DefaultBatchSize is how many facts or entities the lifecycle pass reads
// and writes at a time: one page of the store's listing, one
// transaction.
const DefaultBatchSize = 500

// DefaultEvergreenTypes are the entity types whose salience never falls
// under the evergreen floor: person, place, relationship (seed 004,
// EVERGREEN_TYPES).
func DefaultEvergreenTypes() []memory.EntityType {
	return []memory.EntityType{memory.EntityPerson, memory.EntityPlace, memory.EntityRelationship}
}

// DefaultL2Types are the entity types that may reach L2: person, place,
// relationship, habit, emotion (seed 004, L2_ELIGIBLE_TYPES).
func DefaultL2Types() []memory.EntityType {
	return []memory.EntityType{memory.EntityPerson, memory.EntityPlace, memory.EntityRelationship, memory.EntityHabit, memory.EntityEmotion}
}

// Defaults holds every tunable of the consolidation passes. The zero
// value is not usable: start from [NewDefaults] and override fields.
// Passes use it as given and never change it.
type Defaults struct {
	// Fact decay (seed 002).
	RecencyHalfLife       time.Duration `json:"recency_half_life"`
	ImportanceFloor       float64       `json:"importance_floor"`
	AccessDivisor         float64       `json:"access_divisor"`
	AccessBoostMax        float64       `json:"access_boost_max"`
	ReinforcementDivisor  float64       `json:"reinforcement_divisor"`
	ReinforcementBoostMax float64       `json:"reinforcement_boost_max"`
	// Entity salience and tiers (seed 004).
	SalienceHalfLife       time.Duration       `json:"salience_half_life"`
	EvergreenTypes         []memory.EntityType `json:"evergreen_types"`
	EvergreenFloor         float64             `json:"evergreen_floor"`
	L1MinAge               time.Duration       `json:"l1_min_age"`
	L1MinEpisodes          int                 `json:"l1_min_episodes"`
	L2MinAge               time.Duration       `json:"l2_min_age"`
	L2Types                []memory.EntityType `json:"l2_types"`
	EarlyPromotionEpisodes int                 `json:"early_promotion_episodes"`
	LowSalience            float64             `json:"low_salience"`
	// BatchSize is the page size of the passes' walks (at most
	// memory.MaxPageSize).
	BatchSize int `json:"batch_size"`

	// The other passes' numbers, one struct per pass, in its file.
	Observe          ObserveDefaults
	Temporal         TemporalDefaults
	ObservationMerge ObservationMergeDefaults
	Merge            MergeDefaults
	Group            GroupDefaults
	Dream            DreamDefaults
	Archive          ArchiveDefaults
	ShortTerm        ShortTermDefaults

	// Importance scoring, part of the lifecycle when an LLM is
	// configured (importance.go).
	Importance ImportanceDefaults
}

// NewDefaults returns the seeds' numbers.
func NewDefaults() Defaults {
	return Defaults{
		RecencyHalfLife:        DefaultRecencyHalfLife,
		ImportanceFloor:        DefaultImportanceFloor,
		AccessDivisor:          DefaultAccessDivisor,
		AccessBoostMax:         DefaultAccessBoostMax,
		ReinforcementDivisor:   DefaultReinforcementDivisor,
		ReinforcementBoostMax:  DefaultReinforcementBoostMax,
		SalienceHalfLife:       DefaultSalienceHalfLife,
		EvergreenTypes:         DefaultEvergreenTypes(),
		EvergreenFloor:         DefaultEvergreenFloor,
		L1MinAge:               DefaultL1MinAge,
		L1MinEpisodes:          DefaultL1MinEpisodes,
		L2MinAge:               DefaultL2MinAge,
		L2Types:                DefaultL2Types(),
		EarlyPromotionEpisodes: DefaultEarlyPromotionEpisodes,
		LowSalience:            DefaultLowSalience,
		BatchSize:              DefaultBatchSize,
		Observe:                defaultObserveDefaults(),
		Temporal:               defaultTemporalDefaults(),
		ObservationMerge:       defaultObservationMergeDefaults(),
		Merge:                  defaultMergeDefaults(),
		Group:                  defaultGroupDefaults(),
		Dream:                  defaultDreamDefaults(),
		Archive:                defaultArchiveDefaults(),
		ShortTerm:              defaultShortTermDefaults(),

		Importance: defaultImportanceDefaults(),
	}
}

// Validate reports an unusable d as EINVALID: half-lives and divisors
// must be positive, the batch size within a page's limits, and each
// pass's numbers usable ([DreamDefaults.Validate],
// [ArchiveDefaults.Validate]).
func (d Defaults) Validate() error {
	switch {
	case d.RecencyHalfLife <= 0 || d.SalienceHalfLife <= 0:
		return memory.Errorf(memory.EINVALID, "consolidate: half-lives must be positive")
	case d.AccessDivisor <= 0 || d.ReinforcementDivisor <= 0:
		return memory.Errorf(memory.EINVALID, "consolidate: boost divisors must be positive")
	case d.BatchSize <= 0 || d.BatchSize > memory.MaxPageSize:
		return memory.Errorf(memory.EINVALID, "consolidate: batch size %d: want 1 to %d", d.BatchSize, memory.MaxPageSize)
	}
	if err := d.Dream.Validate(); err != nil {
		return err
	}
	return d.Archive.Validate()
}

func (d Defaults) evergreen(t memory.EntityType) bool { return slices.Contains(d.EvergreenTypes, t) }

func (d Defaults) l2Eligible(t memory.EntityType) bool { return slices.Contains(d.L2Types, t) }
