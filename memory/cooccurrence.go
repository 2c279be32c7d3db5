package memory

import (
	"cmp"
	"slices"
)

// CooccurrenceTop is how many of a fact's entities take part in
// co-occurrence: the fact's most salient ones. A fact adds one to every
// pair among them, so at most CooccurrenceTop·(CooccurrenceTop−1)/2 = 28
// pairs however long it is. Seed 003 keeps co-occurrence statistics per
// memory unit (an atomic fact); a verbatim 3,000-word turn is one fact
// naming a hundred entities, and all their pairs (about 5,000) would say
// little more than "these were in one long answer" while costing a row
// each. Facts of a chat turn's size (LoCoMo: at most 5 entities) keep all
// their pairs.
const CooccurrenceTop = 8

// RankEntities orders a fact's distinct entities by salience, most
// salient first: more mentions in the fact first, then the one the fact
// names first. ids are in the order the fact first names them and
// mentions[i] counts the mentions of ids[i] (a zero count, as an
// extractor that does not count gives, counts as one). ids and mentions
// are sorted in place, together.
//
// The order is what a store keeps as each ref's rank (the order of a
// fact's refs in a [WriteBatch]) so that forgetting the fact takes off
// exactly the pairs it added ([ForgetCooccurrences]).
func RankEntities(ids []string, mentions []int) {
	type ranked struct {
		id    string
		n, at int
	}
	rs := make([]ranked, len(ids))
	for i, id := range ids {
		rs[i] = ranked{id: id, n: max(mentions[i], 1), at: i}
	}
	slices.SortFunc(rs, func(a, b ranked) int {
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c
		}
		return cmp.Compare(a.at, b.at)
	})
	for i, r := range rs {
		ids[i], mentions[i] = r.id, r.n
	}
}

// Cooccurring calls yield once for each pair of entities a fact adds one
// co-occurrence to, keyed in id order (a < b) as the cooccurrences table
// keys it: every pair among the first [CooccurrenceTop] of ranked, the
// fact's distinct entity ids in rank order ([RankEntities]). The work and
// the number of pairs are bounded by CooccurrenceTop, never by the
// fact's length.
func Cooccurring(ranked []string, yield func(a, b string)) {
	top := ranked[:min(len(ranked), CooccurrenceTop)]
	for i := range top {
		for j := i + 1; j < len(top); j++ {
			a, b := top[i], top[j]
			if a == b {
				continue
			}
			if b < a {
				a, b = b, a
			}
			yield(a, b)
		}
	}
}

// RankedRef is one entity ref of a fact as a store reads it back to
// forget the fact: the entity, and the rank the fact gave it (0 the most
// salient), or -1 when the store does not know it (a ref written before
// ranks were stored, or brought in by an export or a merge).
type RankedRef struct {
	EntityID string
	Rank     int
}

// ForgetCooccurrences counts the co-occurrences the facts of perFact
// (fact id → its refs, in any order) added, by [Cooccurring]'s rule, so
// that forgetting them takes the counts off: the pairs among each fact's
// refs ranked below CooccurrenceTop. A fact with a ref of unknown rank
// is counted whole when it has at most CooccurrenceTop entities (every
// rule mnemo has used paired all of them) and not at all otherwise: its
// pairs are unknown, and taking off a pair it never added would take
// another fact's count. Such a fact's pairs stay until one of their
// entities is gone.
func ForgetCooccurrences(perFact map[string][]RankedRef) map[[2]string]int {
	pairs := map[[2]string]int{}
	add := func(a, b string) { pairs[[2]string{a, b}]++ }
	for _, refs := range perFact {
		known := true
		for _, r := range refs {
			known = known && r.Rank >= 0
		}
		refs = slices.Clone(refs)
		slices.SortFunc(refs, func(a, b RankedRef) int {
			return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.EntityID, b.EntityID))
		})
		ids := make([]string, 0, len(refs))
		seen := make(map[string]bool, len(refs))
		for _, r := range refs {
			if !seen[r.EntityID] { // a store keeps one ref per entity and fact; a repeat counts once
				seen[r.EntityID] = true
				ids = append(ids, r.EntityID)
			}
		}
		if !known && len(ids) > CooccurrenceTop {
			continue
		}
		Cooccurring(ids, add)
	}
	return pairs
}
