// Package extract turns retained content (plain text or a conversation)
// into chunks and facts: atomic statements with their speaker, times,
// kind, category and the entities they mention.
//
// The types here are shared by every extractor. Heuristic is the built-in
// one: it needs no LLM, keeps each message (or each sentence of plain
// text) verbatim as a fact, resolves the dates it mentions and finds
// entities with cheap capitalisation rules. An LLM extractor producing
// rewritten, finer facts and relations lives in its own package and
// returns the same Result. Nothing here stores, embeds or links facts:
// that is the retain pipeline's job.
package extract

import (
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// DefaultImportance is the importance of a fact when the extractor has no
// better estimate: the middle of the [0, 1] scale.
const DefaultImportance = 0.5

// VerbatimConfidence is the confidence of a fact that is the speaker's own
// words: it is certain that they were said.
const VerbatimConfidence = 1.0

// Input is one item to extract from; it mirrors the content of a
// memory.RetainRequest: either plain Text (with its Speaker, if any) or
// Messages, never both.
type Input struct {
	Text     string
	Speaker  string
	Messages []memory.Message
	// At is when the item was said or written; relative dates are resolved
	// against it (or against a message's own Time). Zero means now.
	At time.Time
}

// Fact is one extracted statement, before it is stored.
type Fact struct {
	Text      string
	Speaker   string
	SourceRef string // the id of the message it came from; empty for plain text
	// Chunk is the index in Result.Chunks of the raw text the fact came from.
	Chunk int

	Kind        memory.FactKind
	Category    memory.Category
	Confidence  float64
	Importance  float64
	Sensitivity memory.Sensitivity

	// OccurredStart and OccurredEnd are the period the fact happened in,
	// end exclusive; OccurredEnd is zero when only an instant is known.
	OccurredStart time.Time
	OccurredEnd   time.Time
	// MentionedAt is when the fact was said or written.
	MentionedAt time.Time

	// Entities are the entities the fact mentions, deduplicated by type
	// and memory.NormalizeName.
	Entities []Entity
	// Relations are the relations between entities the fact states; the
	// fact is their evidence. The heuristic extractor leaves it empty.
	Relations []Relation
	// Evidence is a verbatim quote of the content supporting the fact.
	Evidence string
	// Causes are causal links from this fact to others of the same
	// Result, by index. The heuristic extractor leaves it empty.
	Causes []Cause
}

// Cause is a causal link from a fact to another fact of the same Result.
type Cause struct {
	Fact int             // index in Result.Facts
	Kind memory.LinkKind // causes, caused_by, enables or prevents
}

// Entity is an entity a fact mentions, by name; the retain pipeline
// resolves it to a stored memory.Entity.
type Entity struct {
	Name       string
	Type       memory.EntityType
	Confidence float64
	// Mentions counts how often the fact names the entity (a speaker
	// counts once for speaking); zero when the extractor does not count
	// (the LLM path), which ranks as one. Retain ranks a fact's entities
	// by it for co-occurrence (memory.RankEntities).
	Mentions int
}

// Relation is a typed edge between two entities a fact names, by name:
// ("Caroline", "attends", "LGBTQ support group").
type Relation struct {
	Subject, Predicate, Object string
	Confidence                 float64
}

// Result is what an extractor found in one Input: the raw chunks, and the
// facts, each pointing at its chunk.
type Result struct {
	Chunks []string
	Facts  []Fact
}
