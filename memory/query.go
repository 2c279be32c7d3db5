package memory

import "time"

// Defaults of a recall.
const (
	DefaultRecallLimit = 10
	DefaultTokenBudget = 2048
	MaxRecallLimit     = 1000
	MaxQueryBytes      = 8 << 10
)

// Query is one recall request.
type Query struct {
	BankID string
	Text   string
	// Limit is the number of results; 0 means DefaultRecallLimit.
	Limit int
	// Budget is the context's token budget; 0 means DefaultTokenBudget.
	Budget int
	Filter Filter
	// Now is the reference time for relative dates and recency; zero means
	// the engine's clock.
	Now time.Time
	// Explain asks for each result's rank and score per strategy.
	Explain bool
	// Format is the context's format: FormatText (default),
	// FormatMarkdown or FormatJSON.
	Format string
}

// Strategy names, as they appear in explanations.
const (
	StrategySemantic = "semantic"
	StrategyKeyword  = "keyword"
	StrategyGraph    = "graph"
	StrategyTemporal = "temporal"
)

// Result is one recalled fact with its fused score.
type Result struct {
	Fact  *Fact
	Score float64
	// Tier is the tier the fact was recalled from: TierShortTerm or
	// TierLongTerm (Fact.Tier); recall searches both and tags each
	// result (seed 002, search_all_memory).
	Tier FactTier
	// Previously are the facts this one superseded, newest first: its
	// history ("previously: …, changed …").
	Previously []*Fact
	// Explain holds, per strategy that found the fact, its 1-based rank
	// and raw score there; nil unless the query asked to explain.
	Explain map[string]StrategyScore
}

// StrategyScore is a fact's rank and raw score within one strategy.
type StrategyScore struct {
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
}

// Recollection is the answer to a recall: the ranked results and a
// context string packed to the token budget, ready for a system prompt.
type Recollection struct {
	Results []Result
	Context string
	// Tokens is the token count of Context (see recall's counting rule).
	Tokens int
	// Analysis is what the query analysis found (time window, entities).
	Analysis QueryAnalysis
	// Observations are recall's first phase (seed 000): the best
	// observations, each with its most recent source facts. Results then
	// holds the facts not already bundled here.
	Observations []ObservationResult
	// Standing is the bank's fresh standing answer to the query when the
	// bank pinned it as a question (the façade sets it; nil otherwise).
	Standing *StandingQuestion
}

// ObservationResult is one recalled observation with the most recent of
// its source facts, newest first.
type ObservationResult struct {
	Observation *Observation
	Score       float64
	Facts       []*Fact
}

// Context formats of a recall.
const (
	FormatText     = "text"     // one line per memory (the default)
	FormatMarkdown = "markdown" // headed sections, bulleted
	FormatJSON     = "json"     // one JSON document
)

// QueryAnalysis is what recall understood of a query.
type QueryAnalysis struct {
	Terms    []string  `json:"terms"`
	Entities []string  `json:"entities,omitempty"`
	From     time.Time `json:"from,omitzero"`
	To       time.Time `json:"to,omitzero"`
}
