package memory

import "context"

// Promoter makes short-term facts long-term: the expire pass's promotion
// of the short-term memories worth keeping (seed 002, "archive expiring
// short-term" into long-term memory), part of [Store]. The other half of
// the pass, pruning the rest, is [Forgetter.Forget]: a pruned fact goes
// with every trace of it, as a forgotten one does.
type Promoter interface {
	// PromoteFacts clears the ExpiresAt of those facts of ids that have
	// one, in one transaction, and returns the ids it changed in the
	// order given (a repeated id once). Nothing else of a fact changes,
	// and no search sees a difference: recall searches both tiers. An id
	// that does not exist (pruned, forgotten or replaced meanwhile) or
	// names a long-term fact is skipped, so that a retried call is
	// harmless; no ids change nothing. An unknown bank is ENOTFOUND.
	PromoteFacts(ctx context.Context, bankID string, ids []string) ([]string, error)
}
