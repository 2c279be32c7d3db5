package memory

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode"
)

// FactMerger folds a duplicate fact into the fact that keeps its place:
// the fact merge of consolidation (seed 000 "Fact Merge"; DESIGN §6).
type FactMerger interface {
	// MergeFact merges the fact dup into the fact keeper, in one
	// transaction:
	//
	//   - dup's entity refs move to keeper (an entity keeper already
	//     mentions keeps its one ref); entity mention and episode counts
	//     and co-occurrences stay as they are: every mention was made,
	//     only the fact that carries it changes;
	//   - links from or to dup are rewritten to keeper (a link that would
	//     join keeper to itself, or that keeper already has, is dropped);
	//   - every observation's source list and every relation's fact list
	//     naming dup names keeper instead, in the same place, once;
	//   - keeper's access_count grows by dup's, its last_accessed is the
	//     later of the two, and its reinforcement_count grows by one plus
	//     dup's (the fact was said again, as retain's duplicate skip
	//     reinforces it);
	//   - dup becomes superseded with superseded_by = keeper and
	//     expired_at = at (the transaction timeline: mnemo learned at at
	//     that dup is keeper); its text, valid times and counters stay.
	//     Searches stop finding it at once.
	//
	// A dup already superseded by keeper is left as it is and MergeFact
	// reports false (merging twice is a no-op); otherwise it reports
	// true. dup == keeper or an empty id is EINVALID; an id that does not
	// exist is ENOTFOUND; a dup or keeper that is not active (other than
	// the no-op case) is ECONFLICT; an unknown bank is ENOTFOUND. An
	// error changes nothing.
	MergeFact(ctx context.Context, bankID, dup, keeper string, at time.Time) (bool, error)
}

// CheckMerge is the status rule of [FactMerger.MergeFact] that every store
// applies inside its transaction, given the current dup and keeper
// (either nil when absent). It reports whether the merge changes
// anything, or the error the store returns.
func CheckMerge(dupID, keeperID string, dup, keeper *Fact) (bool, error) {
	switch {
	case dupID == "" || keeperID == "":
		return false, Errorf(EINVALID, "merge: an empty fact id")
	case dupID == keeperID:
		return false, Errorf(EINVALID, "merge: fact %s into itself", dupID)
	case dup == nil:
		return false, Errorf(ENOTFOUND, "no fact %s", dupID)
	case keeper == nil:
		return false, Errorf(ENOTFOUND, "no fact %s", keeperID)
	}
	if dup.Status == StatusSuperseded && dup.SupersededBy == keeperID {
		return false, nil
	}
	if dup.Status != "" && dup.Status != StatusActive {
		return false, Errorf(ECONFLICT, "merge: fact %s is %s", dupID, dup.Status)
	}
	if keeper.Status != "" && keeper.Status != StatusActive {
		return false, Errorf(ECONFLICT, "merge: keeper %s is %s", keeperID, keeper.Status)
	}
	return true, nil
}

// ReplaceFactID returns ids with every dup replaced by keeper, keeping
// the first place either held and dropping later repeats; ids without
// dup come back unchanged (changed false). Stores rewrite observation
// sources and relation fact lists with it.
func ReplaceFactID(ids []string, dup, keeper string) (out []string, changed bool) {
	if !slices.Contains(ids, dup) {
		return ids, false
	}
	out = make([]string, 0, len(ids))
	seen := map[string]bool{}
	for _, id := range ids {
		if id == dup {
			id = keeper
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, true
}

// DuplicateKey is the key under which two facts count as the same fact
// without an LLM (DESIGN §4.6, "exact and near-exact duplicates"): the
// speaker and the text, each case-folded, with runs of white space made
// one space and punctuation and symbols trimmed from both ends ("I love
// tea." and "i love  tea" share a key; "I love tea" said by another
// speaker, or "I love 2 teas", do not). Punctuation inside the text is
// kept, so numbers, times and names stay distinct. An empty text has the
// key "" and is never a duplicate.
func DuplicateKey(speaker, text string) string {
	t := normaliseForKey(text)
	if t == "" {
		return ""
	}
	return normaliseForKey(speaker) + "\x00" + t
}

// FactDuplicateKey is f's DuplicateKey, and for an experience (an event:
// "I went running today.") also the day it happened: the same sentence
// about two days is two events, not one fact said twice. A world fact (a
// state: "I love tea.") said on two days is the same fact. "" for a fact
// that is never a duplicate.
func FactDuplicateKey(f *Fact) string {
	key := DuplicateKey(f.Speaker, f.Text)
	if key == "" || f.Kind != KindExperience {
		return key
	}
	if t := f.EventTime(); !t.IsZero() {
		key += "\x00" + t.UTC().Format(time.DateOnly)
	}
	return key
}

// normaliseForKey case-folds s, collapses white space and trims
// punctuation and symbols at both ends.
func normaliseForKey(s string) string {
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsPunct(r) || unicode.IsSymbol(r) || unicode.IsSpace(r)
	})
}
