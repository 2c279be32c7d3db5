package consolidate

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/internal/id"
	"github.com/mnemo-ai/mnemo/memory"
)

// The numbers of the temporal pass (seed 000, "Temporal Pass (Daily)").
const (
	// DefaultTemporalMinFacts is how many recent facts an entity needs
	// before the pass looks at it: 3 (seed 000, "entities with 3+ recent
	// facts"; its prompt: "two facts are coincidence, not a pattern").
	DefaultTemporalMinFacts = 3
	// DefaultTemporalWindow is how far back "recent" reaches, on the
	// event timeline: 30 days. Seed 000 says "recent" without a number;
	// the system it describes looks back 30 days.
	DefaultTemporalWindow = 30 * Day
	// DefaultTemporalEnrichCosine is the cosine above which a pattern
	// enriches an existing observation instead of duplicating it: 0.90
	// (seed 000, "checks if a very similar one already exists (cosine >
	// 0.90)").
	DefaultTemporalEnrichCosine = 0.90
	// DefaultTemporalEnrichTopK is how many observations the duplicate
	// check reads from the vector index: a few (seed 000 keeps only the
	// closest; a few more make an approximate index's miss unlikely).
	DefaultTemporalEnrichTopK = 3
	// DefaultTemporalMaxEntities bounds the entities asked about in one
	// run, so one run's LLM calls are bounded: 50. Seed 000 gives no
	// bound; the busiest entities come first and the rest wait for the
	// next run (their marks are not set).
	DefaultTemporalMaxEntities = 50
	// DefaultTemporalMaxFacts bounds the facts of one entity in a prompt:
	// the 50 latest of the window (the system seed 000 describes reads
	// at most 50 facts per entity).
	DefaultTemporalMaxFacts = 50
)

// TemporalDefaults holds the numbers of the temporal pass, each a named
// default with the seed it comes from. Its fields carry json tags: the
// names a bank's overrides use (snake_case, prefixed by the pass).
type TemporalDefaults struct {
	// MinFacts is DefaultTemporalMinFacts.
	MinFacts int `json:"temporal_min_facts"`
	// Window is DefaultTemporalWindow.
	Window time.Duration `json:"temporal_window"`
	// EnrichCosine is DefaultTemporalEnrichCosine.
	EnrichCosine float64 `json:"temporal_enrich_cosine"`
	// EnrichTopK is DefaultTemporalEnrichTopK.
	EnrichTopK int `json:"temporal_enrich_top_k"`
	// MaxEntities is DefaultTemporalMaxEntities (at most
	// memory.MaxPageSize).
	MaxEntities int `json:"temporal_max_entities"`
	// MaxFacts is DefaultTemporalMaxFacts (at most memory.MaxPageSize).
	MaxFacts int `json:"temporal_max_facts"`
}

// defaultTemporalDefaults returns the seeds' numbers for the temporal pass.
func defaultTemporalDefaults() TemporalDefaults {
	return TemporalDefaults{
		MinFacts:     DefaultTemporalMinFacts,
		Window:       DefaultTemporalWindow,
		EnrichCosine: DefaultTemporalEnrichCosine,
		EnrichTopK:   DefaultTemporalEnrichTopK,
		MaxEntities:  DefaultTemporalMaxEntities,
		MaxFacts:     DefaultTemporalMaxFacts,
	}
}

// Validate reports unusable numbers as EINVALID.
func (d TemporalDefaults) Validate() error {
	switch {
	case d.MinFacts < 1:
		return memory.Errorf(memory.EINVALID, "temporal: min facts %d: want at least 1", d.MinFacts)
	case d.Window <= 0:
		return memory.Errorf(memory.EINVALID, "temporal: the window must be positive")
	case d.EnrichCosine <= 0 || d.EnrichCosine > 1:
		return memory.Errorf(memory.EINVALID, "temporal: enrich cosine %v: want 0 to 1", d.EnrichCosine)
	case d.EnrichTopK < 1:
		return memory.Errorf(memory.EINVALID, "temporal: enrich top k %d: want at least 1", d.EnrichTopK)
	case d.MaxEntities < 1 || d.MaxEntities > memory.MaxPageSize:
		return memory.Errorf(memory.EINVALID, "temporal: max entities %d: want 1 to %d", d.MaxEntities, memory.MaxPageSize)
	case d.MaxFacts < d.MinFacts || d.MaxFacts > memory.MaxPageSize:
		return memory.Errorf(memory.EINVALID, "temporal: max facts %d: want %d to %d", d.MaxFacts, d.MinFacts, memory.MaxPageSize)
	}
	return nil
}

// TemporalStore is what the temporal pass reads and writes: the busy
// entities and their timelines with the pass's marks, and observations.
type TemporalStore interface {
	BusyEntities(ctx context.Context, bankID string, q memory.BusyQuery) ([]memory.BusyEntity, error)
	EntityTimeline(ctx context.Context, bankID, entityID string, from, to time.Time, limit int) ([]*memory.Fact, error)
	MarkEntities(ctx context.Context, bankID, pass string, marks []memory.EntityMark) error
	PutObservations(ctx context.Context, bankID string, obs []*memory.Observation) error
	Observations(ctx context.Context, bankID string, ids []string) ([]*memory.Observation, error)
	SearchObservationsVector(ctx context.Context, bankID string, vec []float32, k int) ([]memory.Hit, error)
}

// TemporalResult counts what one temporal pass did.
type TemporalResult struct {
	// Entities is how many entities the model was asked about.
	Entities int
	// Patterns is how many valid patterns it returned.
	Patterns int
	// Created and Enriched are the observations made and those a
	// pattern added to; Unchanged the patterns that matched an
	// observation already resting on all their facts.
	Created, Enriched, Unchanged int
	// Rejected counts the patterns dropped: an unknown kind, no text, or
	// no source among the facts the model was given.
	Rejected int
	// Failed counts the entities whose call failed or whose answer was
	// malformed: nothing was written for them, and the next run asks
	// again.
	Failed int
}

// Counts is r as a run record's counts.
func (r *TemporalResult) Counts() map[string]int {
	return map[string]int{
		"entities": r.Entities, "patterns": r.Patterns, "created": r.Created, "enriched": r.Enriched,
		"unchanged": r.Unchanged, "rejected": r.Rejected, "failed": r.Failed,
	}
}

// StageTemporal names the temporal pass's LLM calls in usage counts.
const StageTemporal = "temporal"

// Temporal is seed 000's temporal pass: it finds the entities with at
// least d.MinFacts active facts whose event time is in the d.Window
// before now (at most d.MaxEntities, the busiest first), and for each
// asks llm, once, for the trends, transitions, cycles and correlations
// its facts show in time order (the d.MaxFacts latest, with their
// occurred times). Each pattern must rest on facts it was given: ids it
// was not given are dropped, and a pattern left with none is rejected.
// A pattern becomes an observation of its kind, embedded with emb —
// unless an active observation is closer than d.EnrichCosine, which it
// then enriches: the pattern's text replaces the old one, a history
// entry keeps what it said before, the new sources are appended in time
// order and its evidence count grows by their number.
//
// An entity's observations are written in one PutObservations, then the
// entity is marked with the newest Seq of its recent facts, so a later
// run skips it until a new fact about it arrives (idempotent); a run
// stopped between the two asks again, and the same answer then changes
// nothing. A failed call or a malformed answer counts the entity in
// Failed and writes nothing for it. Store and embedder errors stop the
// run and are returned with the counts so far. Without an LLM the pass
// is skipped.
func Temporal(ctx context.Context, st TemporalStore, emb memory.Embedder, llm memory.LLM, bank string, now time.Time, d TemporalDefaults) (*TemporalResult, error) {
	if llm == nil {
		return nil, &Skipped{Reason: NoLLM}
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	res := &TemporalResult{}
	from := now.Add(-d.Window)
	busy, err := st.BusyEntities(ctx, bank, memory.BusyQuery{Pass: PassTemporal, From: from, To: now, MinFacts: d.MinFacts, Limit: d.MaxEntities})
	if err != nil {
		return res, fmt.Errorf("temporal: busy entities: %w", err)
	}
	for _, ent := range busy {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		facts, err := st.EntityTimeline(ctx, bank, ent.ID, from, now, d.MaxFacts)
		if err != nil {
			return res, fmt.Errorf("temporal: timeline of %s: %w", ent.ID, err)
		}
		if len(facts) >= d.MinFacts {
			res.Entities++
			pats, err := askTemporal(ctx, llm, ent, facts)
			if err != nil {
				if ctx.Err() != nil {
					return res, ctx.Err()
				}
				res.Failed++
				continue
			}
			pats = validPatterns(pats, facts, res)
			obs, err := applyPatterns(ctx, st, emb, bank, now, d, ent, facts, pats, res)
			if err != nil {
				return res, err
			}
			if len(obs) > 0 {
				if err := st.PutObservations(ctx, bank, obs); err != nil {
					return res, fmt.Errorf("temporal: observations of %s: %w", ent.ID, err)
				}
			}
		}
		if err := st.MarkEntities(ctx, bank, PassTemporal, []memory.EntityMark{{EntityID: ent.ID, Seq: ent.NewestSeq, At: now}}); err != nil {
			return res, fmt.Errorf("temporal: mark %s: %w", ent.ID, err)
		}
	}
	return res, nil
}

// pattern is one temporal pattern of the model's answer (temporalSchema).
type pattern struct {
	Kind          memory.ObservationKind `json:"kind"`
	Text          string                 `json:"text"`
	SourceFactIDs []string               `json:"source_fact_ids"`
}

// temporalKinds are the kinds a temporal pattern may have.
var temporalKinds = []memory.ObservationKind{memory.ObservationTrend, memory.ObservationTransition, memory.ObservationCycle, memory.ObservationCorrelation}

// askTemporal makes the one call about ent. An answer that is not the
// schema's JSON is an error (the entity failed), never an empty answer.
func askTemporal(ctx context.Context, llm memory.LLM, ent memory.BusyEntity, facts []*memory.Fact) ([]pattern, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "ENTITY: %s", ent.Name)
	if ent.Type != "" {
		fmt.Fprintf(&b, " (%s)", ent.Type)
	}
	b.WriteString("\n\nCHRONOLOGICAL FACTS (oldest first):\n")
	for _, f := range facts {
		fmt.Fprintf(&b, "- id %s | occurred %s", f.ID, f.EventTime().UTC().Format("2006-01-02 15:04"))
		if !f.CreatedAt.IsZero() && !f.CreatedAt.Equal(f.EventTime()) {
			fmt.Fprintf(&b, " | learned %s", f.CreatedAt.UTC().Format("2006-01-02"))
		}
		fmt.Fprintf(&b, " | %s\n", f.Body())
	}
	resp, err := llm.Chat(ctx, &memory.ChatRequest{
		Stage:    StageTemporal,
		System:   temporalSystem,
		Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: b.String()}},
		Schema:   &memory.Schema{Name: "temporal_patterns", Description: "temporal patterns across an entity's facts", JSON: json.RawMessage(temporalSchema)},
	})
	if err != nil {
		return nil, fmt.Errorf("temporal patterns of %s: %w", ent.ID, err)
	}
	var ans struct {
		Patterns *[]pattern `json:"patterns"`
	}
	if err := json.Unmarshal(resp.JSON, &ans); err != nil || ans.Patterns == nil {
		return nil, memory.Errorf(memory.EINVALID, "temporal patterns of %s: malformed answer", ent.ID)
	}
	return *ans.Patterns, nil
}

// validPatterns keeps the patterns with a known kind, a text and at least
// one source among facts; unknown and repeated ids are dropped, and the
// sources are put in the facts' (time) order. The rest are counted in
// res.Rejected.
func validPatterns(pats []pattern, facts []*memory.Fact, res *TemporalResult) []pattern {
	pos := make(map[string]int, len(facts))
	for i, f := range facts {
		pos[f.ID] = i
	}
	var out []pattern
	for _, p := range pats {
		p.Text = strings.TrimSpace(p.Text)
		var src []string
		for _, id := range p.SourceFactIDs {
			id = strings.TrimSpace(id)
			if _, ok := pos[id]; ok && !slices.Contains(src, id) {
				src = append(src, id)
			}
		}
		if len(src) == 0 || p.Text == "" || !slices.Contains(temporalKinds, p.Kind) {
			res.Rejected++
			continue
		}
		slices.SortFunc(src, func(a, b string) int { return pos[a] - pos[b] })
		p.SourceFactIDs = src
		out = append(out, p)
	}
	res.Patterns += len(out)
	return out
}

// applyPatterns turns pats into the observations to write: new ones, and
// existing ones enriched. A pattern close to one written earlier in the
// same answer enriches that one.
func applyPatterns(ctx context.Context, st TemporalStore, emb memory.Embedder, bank string, now time.Time, d TemporalDefaults,
	ent memory.BusyEntity, facts []*memory.Fact, pats []pattern, res *TemporalResult) ([]*memory.Observation, error) {
	if len(pats) == 0 {
		return nil, nil
	}
	texts := make([]string, len(pats))
	for i, p := range pats {
		texts[i] = p.Text
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("temporal: embed patterns: %w", err)
	}
	if len(vecs) != len(pats) {
		return nil, fmt.Errorf("temporal: embedder returned %d vectors for %d patterns", len(vecs), len(pats))
	}
	var out []*memory.Observation
	for i, p := range pats {
		o, err := closest(ctx, st, bank, vecs[i], out, d)
		if err != nil {
			return nil, err
		}
		if o == nil {
			o = &memory.Observation{
				ID: id.Derive("obs", now, bank, PassTemporal, ent.ID, p.Text), BankID: bank, Text: p.Text, Kind: p.Kind,
				SourceFactIDs: p.SourceFactIDs, EvidenceCount: len(p.SourceFactIDs), Embedding: vecs[i],
				Status: memory.StatusActive, CreatedAt: now, UpdatedAt: now,
			}
			out = append(out, o)
			res.Created++
			continue
		}
		var added []string
		for _, id := range p.SourceFactIDs {
			if !slices.Contains(o.SourceFactIDs, id) {
				added = append(added, id)
			}
		}
		if len(added) == 0 {
			res.Unchanged++
			continue
		}
		o.History = memory.AppendHistory(o.History, memory.ObservationChange{
			Previous: o.Text, ChangedAt: now,
			Reason: fmt.Sprintf("temporal pass: %s of %s, %d new fact(s)", p.Kind, ent.Name, len(added)),
		})
		o.Text, o.Embedding, o.UpdatedAt = p.Text, vecs[i], now
		o.SourceFactIDs = append(o.SourceFactIDs, added...)
		o.EvidenceCount += len(added)
		if o.Kind == "" || o.Kind == memory.ObservationPattern {
			o.Kind = p.Kind
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
		res.Enriched++
	}
	return out, nil
}

// closest returns the observation a pattern with vector vec enriches:
// one of pending (written by this answer) or an active stored one with a
// cosine above d.EnrichCosine, the closest; nil when there is none. A
// stored one is read whole (with a copy of its lists), ready to change.
func closest(ctx context.Context, st TemporalStore, bank string, vec []float32, pending []*memory.Observation, d TemporalDefaults) (*memory.Observation, error) {
	var best *memory.Observation
	bestScore := d.EnrichCosine
	for _, o := range pending {
		if c := cosine(vec, o.Embedding); c > bestScore {
			best, bestScore = o, c
		}
	}
	hits, err := st.SearchObservationsVector(ctx, bank, vec, d.EnrichTopK)
	if err != nil {
		return nil, fmt.Errorf("temporal: search observations: %w", err)
	}
	for _, h := range hits {
		if h.Score <= bestScore {
			continue
		}
		if i := slices.IndexFunc(pending, func(o *memory.Observation) bool { return o.ID == h.ID }); i >= 0 {
			best, bestScore = pending[i], h.Score
			continue
		}
		obs, err := st.Observations(ctx, bank, []string{h.ID})
		if err != nil {
			return nil, fmt.Errorf("temporal: read observation %s: %w", h.ID, err)
		}
		if len(obs) == 1 && (obs[0].Status == "" || obs[0].Status == memory.StatusActive) {
			o := *obs[0]
			o.SourceFactIDs, o.History = slices.Clone(o.SourceFactIDs), slices.Clone(o.History)
			best, bestScore = &o, h.Score
		}
	}
	return best, nil
}

// cosine is the cosine similarity of a and b (0 when either is zero or
// their lengths differ).
func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// temporalSystem is the temporal pass's instructions (seed 000's four
// kinds of pattern, and its rules).
const temporalSystem = `You detect temporal patterns for a memory system. Given the facts about one entity in chronological order, report the patterns over time that no single fact captures:

- trend: a value or state changing consistently over time (declining sleep, increasing workload)
- transition: a change of role or state across facts (moved teams, changed jobs, shifted focus)
- cycle: a recurring pattern (weekly energy dips, monthly reviews)
- correlation: changes in different domains that move together (sleep declining while stress rises)

Rules:
1. Report a pattern only if several facts support it: two facts are coincidence, not a pattern.
2. Ignore facts that belong to no temporal pattern (one-off events, small talk).
3. A pattern spans a meaningful time range: same-day facts are not a trend.
4. Say the time range and the direction of the change, with dates.
5. Never rephrase a single fact: a pattern synthesises several.
6. source_fact_ids lists the ids of the facts the pattern rests on, exactly as given.

If there is no such pattern, answer with an empty list.`

// temporalSchema is the JSON Schema of the temporal pass's answer.
const temporalSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["patterns"],
  "properties": {
    "patterns": {
      "type": "array",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["kind", "text", "source_fact_ids"],
        "properties": {
          "kind": {"type": "string", "enum": ["trend", "transition", "cycle", "correlation"]},
          "text": {"type": "string"},
          "source_fact_ids": {"type": "array", "items": {"type": "string"}}
        }
      }
    }
  }
}`
