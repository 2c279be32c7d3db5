package memory

import (
	"context"
	"time"
)

// FactGroup is one group consolidation (seed 002): a new summary fact and
// the facts it replaces.
type FactGroup struct {
	// Summary is the new fact, with its ID, text, kind, times and
	// Embedding set as for [WriteBatch.Facts]; Seq is assigned by the
	// store.
	Summary *Fact
	// Members are the ids of the facts summarised: two or more, distinct,
	// none the summary's.
	Members []string
	// At is when mnemo learned that the summary replaces them (the
	// members' expired_at).
	At time.Time
}

// FactGrouper stores group consolidations.
type FactGrouper interface {
	// GroupFacts stores g in one transaction: all of it or nothing.
	//
	//   - the summary is stored as a new active fact, searchable at once
	//     (text and vector), mentioning every entity a member mentions
	//     (entity counts and co-occurrences stay as they are: no new
	//     mention was made);
	//   - a link of kind [LinkSummarises], weight 1, goes from the
	//     summary to each member;
	//   - each member becomes superseded with superseded_by = the summary
	//     and expired_at = g.At; its text, valid times, counters, refs and
	//     links stay, so it is listed and reachable, and searches stop
	//     finding it.
	//
	// Fewer than two members, a repeated or empty id, or a summary that
	// is nil, lacks an id or is itself a member is EINVALID; a member
	// that does not exist is ENOTFOUND and one that is not active
	// ECONFLICT (another pass changed it since it was read); a summary id
	// that exists is ECONFLICT; an unknown bank is ENOTFOUND. An error
	// changes nothing.
	GroupFacts(ctx context.Context, bankID string, g *FactGroup) error
}

// CheckGroup is the shape rule of [FactGrouper.GroupFacts] that every
// store applies before reading anything: EINVALID for a bad group.
func CheckGroup(g *FactGroup) error {
	if g == nil || g.Summary == nil || g.Summary.ID == "" {
		return Errorf(EINVALID, "group: a summary fact with an id is required")
	}
	if len(g.Members) < 2 {
		return Errorf(EINVALID, "group: %d members, want at least 2", len(g.Members))
	}
	seen := map[string]bool{g.Summary.ID: true}
	for _, id := range g.Members {
		if id == "" {
			return Errorf(EINVALID, "group: an empty member id")
		}
		if seen[id] {
			return Errorf(EINVALID, "group: fact %s given twice (or is the summary)", id)
		}
		seen[id] = true
	}
	return nil
}

// CheckGroupMembers is the status rule of [FactGrouper.GroupFacts] that
// every store applies inside its transaction, given the current status
// of the members that exist: ENOTFOUND for a missing member, ECONFLICT
// for one that is not active.
func CheckGroupMembers(members []string, status map[string]Status) error {
	for _, id := range members {
		st, ok := status[id]
		switch {
		case !ok:
			return Errorf(ENOTFOUND, "no fact %s", id)
		case st != "" && st != StatusActive:
			return Errorf(ECONFLICT, "group: fact %s is %s", id, st)
		}
	}
	return nil
}
