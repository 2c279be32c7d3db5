package memory

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
)

// Forgetter forgets facts for good: the capability behind
// Engine.Forget, part of [Store].
//
// Forgetting a fact removes every trace of it from the bank:
//
//   - the fact row, its full-text rows, its vector and any in-process
//     index entry;
//   - its entity refs: each entity it mentioned loses one mention, the
//     co-occurrences between its entities lose one, and an entity left
//     with no refs is removed with its aliases, co-occurrences, name
//     embedding and the relations at either end of it;
//   - the links leaving it and reaching it;
//   - its support of relations: a relation whose last supporting fact
//     goes is removed, otherwise its fact list shrinks;
//   - its place among observation sources: an observation whose last
//     source goes is removed, otherwise its source list shrinks and its
//     remaining source facts have ConsolidatedAt cleared, so the next
//     consolidation revisits (re-words) it;
//   - the dreams it is a source of: a dream citing it is removed whole
//     (its insight was worded from the fact, and a dream is never
//     re-worded);
//   - the chunks it came from (their text held its words; facts of the
//     same chunk that stay keep their text and lose their ChunkID), and
//     the raw content of its document (cleared; the content hash stays,
//     so retaining the same item again is still a duplicate and does not
//     bring the forgotten words back). A document left with no facts is
//     removed with its chunks;
//   - supersession pointers: a fact it superseded is no longer
//     superseded by anything (its status stays), and its own pointer
//     goes with it.
//
// The store also keeps the deleted bytes off its disk as far as its
// engine allows (see each store's documentation).
type Forgetter interface {
	// Forget removes the facts with the given ids and every trace of
	// them, in one transaction, and stores rec as the audit record of
	// it, with rec.Counts filled in and rec.ID, rec.BankID and rec.At set
	// if empty. ids must be non-empty and exist in the bank: an unknown
	// id is ENOTFOUND and nothing is removed; a repeated id counts once.
	// An unknown bank is ENOTFOUND.
	Forget(ctx context.Context, bankID string, ids []string, rec *ForgetRecord) (*ForgetRecord, error)
	// ForgetSelect resolves a selector to the ids of the facts it
	// selects (any status), in Seq order. The selector's fields are
	// ANDed; an empty selector is EINVALID (it would select everything).
	// An unknown entity or document selects nothing.
	ForgetSelect(ctx context.Context, bankID string, sel ForgetSelector) ([]string, error)
	// ForgetLog returns a bank's audit records, newest first, at most
	// limit (0 or less: all).
	ForgetLog(ctx context.Context, bankID string, limit int) ([]*ForgetRecord, error)
}

// ForgetSelector selects facts by what a store can answer: the facts that
// mention an entity (by id), the facts of a document (by id), the facts
// of every version of an item (Source and Item: the current document's
// and those of the versions it superseded), the facts whose event time
// (occurred start, else mention time, else creation time) lies in
// [From, To). Zero fields match anything; at least one must be set.
type ForgetSelector struct {
	EntityID     string
	DocumentID   string
	Source, Item string
	From, To     time.Time
}

// Empty reports whether the selector sets nothing.
func (s ForgetSelector) Empty() bool {
	return s.EntityID == "" && s.DocumentID == "" && s.Item == "" && s.From.IsZero() && s.To.IsZero()
}

// ForgetRecord is the audit record of one forget: who asked, when, with
// what selector, and what it removed. It never holds the forgotten text:
// only the selector as the caller gave it and counts.
type ForgetRecord struct {
	ID     string
	BankID string
	At     time.Time
	// Actor is who asked (free text: a user, a key's name, "cli").
	Actor    string
	Selector ForgetAudit
	Counts   ForgetCounts
}

// ForgetAudit is the selector of a forget as the caller gave it. IDs is
// how many fact ids were named, not the ids; Query and Entity are the
// Fingerprint of the words given, not the words, which are often what
// was forgotten.
type ForgetAudit struct {
	IDs      int       `json:"ids,omitempty"`
	Query    string    `json:"query,omitempty"`
	Entity   string    `json:"entity,omitempty"`
	Document string    `json:"document,omitempty"`
	From     time.Time `json:"from,omitzero"`
	To       time.Time `json:"to,omitzero"`
}

// ForgetCounts counts what a forget removed or changed.
type ForgetCounts struct {
	Facts     int `json:"facts"`
	Links     int `json:"links"`
	Refs      int `json:"refs"`
	Entities  int `json:"entities"`
	Relations int `json:"relations"`
	// RelationsShrunk counts relations that lost some support and stay.
	RelationsShrunk int `json:"relations_shrunk"`
	Observations    int `json:"observations"`
	// Reconsolidate counts observations that lost a source and stay,
	// marked for the next consolidation.
	Reconsolidate int `json:"reconsolidate"`
	Chunks        int `json:"chunks"`
	Documents     int `json:"documents"`
	// Dreams counts the dreams removed with a source.
	Dreams int `json:"dreams"`
}

// ValidateForgetIDs checks the ids of a Forget call and returns them
// without repeats, in the order given.
func ValidateForgetIDs(ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, Errorf(EINVALID, "forget: no fact ids")
	}
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if id == "" {
			return nil, Errorf(EINVALID, "forget: an empty fact id")
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// ValidateForgetSelector checks a selector: not empty, and From before To
// when both are set.
func ValidateForgetSelector(s ForgetSelector) error {
	if s.Empty() {
		return Errorf(EINVALID, "forget: an empty selector would select every fact")
	}
	if (s.Source == "") != (s.Item == "") {
		return Errorf(EINVALID, "forget: an item needs both its source and its id")
	}
	if !s.From.IsZero() && !s.To.IsZero() && !s.From.Before(s.To) {
		return Errorf(EINVALID, "forget: from %s is not before to %s", s.From.Format(time.RFC3339), s.To.Format(time.RFC3339))
	}
	return nil
}

// ForgetRecordID is the id of a new forget audit record made at t: its
// time (so ids sort by it) and a random part.
func ForgetRecordID(t time.Time) string {
	var nonce [6]byte
	rand.Read(nonce[:])
	return fmt.Sprintf("forget-%s-%s", t.UTC().Format("20060102T150405.000000"), hex.EncodeToString(nonce[:]))
}

// ForgetFact is one fact a forget selected; Text only in a dry run.
type ForgetFact struct {
	ID   string
	Text string
}

// ForgetResult is what a forget selected and did.
type ForgetResult struct {
	Bank   string
	DryRun bool
	Facts  []ForgetFact
	// Counts and Record (the audit record's id) are set when not a dry
	// run.
	Counts ForgetCounts
	Record string
}

// Fingerprint is how an audit record names words it must not keep: the
// SHA-256 of their normalised form (NormalizeName: case, spacing and
// punctuation folded), "sha256:" and its first 16 hex digits; "" for "".
// Whoever knows the words can match them; the fingerprint alone does not
// give them back.
func Fingerprint(words string) string {
	n := NormalizeName(words)
	if n == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(n))
	return "sha256:" + hex.EncodeToString(sum[:8])
}
