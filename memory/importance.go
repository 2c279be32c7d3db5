package memory

import (
	"context"
	"math"
	"time"
)

// ImportanceScores keeps the importance a model gave facts (seed 002's
// importance_score, "LLM-judged"; DESIGN §6, lifecycle "importance
// scoring (LLM when available)"): which active facts no model has scored
// yet, and the scores. Part of [Store].
//
// Whether a fact was scored is the store's own mark, beside the fact's
// row, not a field of [Fact]: it serves the scoring pass alone, dies
// with the fact (forget needs nothing more) and is not exported, so an
// imported bank is scored again once. A fact written again (its document
// replaced) is a new fact and is scored again.
type ImportanceScores interface {
	// UnscoredFacts returns up to limit active facts of a bank that
	// SetImportance never scored, oldest (lowest Seq) first, embeddings
	// not loaded; the cost is an index walk of the unscored facts only.
	// A bad limit (1 to MaxPageSize, 0 for DefaultPageSize) is
	// EINVALID; an unknown bank ENOTFOUND.
	UnscoredFacts(ctx context.Context, bankID string, limit int) ([]*Fact, error)
	// SetImportance sets the importance of each fact of scores and marks
	// it scored at at, in one transaction; ids that do not exist are
	// skipped, and nothing else about a fact changes (its decay score is
	// the lifecycle pass's). A score outside 0..1 (or NaN) or an empty
	// id is EINVALID and nothing changes; an unknown bank ENOTFOUND.
	SetImportance(ctx context.Context, bankID string, scores map[string]float64, at time.Time) error
}

// CheckImportance checks the scores of [ImportanceScores.SetImportance].
func CheckImportance(scores map[string]float64) error {
	for id, s := range scores {
		if id == "" {
			return Errorf(EINVALID, "importance: an empty fact id")
		}
		if math.IsNaN(s) || s < 0 || s > 1 {
			return Errorf(EINVALID, "importance of %s: %v is not within 0..1", id, s)
		}
	}
	return nil
}
