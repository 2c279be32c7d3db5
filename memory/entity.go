package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
	"unicode"
)

// EntityType is what kind of thing an entity is (Annie's types plus
// organization, project and technology).
type EntityType string

const (
	EntityPerson       EntityType = "person"
	EntityOrganization EntityType = "organization"
	EntityPlace        EntityType = "place"
	EntityProject      EntityType = "project"
	EntityTopic        EntityType = "topic"
	EntityEvent        EntityType = "event"
	EntityPromise      EntityType = "promise"
	EntityEmotion      EntityType = "emotion"
	EntityDecision     EntityType = "decision"
	EntityQuestion     EntityType = "question"
	EntityRelationship EntityType = "relationship"
	EntityHabit        EntityType = "habit"
	EntityTechnology   EntityType = "technology"
	EntityThing        EntityType = "thing" // a named thing of no known type
)

// Tier is an entity's place in Annie's three-tier memory.
type Tier string

const (
	TierEpisodic Tier = "L0" // first mentions, < 7 days
	TierSemantic Tier = "L1" // validated across conversations
	TierPattern  Tier = "L2" // deep, stable aspects of identity
)

// Entity is a named thing facts are about. Entities are keyed by (type,
// normalised name): "Topic:Google" and "Person:Google" are two entities.
type Entity struct {
	ID           string
	BankID       string
	Name         string // canonical name as first seen
	Type         EntityType
	Aliases      []string
	FirstSeen    time.Time
	LastSeen     time.Time
	MentionCount int
	EpisodeCount int // distinct documents that mention it
	Salience     float64
	Tier         Tier
	Contradicted bool
}

// NormalizeName folds an entity name for matching: lower case, runs of
// space and punctuation collapsed to one space, trimmed.
func NormalizeName(name string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(name) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
			continue
		}
		if r == '\'' || r == '’' { // "Mel's" → "mels"; keep possessives glued
			continue
		}
		space = true
	}
	return b.String()
}

// EntityID returns the deterministic id of the entity named name in a
// bank. One normalised name is one entity, whatever type each mention
// gives it ("Berlin" the place and "Berlin" the thing are one Berlin), and
// the same normalised name always gives the same id, so concurrent
// writers upsert the same row without a lookup.
func EntityID(name string) string {
	sum := sha256.Sum256([]byte(NormalizeName(name)))
	return "ent_" + hex.EncodeToString(sum[:8])
}

// EntityRef ties a fact to an entity it mentions.
type EntityRef struct {
	FactID   string
	EntityID string
}

// Relation is a typed, bi-temporal edge between two entities (works_at,
// uses, likes, …). A contradiction closes the old edge (ValidTo,
// ExpiredAt) and opens a new one; nothing is deleted.
type Relation struct {
	ID         string
	BankID     string
	SubjectID  string
	Predicate  string
	ObjectID   string
	Confidence float64
	FactIDs    []string // facts that support the edge
	ValidFrom  time.Time
	ValidTo    time.Time
	CreatedAt  time.Time
	ExpiredAt  time.Time
}

// LinkKind is the kind of an edge between two facts.
type LinkKind string

const (
	LinkTemporal LinkKind = "temporal" // neighbouring items of one document
	LinkSemantic LinkKind = "semantic" // embeddings above a threshold
	LinkEntity   LinkKind = "entity"   // facts sharing an entity
	LinkCauses   LinkKind = "causes"
	LinkCausedBy LinkKind = "caused_by"
	LinkEnables  LinkKind = "enables"
	LinkPrevents LinkKind = "prevents"
)

// Link is a weighted, directed edge between two facts of one bank.
type Link struct {
	BankID   string
	FromID   string
	ToID     string
	Kind     LinkKind
	Weight   float64
	EntityID string // for LinkEntity: the shared entity
}
