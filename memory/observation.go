package memory

import "time"

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

// Block is named working-memory text (persona, user_profile,
// working_context, …) with a size limit.
type Block struct {
	BankID    string
	Name      string
	Text      string
	MaxChars  int
	UpdatedAt time.Time
}

// Run is the audit record of one consolidation pass or forget: what ran,
// when, with what counts and error.
type Run struct {
	ID         string
	BankID     string
	Kind       string
	StartedAt  time.Time
	FinishedAt time.Time
	Counts     map[string]int
	Error      string
}
