package memory

import "time"

// DefaultShortTermTTL is how long a short-term memory lives before the
// expire pass promotes or prunes it (Robothor: 48 h; seed 002,
// "short_term_memory: 48h TTL, auto-expires").
const DefaultShortTermTTL = 48 * time.Hour

// FactTier is the tier of Robothor's memory a fact lives in (seed 002,
// "search across tiers … tagged with tier"): short-term, with a time to
// live, or long-term. It is not an entity's Tier (Annie's L0–L2).
type FactTier string

const (
	// TierShortTerm: the fact has an ExpiresAt; the expire pass promotes
	// or prunes it once that has passed.
	TierShortTerm FactTier = "short_term"
	// TierLongTerm: the fact has no ExpiresAt and lives until forgotten.
	TierLongTerm FactTier = "long_term"
)

// FactKind says what a fact is about (Hindsight's fact types; observations
// are their own type).
type FactKind string

const (
	KindWorld      FactKind = "world"      // about the world
	KindExperience FactKind = "experience" // what the user or agent did or lived
)

// Category is Robothor's classification of a fact.
type Category string

const (
	CategoryPersonal   Category = "personal"
	CategoryProject    Category = "project"
	CategoryDecision   Category = "decision"
	CategoryPreference Category = "preference"
	CategoryEvent      Category = "event"
	CategoryContact    Category = "contact"
	CategoryTechnical  Category = "technical"
)

// Sensitivity classifies how private a fact is (Annie).
type Sensitivity string

const (
	SensitivityOpen      Sensitivity = "open"
	SensitivityPrivate   Sensitivity = "private"
	SensitivitySensitive Sensitivity = "sensitive"
)

// Status is a fact's (or observation's) lifecycle state.
type Status string

const (
	StatusActive     Status = "active"
	StatusSuperseded Status = "superseded"
	StatusArchived   Status = "archived"
	// StatusQuarantined holds back a fact whose text reads as
	// instructions to a model (package firewall): out of recall, context
	// and every prompt until a person approves it (active) or rejects it
	// (archived).
	StatusQuarantined Status = "quarantined"
)

// Fact is a memory unit: one atomic piece of information with its
// provenance, its bi-temporal validity and its lifecycle counters.
//
// Times are bi-temporal. OccurredStart/OccurredEnd and ValidFrom/ValidTo
// are the event timeline (when it was true in the world); CreatedAt and
// ExpiredAt are the transaction timeline (when mnemo learned it and when
// it learned it stopped being true). A zero time means "unknown" or, for
// ValidTo/ExpiredAt/ExpiresAt, "open".
//
// ⚠️ A field added to Fact changes together in: this struct; a new
// numbered migration of each store (store/sqlite/migrations,
// store/postgres/migrations); each store's fact column list, scan and
// insert helper, which export and import reuse; the export format
// (memory/export.go and its golden files); store/storetest (NewTestFact
// and the round-trip batch must set it, so that a store that drops it
// fails; the reference store in memstore_test.go keeps it); and package
// wire when clients see it (wire.RecallResult). A field with a default
// on write takes it in [PrepareFacts], which both stores call.
type Fact struct {
	ID         string
	BankID     string
	DocumentID string
	ChunkID    string
	// SourceRef is the external id of the message or sentence the fact came
	// from (e.g. a chat turn id); empty when the source has none.
	SourceRef string
	// Seq is the fact's ingestion order within its bank, assigned by the
	// store on insert (monotonic, starting at 1).
	Seq int64

	Text        string
	Kind        FactKind
	Category    Category
	Confidence  float64
	Importance  float64
	Sensitivity Sensitivity
	Speaker     string
	Evidence    string
	Tags        []string
	Embedding   []float32

	OccurredStart time.Time
	OccurredEnd   time.Time
	MentionedAt   time.Time
	ValidFrom     time.Time
	ValidTo       time.Time
	CreatedAt     time.Time
	ExpiredAt     time.Time

	AccessCount        int
	LastAccessed       time.Time
	ReinforcementCount int
	DecayScore         float64
	Status             Status
	SupersededBy       string
	ConsolidatedAt     time.Time
	// ExpiresAt, when set, makes the fact a short-term memory that lives
	// until then (seed 002); zero is long-term. Not to be confused with
	// ExpiredAt, the transaction time at which mnemo learned a fact
	// stopped being true.
	ExpiresAt time.Time
}

// EventTime is the best known time the fact was true in the world:
// OccurredStart, else MentionedAt, else CreatedAt.
func (f *Fact) EventTime() time.Time {
	switch {
	case !f.OccurredStart.IsZero():
		return f.OccurredStart
	case !f.MentionedAt.IsZero():
		return f.MentionedAt
	}
	return f.CreatedAt
}

// Body is the text a fact is found and embedded by: its speaker and its
// text as a reader sees them, "speaker: text", or the text alone when
// there is no speaker. Full-text indexes, the search mirror, the
// conformance suite's reference store and the embedder all take this one
// form (⚠️ PostgreSQL's generated search columns spell it in SQL, in
// store/postgres/migrations/001_init.sql; store/postgres's
// TestStore_SearchBodyIsMemoryBody checks that they agree).
func Body(speaker, text string) string {
	if speaker == "" {
		return text
	}
	return speaker + ": " + text
}

// ShortTerm reports whether f is a short-term memory: one with an
// ExpiresAt.
func (f *Fact) ShortTerm() bool { return !f.ExpiresAt.IsZero() }

// Tier is f's tier: TierShortTerm when it has an ExpiresAt, else
// TierLongTerm.
func (f *Fact) Tier() FactTier {
	if f.ShortTerm() {
		return TierShortTerm
	}
	return TierLongTerm
}

// ExpiresBy reports whether f is a short-term memory whose time is up at
// t: its ExpiresAt is at or before t. A long-term fact never expires.
func (f *Fact) ExpiresBy(t time.Time) bool { return f.ShortTerm() && !f.ExpiresAt.After(t) }

// CompareLifetime orders facts by how long they are kept: -1 when a
// expires before b, 0 when they end together, +1 when a outlives b. A
// long-term fact outlives every short-term one and ties with another
// long-term one; short-term facts compare by ExpiresAt. Retain and the
// fact merge use it so that a short-term fact never stands in for one
// that lives longer: a duplicate is dropped, and a fact superseded or
// merged away, only in favour of a fact that lives at least as long.
func CompareLifetime(a, b *Fact) int {
	switch {
	case !a.ShortTerm() && !b.ShortTerm():
		return 0
	case !a.ShortTerm():
		return 1
	case !b.ShortTerm():
		return -1
	}
	return a.ExpiresAt.Compare(b.ExpiresAt)
}

// Body is [Body] of f's speaker and text.
func (f *Fact) Body() string { return Body(f.Speaker, f.Text) }
