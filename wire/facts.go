package wire

import (
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Fact is one stored fact as curation shows it: its text, provenance,
// classification, bi-temporal times and lifecycle. Zero times are left
// out; ExpiresAt is set for a short-term fact only.
type Fact struct {
	ID            string             `json:"id"`
	Seq           int64              `json:"seq"`
	Text          string             `json:"text"`
	Speaker       string             `json:"speaker,omitempty"`
	Kind          memory.FactKind    `json:"kind"`
	Category      memory.Category    `json:"category,omitempty"`
	Status        memory.Status      `json:"status"`
	Confidence    float64            `json:"confidence"`
	Importance    float64            `json:"importance"`
	Sensitivity   memory.Sensitivity `json:"sensitivity,omitempty"`
	Tags          []string           `json:"tags,omitempty"`
	DocumentID    string             `json:"document_id,omitempty"`
	SourceRef     string             `json:"source_ref,omitempty"`
	Evidence      string             `json:"evidence,omitempty"`
	OccurredStart *time.Time         `json:"occurred_start,omitempty"`
	OccurredEnd   *time.Time         `json:"occurred_end,omitempty"`
	MentionedAt   *time.Time         `json:"mentioned_at,omitempty"`
	ValidFrom     *time.Time         `json:"valid_from,omitempty"`
	ValidTo       *time.Time         `json:"valid_to,omitempty"`
	CreatedAt     *time.Time         `json:"created_at,omitempty"`
	ExpiredAt     *time.Time         `json:"expired_at,omitempty"`
	ExpiresAt     *time.Time         `json:"expires_at,omitempty"`
	SupersededBy  string             `json:"superseded_by,omitempty"`
	AccessCount   int                `json:"access_count"`
	Reinforced    int                `json:"reinforcement_count"`
}

// NewFact is f's wire shape.
func NewFact(f *memory.Fact) Fact {
	return Fact{
		ID: f.ID, Seq: f.Seq, Text: f.Text, Speaker: f.Speaker, Kind: f.Kind, Category: f.Category, Status: f.Status,
		Confidence: f.Confidence, Importance: f.Importance, Sensitivity: f.Sensitivity, Tags: f.Tags,
		DocumentID: f.DocumentID, SourceRef: f.SourceRef, Evidence: f.Evidence,
		OccurredStart: optTime(f.OccurredStart), OccurredEnd: optTime(f.OccurredEnd), MentionedAt: optTime(f.MentionedAt),
		ValidFrom: optTime(f.ValidFrom), ValidTo: optTime(f.ValidTo), CreatedAt: optTime(f.CreatedAt), ExpiredAt: optTime(f.ExpiredAt),
		ExpiresAt: optTime(f.ExpiresAt), SupersededBy: f.SupersededBy, AccessCount: f.AccessCount, Reinforced: f.ReinforcementCount,
	}
}

// NewFacts is the wire shape of each of fs, never nil.
func NewFacts(fs []*memory.Fact) []Fact {
	out := make([]Fact, len(fs))
	for i, f := range fs {
		out[i] = NewFact(f)
	}
	return out
}

// optTime is t, or nil (left out) for the zero time.
func optTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// FactDetail is one fact with its supersession history (`mnemo facts
// show`): the older versions it replaced, newest first, and the newer
// ones that replaced it, oldest first.
type FactDetail struct {
	Fact     Fact   `json:"fact"`
	Previous []Fact `json:"previous"`
	Next     []Fact `json:"next"`
}

// NewFactDetail is the wire shape of a fact and its history.
func NewFactDetail(f *memory.Fact, previous, next []*memory.Fact) FactDetail {
	return FactDetail{Fact: NewFact(f), Previous: NewFacts(previous), Next: NewFacts(next)}
}

// FactPage is one page of a fact listing; Next is the cursor of the
// following page, left out after the last.
type FactPage struct {
	Facts []Fact `json:"facts"`
	Next  string `json:"next,omitempty"`
}

// NewFactPage is p's wire shape.
func NewFactPage(p *memory.FactPage) FactPage {
	return FactPage{Facts: NewFacts(p.Facts), Next: p.Next}
}

// StatusChange is what an invalidate or a restore did: the facts whose
// status changed (those already there are not listed) and the status
// they now have.
type StatusChange struct {
	Changed []string      `json:"changed"`
	Status  memory.Status `json:"status"`
}

// NewStatusChange is the wire shape of a status change; never a nil list.
func NewStatusChange(changed []string, to memory.Status) StatusChange {
	if changed == nil {
		changed = []string{}
	}
	return StatusChange{Changed: changed, Status: to}
}

// Entity is an entity of the graph.
type Entity struct {
	ID           string            `json:"id"`
	Name         string            `json:"name"`
	Type         memory.EntityType `json:"type"`
	Aliases      []string          `json:"aliases,omitempty"`
	FirstSeen    *time.Time        `json:"first_seen,omitempty"`
	LastSeen     *time.Time        `json:"last_seen,omitempty"`
	Mentions     int               `json:"mention_count"`
	Episodes     int               `json:"episode_count"`
	Salience     float64           `json:"salience"`
	Tier         memory.Tier       `json:"tier,omitempty"`
	Contradicted bool              `json:"contradicted,omitempty"`
}

// NewEntity is e's wire shape.
func NewEntity(e *memory.Entity) Entity {
	return Entity{
		ID: e.ID, Name: e.Name, Type: e.Type, Aliases: e.Aliases, FirstSeen: optTime(e.FirstSeen), LastSeen: optTime(e.LastSeen),
		Mentions: e.MentionCount, Episodes: e.EpisodeCount, Salience: e.Salience, Tier: e.Tier, Contradicted: e.Contradicted,
	}
}

// EntityPage is one page of an entity listing.
type EntityPage struct {
	Entities []Entity `json:"entities"`
	Next     string   `json:"next,omitempty"`
}

// NewEntityPage is p's wire shape.
func NewEntityPage(p *memory.EntityPage) EntityPage {
	out := EntityPage{Entities: make([]Entity, len(p.Entities)), Next: p.Next}
	for i, e := range p.Entities {
		out.Entities[i] = NewEntity(e)
	}
	return out
}

// Relation is an edge between two entities with its validity: Current
// while it is open; valid_to and expired_at once closed. SubjectName and
// ObjectName are filled where the caller knows them (about).
type Relation struct {
	ID          string     `json:"id"`
	Subject     string     `json:"subject"`
	SubjectName string     `json:"subject_name,omitempty"`
	Predicate   string     `json:"predicate"`
	Object      string     `json:"object"`
	ObjectName  string     `json:"object_name,omitempty"`
	Confidence  float64    `json:"confidence"`
	FactIDs     []string   `json:"fact_ids,omitempty"`
	ValidFrom   *time.Time `json:"valid_from,omitempty"`
	ValidTo     *time.Time `json:"valid_to,omitempty"`
	CreatedAt   *time.Time `json:"created_at,omitempty"`
	ExpiredAt   *time.Time `json:"expired_at,omitempty"`
	Current     bool       `json:"current"`
}

// NewRelation is r's wire shape, with the names of its ends when given.
func NewRelation(r *memory.Relation, subjectName, objectName string) Relation {
	return Relation{
		ID: r.ID, Subject: r.SubjectID, SubjectName: subjectName, Predicate: r.Predicate, Object: r.ObjectID, ObjectName: objectName,
		Confidence: r.Confidence, FactIDs: r.FactIDs, ValidFrom: optTime(r.ValidFrom), ValidTo: optTime(r.ValidTo),
		CreatedAt: optTime(r.CreatedAt), ExpiredAt: optTime(r.ExpiredAt), Current: r.ExpiredAt.IsZero(),
	}
}

// About is everything a bank knows about one entity (`mnemo about`):
// the entity, its newest active facts and its relations both ways.
type About struct {
	Entity    Entity     `json:"entity"`
	Facts     []Fact     `json:"facts"`
	Relations []Relation `json:"relations"`
}

// NewAbout is a's wire shape.
func NewAbout(a *memory.About) About {
	out := About{Entity: NewEntity(a.Entity), Facts: NewFacts(a.Facts), Relations: make([]Relation, len(a.Relations))}
	for i, r := range a.Relations {
		out.Relations[i] = NewRelation(r.Relation, r.SubjectName, r.ObjectName)
	}
	return out
}
