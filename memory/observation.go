package memory

import (
	"context"
	"time"
)

// ObservationStore is implemented by stores that keep observations (both
// built-in stores do). Recall's first phase uses it when the store has
// it; consolidation writes through it. Detect it by type assertion.
type ObservationStore interface {
	// PutObservations creates observations or replaces them whole (by
	// id) in a bank; their text is indexed for SearchObservationsText.
	PutObservations(ctx context.Context, bankID string, obs []*Observation) error
	// Observations returns the observations with the given ids in the
	// order asked; unknown ids are left out. Embeddings are not loaded.
	Observations(ctx context.Context, bankID string, ids []string) ([]*Observation, error)
	// SearchObservationsVector returns up to k active observations by
	// cosine similarity with vec, best first.
	SearchObservationsVector(ctx context.Context, bankID string, vec []float32, k int) ([]Hit, error)
	// SearchObservationsText returns up to k active observations matching
	// any of terms (plain words, quoted by the store), best first by BM25.
	SearchObservationsText(ctx context.Context, bankID string, terms []string, k int) ([]Hit, error)
}

// ObservationKind is the shape of pattern an observation describes.
type ObservationKind string

const (
	ObservationPattern     ObservationKind = "pattern"
	ObservationTrend       ObservationKind = "trend"
	ObservationTransition  ObservationKind = "transition"
	ObservationCycle       ObservationKind = "cycle"
	ObservationCorrelation ObservationKind = "correlation"
)

// Observation is a higher-level pattern synthesised from facts by
// consolidation. SourceFactIDs are kept in the order they were added.
type Observation struct {
	ID            string
	BankID        string
	Text          string
	Kind          ObservationKind
	SourceFactIDs []string
	EvidenceCount int
	History       []ObservationChange
	Embedding     []float32
	Status        Status
	AccessCount   int
	LastAccessed  time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// ObservationChange is one entry of an observation's change history: what
// it said before, when it changed and why.
type ObservationChange struct {
	Previous  string    `json:"previous"`
	ChangedAt time.Time `json:"changed_at"`
	Reason    string    `json:"reason,omitempty"`
}

// Dream is a cross-domain insight bridging two fact clusters. Dreams live
// apart from recall.
type Dream struct {
	ID            string
	BankID        string
	Bridge        string
	Insight       string
	SourceFactIDs []string
	Embedding     []float32
	CreatedAt     time.Time
}

// MaxObservationHistory is how many changes an observation's history
// keeps: the newest. An observation updated by every new fact for years
// would otherwise carry, and rewrite at every update, a history as long
// as its evidence; what it said 50 changes ago is kept by none of the
// seeds' readers (recall shows the last change).
const MaxObservationHistory = 50

// AppendHistory returns h with c appended, cut to its newest
// MaxObservationHistory entries. h is not changed.
func AppendHistory(h []ObservationChange, c ObservationChange) []ObservationChange {
	out := make([]ObservationChange, 0, min(len(h)+1, MaxObservationHistory))
	if n := len(h) + 1 - MaxObservationHistory; n > 0 {
		h = h[n:]
	}
	out = append(out, h...)
	return append(out, c)
}
