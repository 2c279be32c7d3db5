package recall

// Defaults of the read path.
const (
	// DefaultRRFK is the k of Reciprocal Rank Fusion (Cormack et al.; seeds 000, 003).
	DefaultRRFK = 60
	// DefaultCandidates is how many hits each strategy contributes.
	DefaultCandidates = 100
	// DefaultGraphSeeds is how many top fused facts seed the graph strategy.
	DefaultGraphSeeds = 8
	// DefaultEntityFanout bounds the facts fetched per expanded entity.
	DefaultEntityFanout = 32
	// DefaultRecencyHours is the time constant of event recency
	// exp(-hours/72) (seed 000; Robothor's 72 h).
	DefaultRecencyHours = 72.0
	// DefaultKeywordFloor: keyword hits under half the best keyword score
	// are not keyword evidence (measured on LoCoMo dev: R@10 0.664 → 0.68,
	// MRR 0.40 → 0.46).
	DefaultKeywordFloor = 0.5
	// DefaultBoost bounds each multiplicative boost (decay, recency), so
	// relevance stays first.
	DefaultBoost = 0.05
	// DefaultKindWeight: the facts that name kinds of what a question
	// asks for ("karate" for "what martial arts…") join the keyword hits
	// with their best scoring as the best keyword hit (docs/recall.md).
	DefaultKindWeight = 1.0
	// DefaultCountSpread: for a counting question, a document's second
	// result in the head scores × 0.7, its third × 0.49 (docs/recall.md).
	DefaultCountSpread = 0.3
	// DefaultRerankDepth is how many fused results the rerank step
	// reorders.
	DefaultRerankDepth = 20
)

// Weights are the per-strategy weights of the fusion. The zero Weights
// means DefaultWeights; in any other, a weight of zero (or less) turns
// its strategy off.
type Weights struct {
	Semantic float64
	Keyword  float64
	Graph    float64
	Temporal float64
	// Context weighs the context strategy: keyword hits rescored with
	// their documents, neighbours and speakers (context.go).
	Context float64
}

// DefaultWeights were measured on the LoCoMo dev split with the offline
// defaults (docs/recall.md): the context strategy (keyword hits lifted by
// their document, neighbours and speaker) carries the signal, the
// temporal window adds to it. Rank fusion with the hashed embedding, the
// plain keyword ranking or the graph only pulled its answers down, so
// they are off; with a learned embedder, weigh Semantic anew.
var DefaultWeights = Weights{Context: 1.0, Temporal: 0.3}

// EmbedderWeights are the defaults with a learned embedder: the semantic
// strategy joins at a low weight. Measured on the LoCoMo dev split with
// GloVe 6B 100-d (provider/wordvec): semantic 0 / 0.1 / 0.3 / 0.5 gave
// R@10 0.7606 / 0.7652 / 0.7528 / 0.7313 (docs/embeddings.md).
var EmbedderWeights = Weights{Context: 1.0, Temporal: 0.3, Semantic: 0.1}

// Options are the read path's tunables. They follow one rule: a zero
// field means its Default*, and a negative one turns its signal off (no
// floor, no share, no boost, no spread: it counts as 0). The three that
// cannot be off — RRFK, Candidates and RerankDepth — take their default
// for a negative value too. So the zero Options is the defaults; New
// fills them in only so a reader sees the values in use. The zero
// Weights is DefaultWeights, by the same rule (see Weights).
type Options struct {
	// Weights are the strategies' weights in the fusion (DefaultWeights).
	Weights Weights
	// RRFK is the k of Reciprocal Rank Fusion (DefaultRRFK).
	RRFK float64
	// Candidates is how many hits each strategy contributes, and at
	// least the query's limit (DefaultCandidates).
	Candidates int
	// KeywordFloor (DefaultKeywordFloor) drops keyword hits scoring below
	// this fraction of the best one: RRF sees only ranks, so without a
	// floor a fact matching only a common word (a speaker's name) gets
	// keyword credit next to one matching the rare words of the question.
	KeywordFloor float64

	// RerankDepth is how many of the best fused results the rerank step
	// reorders (DefaultRerankDepth), by the Pipeline's Reranker when it
	// has one. Without one, the fallback multiplies their scores by
	// 1 + RerankCoverage·C, C the IDF-weighted share of the query's terms
	// a fact covers, a term only its adjacent fact holds counting
	// RerankNeighbour (signals.go; DefaultRerankCoverage,
	// DefaultRerankNeighbour).
	RerankDepth     int
	RerankCoverage  float64
	RerankNeighbour float64

	// DocumentShare, NeighbourShare, NeighbourRadius, NeighbourDecay and
	// SpeakerBoost tune the context strategy (context.go; their
	// Default*).
	DocumentShare   float64
	NeighbourShare  float64
	NeighbourRadius int
	NeighbourDecay  float64
	SpeakerBoost    float64

	// KindWeight (DefaultKindWeight) is what the best hit of the kind
	// search (the Pipeline's Kinds) scores against the best keyword hit.
	KindWeight float64
	// CountSpread (DefaultCountSpread) spreads the answer to a question
	// that counts ("how many times…", "how many children…") over
	// documents: each occurrence counts, and they are seldom told in one
	// session. ("How often…" asks for a frequency one turn states.) Among
	// the best RerankDepth results, the n-th of a document (from 0)
	// scores × (1 − CountSpread)^n.
	CountSpread float64
}

// DefaultOptions returns every option at its default: the zero Options
// resolved.
func DefaultOptions() Options { return Options{}.resolved() }

// resolved applies the rule of Options: each zero field becomes its
// default, each negative one 0 (off) or, where a signal cannot be off,
// its default.
func (o Options) resolved() Options {
	if o.Weights == (Weights{}) {
		o.Weights = DefaultWeights
	}
	o.RRFK = orDefault(o.RRFK, DefaultRRFK)
	o.Candidates = orDefault(o.Candidates, DefaultCandidates)
	o.RerankDepth = orDefault(o.RerankDepth, DefaultRerankDepth)
	o.KeywordFloor = orOff(o.KeywordFloor, DefaultKeywordFloor)
	o.RerankCoverage = orOff(o.RerankCoverage, DefaultRerankCoverage)
	o.RerankNeighbour = orOff(o.RerankNeighbour, DefaultRerankNeighbour)
	o.DocumentShare = orOff(o.DocumentShare, DefaultDocumentShare)
	o.NeighbourShare = orOff(o.NeighbourShare, DefaultNeighbourShare)
	o.NeighbourRadius = orOff(o.NeighbourRadius, DefaultNeighbourRadius)
	o.NeighbourDecay = orOff(o.NeighbourDecay, DefaultNeighbourDecay)
	o.SpeakerBoost = orOff(o.SpeakerBoost, DefaultSpeakerBoost)
	o.KindWeight = orOff(o.KindWeight, DefaultKindWeight)
	o.CountSpread = orOff(o.CountSpread, DefaultCountSpread)
	return o
}

// orDefault is v, or def when v is zero or negative.
func orDefault[T int | float64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// orOff is v, def when v is zero, and 0 (off) when v is negative.
func orOff[T int | float64](v, def T) T {
	switch {
	case v < 0:
		return 0
	case v == 0:
		return def
	}
	return v
}
