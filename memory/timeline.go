package memory

import (
	"context"
	"time"
)

// EntityTimelines reads what the temporal pass needs (seed 000's
// "entities with 3+ recent facts", DESIGN §6): the bank's busy entities
// with their count of recent facts, one entity's recent facts in time
// order, and per entity the newest fact a pass has already taken into
// account, so that an entity whose facts did not change is not asked
// about again. Part of [Store].
//
// "Recent" is the event timeline: a fact's event time ([Fact.EventTime]:
// occurred, else mentioned, else created) inside a window. Only active
// facts count.
type EntityTimelines interface {
	// BusyEntities returns the entities of a bank with at least
	// q.MinFacts active facts whose event time t is in the window
	// q.From ≤ t ≤ q.To (a zero bound is open), most such facts first,
	// then by id, at most q.Limit of them. Each comes with its count
	// and the highest Seq among those facts. When q.Pass is set, an
	// entity whose mark for that pass (MarkEntities) is at least that
	// Seq is left out: nothing new happened to it since the pass last
	// took it in. The cost is one walk of the facts in the window (the
	// event-time index) and their refs, never a walk of the bank.
	// An invalid query ([BusyQuery.Validate]) is EINVALID; an unknown
	// bank ENOTFOUND.
	BusyEntities(ctx context.Context, bankID string, q BusyQuery) ([]BusyEntity, error)
	// EntityTimeline returns the active facts that mention entityID with
	// an event time t in from ≤ t ≤ to (a zero bound is open): the
	// limit latest by event time (then Seq), returned oldest first, so
	// that a new fact is never the one left out. Embeddings are not
	// loaded. An unknown entity has no facts; a bad limit (1 to
	// MaxPageSize, 0 for DefaultPageSize) is EINVALID; an unknown bank
	// ENOTFOUND.
	EntityTimeline(ctx context.Context, bankID, entityID string, from, to time.Time, limit int) ([]*Fact, error)
	// MarkEntities records, for each mark, that pass has taken in the
	// entity's facts up to Seq, at At, in one transaction. A mark never
	// moves back: the larger of the stored and the given Seq stays.
	// Marks hold ids and numbers only, never text; they go with their
	// bank. An empty pass or entity id or a negative Seq is EINVALID
	// and nothing is stored; an unknown bank ENOTFOUND.
	MarkEntities(ctx context.Context, bankID, pass string, marks []EntityMark) error
}

// BusyQuery selects the busy entities of [EntityTimelines.BusyEntities].
type BusyQuery struct {
	// Pass, when set, leaves out the entities whose mark for this pass
	// covers their recent facts.
	Pass string
	// From and To bound the facts' event time, both included; zero is
	// open.
	From, To time.Time
	// MinFacts is the least number of facts in the window an entity
	// needs; at least 1.
	MinFacts int
	// Limit is how many entities at most: 0 means DefaultPageSize, at
	// most MaxPageSize.
	Limit int
}

// Validate checks q and returns it with its defaults (Limit) filled: a
// MinFacts under 1, a From after To or a bad limit is EINVALID.
func (q BusyQuery) Validate() (BusyQuery, error) {
	var err error
	if q.Limit, err = PageLimit(q.Limit); err != nil {
		return q, err
	}
	if q.MinFacts < 1 {
		return q, Errorf(EINVALID, "min facts %d: want at least 1", q.MinFacts)
	}
	if !q.From.IsZero() && !q.To.IsZero() && q.From.After(q.To) {
		return q, Errorf(EINVALID, "from %s is after to %s", q.From.Format(time.RFC3339), q.To.Format(time.RFC3339))
	}
	return q, nil
}

// InWindow reports whether t is inside [from, to], a zero bound being
// open: the window of [BusyQuery] and [EntityTimelines.EntityTimeline].
func InWindow(t, from, to time.Time) bool {
	return !t.IsZero() && (from.IsZero() || !t.Before(from)) && (to.IsZero() || !t.After(to))
}

// BusyEntity is one entity of [EntityTimelines.BusyEntities].
type BusyEntity struct {
	ID   string
	Name string
	Type EntityType
	// Facts counts its active facts in the window.
	Facts int
	// NewestSeq is the highest Seq among them: the mark that says they
	// were all taken in.
	NewestSeq int64
}

// EntityMark says that a pass took in an entity's facts up to Seq.
type EntityMark struct {
	EntityID string
	Seq      int64
	At       time.Time
}

// CheckMarks checks the arguments of [EntityTimelines.MarkEntities]:
// EINVALID for an empty pass or entity id or a negative Seq.
func CheckMarks(pass string, marks []EntityMark) error {
	if pass == "" {
		return Errorf(EINVALID, "mark entities: no pass")
	}
	for _, m := range marks {
		if m.EntityID == "" {
			return Errorf(EINVALID, "mark entities: an empty entity id")
		}
		if m.Seq < 0 {
			return Errorf(EINVALID, "mark entities: entity %s: negative seq %d", m.EntityID, m.Seq)
		}
	}
	return nil
}
