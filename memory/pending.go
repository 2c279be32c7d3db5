package memory

import (
	"context"
	"time"
)

// PendingFacts is the queue of facts the per-fact observation pass has
// not taken in yet (seed 000: a stored fact is "queued for consolidation
// (consolidated_at = NULL)"). A fact is pending while its ConsolidatedAt
// is zero: from the moment it is stored until the pass marks it, and
// again when forget puts an observation's remaining sources back in the
// queue. Both built-in stores implement it; detect it by type assertion,
// as [ObservationStore].
type PendingFacts interface {
	// PendingFacts returns up to limit active facts of a bank whose
	// ConsolidatedAt is zero and whose Seq is greater than afterSeq,
	// oldest (lowest Seq) first, with their embeddings loaded (nil for a
	// fact stored without one). A walk that passes the last Seq it got as
	// the next afterSeq visits every fact that was pending when it began
	// once, even one it leaves pending. A limit outside 1 to
	// [MaxPageSize] is EINVALID; an unknown bank ENOTFOUND.
	PendingFacts(ctx context.Context, bankID string, afterSeq int64, limit int) ([]*Fact, error)
	// MarkConsolidated sets ConsolidatedAt to at on every fact of ids that
	// is still pending, whatever its status, in one transaction, and
	// returns how many it marked. A fact already consolidated keeps its
	// time (marking twice changes nothing) and unknown ids are skipped. A
	// zero at is EINVALID; an unknown bank ENOTFOUND.
	MarkConsolidated(ctx context.Context, bankID string, ids []string, at time.Time) (int, error)
}

// ObservationVectors reads the stored embeddings of a bank's
// observations, for the observation merge (seed 000: "load all
// observations with embeddings"), which searches each one's neighbours.
// Both built-in stores implement it; detect it by type assertion.
type ObservationVectors interface {
	// ObservationVectors returns the embedding of every active
	// observation of a bank that has one, by id. An unknown bank is
	// ENOTFOUND.
	ObservationVectors(ctx context.Context, bankID string) (map[string][]float32, error)
}

// CheckPendingLimit checks the page size of [PendingFacts.PendingFacts]:
// EINVALID outside 1 to MaxPageSize.
func CheckPendingLimit(limit int) error {
	if limit < 1 || limit > MaxPageSize {
		return Errorf(EINVALID, "pending facts: limit %d: want 1 to %d", limit, MaxPageSize)
	}
	return nil
}

// CheckMarkTime checks the time of [PendingFacts.MarkConsolidated]:
// EINVALID when zero.
func CheckMarkTime(at time.Time) error {
	if at.IsZero() {
		return Errorf(EINVALID, "mark consolidated: no time")
	}
	return nil
}
