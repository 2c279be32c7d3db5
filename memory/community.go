package memory

import (
	"context"
	"math"
	"time"
	"unicode/utf8"
)

// Communities keeps a bank's entity communities ([Community]): seed 004's
// "community detection for L2", clusters of entities found on the entity
// graph (co-occurrences and relations) by the communities pass of
// consolidation. It reads the graph the pass needs (the co-occurrence
// pairs, and a cheap mark that says whether the graph changed), and
// stores the communities with the mark of the graph they were found on,
// so that a pass over an unchanged graph does nothing. Communities are
// derived data: they go with their bank, are not exported, and the pass
// finds them again from the graph. Part of [Store].
type Communities interface {
	// Cooccurrences returns every co-occurrence pair of a bank with a
	// positive count, ordered by EntityA then EntityB. An unknown bank
	// is ENOTFOUND.
	Cooccurrences(ctx context.Context, bankID string) ([]Cooccurrence, error)
	// GraphMark returns the mark of a bank's entity graph as it is now
	// ([GraphMark]). An unknown bank is ENOTFOUND.
	GraphMark(ctx context.Context, bankID string) (GraphMark, error)
	// SaveCommunities applies u in one transaction: each community of
	// u.Put is stored whole (replacing one of the same id), those of
	// u.Delete are removed (an id the bank does not hold is no error),
	// and u.Mark, when set, becomes the bank's community mark. An update
	// that fails [CheckCommunityUpdate] is EINVALID and nothing is
	// stored; an unknown bank is ENOTFOUND.
	SaveCommunities(ctx context.Context, bankID string, u *CommunityUpdate) error
	// ListCommunities returns a bank's communities, the most members
	// first, then by id; each with its members and representatives in
	// the order saved. A bank with none returns an empty slice; an
	// unknown bank is ENOTFOUND.
	ListCommunities(ctx context.Context, bankID string) ([]*Community, error)
	// CommunityMark returns the mark the last SaveCommunities stored
	// with u.Mark, and whether there is one. An unknown bank is
	// ENOTFOUND.
	CommunityMark(ctx context.Context, bankID string) (GraphMark, bool, error)
}

// Community is a cluster of a bank's entities that are mentioned together
// and related more among themselves than with the rest (seed 004's
// behavioural clusters; Graphiti's communities).
type Community struct {
	ID     string
	BankID string
	// Name is a short label: the model's when it summarised the
	// community, else its representatives' names.
	Name string
	// Members are the entities of the community, heaviest first: each
	// with its weight inside the community (the sum of its edges to the
	// other members).
	Members []CommunityMember
	// Representatives are the members that stand for the community
	// (the heaviest), best first: the ones promoted to L2 when old and
	// validated enough (seed 004).
	Representatives []string
	// Summary is one paragraph a model wrote about the community; ""
	// until one did. When the members change it stays until the model
	// writes it again (SummarizedAt is then before UpdatedAt).
	Summary string
	// Sources are the facts the summary was written from: a summary
	// whose source is forgotten or no longer active is dropped.
	Sources []string
	// Weight is the sum of the weights of the edges inside the
	// community.
	Weight float64
	// CreatedAt is when the community was first found; UpdatedAt when
	// its members or representatives last changed; SummarizedAt when
	// its summary was written (zero: none).
	CreatedAt, UpdatedAt, SummarizedAt time.Time
}

// CommunityMember is one entity of a [Community] with its weight there.
type CommunityMember struct {
	EntityID string
	Weight   float64
}

// HasMember reports whether the entity is a member of c.
func (c *Community) HasMember(entityID string) bool {
	for _, m := range c.Members {
		if m.EntityID == entityID {
			return true
		}
	}
	return false
}

// GraphMark summarises a bank's entity graph in a few numbers that every
// change to it moves: a new fact that mentions an entity raises Seq and
// Refs; a forget lowers Refs, Pairs or Weight; a new or closed relation
// moves Relations or Open. Two equal marks mean the graph the
// communities pass reads did not change in between.
type GraphMark struct {
	// Seq is the highest Seq of a fact that mentions an entity.
	Seq int64
	// Refs counts the entity refs (fact, entity) of the bank.
	Refs int64
	// Pairs counts the co-occurrence pairs with a positive count, and
	// Weight sums their counts.
	Pairs, Weight int64
	// Relations counts the relations, open and closed; Open those not
	// expired.
	Relations, Open int64
}

// CommunityUpdate is one write of the communities pass.
type CommunityUpdate struct {
	// Put are communities to store whole.
	Put []*Community
	// Delete are ids of communities to remove.
	Delete []string
	// Mark, when set, is stored as the bank's community mark.
	Mark *GraphMark
}

// MaxCommunitySummaryBytes bounds a community's summary and name: a
// model's paragraph, not a document.
const MaxCommunitySummaryBytes = 4 << 10

// CheckCommunityUpdate checks u before a store writes it: every
// community of u.Put has an id (once in the update, and not in
// u.Delete), a creation and an update time, at least one member, no
// member twice or with an empty id, finite weights, representatives that
// are members, and a name and summary of valid UTF-8 of at most
// MaxCommunitySummaryBytes; u.Delete holds no empty id; a mark has no
// negative number. EINVALID names the first fault.
func CheckCommunityUpdate(u *CommunityUpdate) error {
	if u == nil {
		return Errorf(EINVALID, "save communities: no update")
	}
	deleted := map[string]bool{}
	for _, id := range u.Delete {
		if id == "" {
			return Errorf(EINVALID, "save communities: an empty id to delete")
		}
		deleted[id] = true
	}
	seen := map[string]bool{}
	for _, c := range u.Put {
		if err := checkCommunity(c); err != nil {
			return err
		}
		if seen[c.ID] || deleted[c.ID] {
			return Errorf(EINVALID, "save communities: community %s named twice", c.ID)
		}
		seen[c.ID] = true
	}
	if m := u.Mark; m != nil && (m.Seq < 0 || m.Refs < 0 || m.Pairs < 0 || m.Weight < 0 || m.Relations < 0 || m.Open < 0) {
		return Errorf(EINVALID, "save communities: negative number in mark %+v", *m)
	}
	return nil
}

func checkCommunity(c *Community) error {
	switch {
	case c == nil || c.ID == "":
		return Errorf(EINVALID, "save communities: a community without an id")
	case len(c.Members) == 0:
		return Errorf(EINVALID, "community %s has no members", c.ID)
	case c.CreatedAt.IsZero() || c.UpdatedAt.IsZero():
		return Errorf(EINVALID, "community %s needs a creation and an update time", c.ID)
	case !utf8.ValidString(c.Name) || !utf8.ValidString(c.Summary):
		return Errorf(EINVALID, "community %s: name or summary is not valid UTF-8", c.ID)
	case len(c.Name) > MaxCommunitySummaryBytes || len(c.Summary) > MaxCommunitySummaryBytes:
		return Errorf(EINVALID, "community %s: name and summary are at most %d bytes each", c.ID, MaxCommunitySummaryBytes)
	case !finite(c.Weight):
		return Errorf(EINVALID, "community %s: weight %v", c.ID, c.Weight)
	}
	members := make(map[string]bool, len(c.Members))
	for _, m := range c.Members {
		switch {
		case m.EntityID == "":
			return Errorf(EINVALID, "community %s: a member without an entity id", c.ID)
		case members[m.EntityID]:
			return Errorf(EINVALID, "community %s: member %s twice", c.ID, m.EntityID)
		case !finite(m.Weight):
			return Errorf(EINVALID, "community %s: member %s weight %v", c.ID, m.EntityID, m.Weight)
		}
		members[m.EntityID] = true
	}
	for _, r := range c.Representatives {
		if !members[r] {
			return Errorf(EINVALID, "community %s: representative %s is not a member", c.ID, r)
		}
	}
	for _, s := range c.Sources {
		if s == "" {
			return Errorf(EINVALID, "community %s: an empty source fact id", c.ID)
		}
	}
	return nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
