package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
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
//
// ⚠️ A field added to Entity changes together in: this struct and, if
// upserts touch it, [MergeEntity] and [EntityUpsert.Add]; a new numbered
// migration of each store (store/sqlite/migrations,
// store/postgres/migrations); each store's entity upsert (its SQL spells
// MergeEntity's rule), entity column list and scan, export and import;
// the export format (memory/export.go, ExportEntity, and its golden
// files); store/storetest (the round-trip batch, checkEntity and the
// reference store in memstore_test.go); and package wire when clients see
// it.
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

// MergeEntity applies u, an upsert of the entity e holds, to e: the one
// rule by which an upsert adds to a stored entity.
//
//   - MentionCount and EpisodeCount add u's Mentions and Episodes.
//   - FirstSeen and LastSeen widen to take in u's; a zero time widens
//     nothing.
//   - Contradicted, once set, stays set.
//   - u's Aliases join e's, one spelling per normalised name (the first
//     recorded wins), never one that normalises to nothing or to e's Name.
//   - Type becomes the better known of the two ([BetterType]): a stored
//     thing takes u's type when u knows it ("Berlin is big", then "we
//     live in Berlin": a place); any other type stays.
//   - ID, BankID, Name, Salience and Tier stay: the first upsert's.
//
// The embedding of the entity's name, which Entity does not hold, is kept
// from the first upsert that has one. To create an entity, apply its
// first upsert to an Entity holding only its ID, BankID, Name and Type.
//
// ⚠️ store/sqlite and store/postgres apply this rule in SQL, in their
// upsert's ON CONFLICT clause (so concurrent writers add up without
// reading the row first); change them with it. store/storetest's
// Write/EntityUpsert checks every store against this function; a store
// may list a spelling of the entity's own name among its aliases.
func MergeEntity(e *Entity, u EntityUpsert) {
	e.MentionCount += u.Mentions
	e.EpisodeCount += u.Episodes
	widenSeen(e, &u.Entity)
	e.Contradicted = e.Contradicted || u.Entity.Contradicted
	e.Type = BetterType(e.Type, u.Entity.Type)
	name := NormalizeName(e.Name)
	for _, a := range u.Entity.Aliases {
		n := NormalizeName(a)
		if n == "" || n == name || slices.ContainsFunc(e.Aliases, func(o string) bool { return NormalizeName(o) == n }) {
			continue
		}
		e.Aliases = append(slices.Clip(e.Aliases), a)
	}
}

// Add sums v, a later upsert of the same entity, into u, for a store that
// writes one upsert per entity per transaction: Mentions and Episodes
// add, the seen range widens, the type is the better known and
// Contradicted sticks as in [MergeEntity],
// u keeps the first embedding, and v's Name (when spelled otherwise) and
// Aliases are appended to u's Aliases, duplicates included: the store
// keeps one spelling per normalised name, the first. u's Aliases are
// never written in place, so u may share them with the caller's batch.
func (u *EntityUpsert) Add(v EntityUpsert) {
	u.Mentions += v.Mentions
	u.Episodes += v.Episodes
	widenSeen(&u.Entity, &v.Entity)
	u.Entity.Contradicted = u.Entity.Contradicted || v.Entity.Contradicted
	u.Entity.Type = BetterType(u.Entity.Type, v.Entity.Type)
	if u.Embedding == nil {
		u.Embedding = v.Embedding
	}
	if v.Entity.Name != u.Entity.Name {
		u.Entity.Aliases = append(slices.Clip(u.Entity.Aliases), v.Entity.Name)
	}
	u.Entity.Aliases = append(slices.Clip(u.Entity.Aliases), v.Entity.Aliases...)
}

// BetterType returns the better known of an entity's type have and a
// type t a mention gives it: any type is better known than none, and any
// but EntityThing is better known than EntityThing; between two such
// types the first stays (a person is not re-typed a place by one
// mention).
func BetterType(have, t EntityType) EntityType {
	if have == "" || have == EntityThing && t != "" {
		return t
	}
	return have
}

// widenSeen widens e's FirstSeen and LastSeen to take in v's; a zero
// time widens nothing.
func widenSeen(e, v *Entity) {
	if !v.FirstSeen.IsZero() && (e.FirstSeen.IsZero() || v.FirstSeen.Before(e.FirstSeen)) {
		e.FirstSeen = v.FirstSeen
	}
	if v.LastSeen.After(e.LastSeen) {
		e.LastSeen = v.LastSeen
	}
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

// RelationClose records that edge ClosedID was closed at At because the
// edge ByID replaced it (retain's supersession: "lives in Paris" closed
// by "lives in Lyon"). Both edges are in the same batch's Relations or
// stored already.
type RelationClose struct {
	ClosedID string
	ByID     string
	At       time.Time
}

// ErrRelationClosed is in the chain of the ECONFLICT a write fails with
// when it closes an edge that another writer closed since it was read:
// two writers superseding one edge at the same time. Nothing of the
// batch is written; resolving the item again (against the edge that
// replaced it) and writing it once more is the remedy, which retain does.
var ErrRelationClosed = errors.New("relation closed by another writer")

// RelationClosedMeanwhile is the error of a batch that closes edge id,
// closed by another writer since the batch read it.
func RelationClosedMeanwhile(id string) error {
	return fmt.Errorf("%w (%w)", Errorf(ECONFLICT, "relation %s was closed by another writer while this item was resolved; resolve it again", id), ErrRelationClosed)
}

// ErrFactSuperseded is in the chain of the ECONFLICT a write fails with
// when it supersedes a fact that is no longer active: another writer
// superseded it since it was read (two writers replacing one fact at
// the same time would otherwise leave two active successors). Nothing of
// the batch is written; as for ErrRelationClosed, resolving the item
// again and writing it once more is the remedy, which retain does.
var ErrFactSuperseded = errors.New("fact superseded by another writer")

// FactSupersededMeanwhile is the error of a batch that supersedes fact
// id, which is no longer active (status) since the batch read it.
func FactSupersededMeanwhile(id string, status Status) error {
	return fmt.Errorf("%w (%w)", Errorf(ECONFLICT, "fact %s is %s now, no longer active: another writer changed it while this item was resolved; resolve it again", id, status), ErrFactSuperseded)
}

// LostRace reports whether err is a write's loss of a race with another
// writer over what its item was resolved against (ErrRelationClosed,
// ErrFactSuperseded): resolving the item again is the remedy.
func LostRace(err error) bool {
	return errors.Is(err, ErrRelationClosed) || errors.Is(err, ErrFactSuperseded)
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
	// LinkSummarises joins a summary fact to each fact it summarises
	// (group consolidation, seed 002; [FactGrouper]).
	LinkSummarises LinkKind = "summarises"
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
