package memory

import (
	"context"
	"time"
)

// ObservationLifecycle moves observations between active and archived
// (the archival pass takes old, unused observations out of recall;
// restore brings them back) and counts their accesses (recall's first
// phase), as [Lifecycle] and [AccessRecorder] do for facts. Both
// built-in stores have it; detect it by type assertion.
type ObservationLifecycle interface {
	// SetObservationStatus moves every observation of ids to status to,
	// in one transaction: all move or none does. The moves allowed are a
	// fact's ([CheckTransition]: active ⇄ archived); an observation
	// already in status to is left as it is, an id that does not exist
	// is ENOTFOUND, a target other than active or archived EINVALID, and
	// either leaves every observation unchanged. Only the status changes:
	// text, sources, history, counters and times stay. Searches see the
	// new status at once: an archived observation is never found. It
	// returns the ids that changed, in the order given. An unknown bank
	// is ENOTFOUND.
	SetObservationStatus(ctx context.Context, bankID string, ids []string, to Status) ([]string, error)
	// RecordObservationAccess adds one access to each observation of ids
	// and sets its last access to at; ids that do not exist are skipped.
	// An unknown bank is ENOTFOUND.
	RecordObservationAccess(ctx context.Context, bankID string, ids []string, at time.Time) error
}

// PlanObservationTransition checks a status change of observations (ids
// given, none empty, no repeats; then [CheckTransition] for each) given
// the current status of those that exist, and returns the ids that
// change, in the order given. An id absent from current is ENOTFOUND.
// Stores call it inside the transaction that applies the change.
func PlanObservationTransition(ids []string, current map[string]Status, to Status) ([]string, error) {
	if err := SettableStatus(to); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, Errorf(EINVALID, "no observation ids given")
	}
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if id == "" {
			return nil, Errorf(EINVALID, "an empty observation id")
		}
		if seen[id] {
			return nil, Errorf(EINVALID, "observation %s given twice", id)
		}
		seen[id] = true
	}
	var out []string
	for _, id := range ids {
		from, ok := current[id]
		if !ok {
			return nil, Errorf(ENOTFOUND, "no observation %s", id)
		}
		if from == "" {
			from = StatusActive
		}
		switch {
		case from == to:
		case from == StatusActive && to == StatusArchived, from == StatusArchived && to == StatusActive:
			out = append(out, id)
		default:
			return nil, Errorf(ECONFLICT, "observation %s is %s and cannot become %s", id, from, to)
		}
	}
	return out, nil
}
