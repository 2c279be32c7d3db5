package mnemo

import (
	"context"

	"github.com/mnemo-ai/mnemo/memory"
)

// Observations lists bank's observations (the patterns consolidation
// synthesises from facts), every status, newest first, at most limit (0:
// all), embeddings not loaded. An unknown bank is ENOTFOUND, a negative
// limit EINVALID; a store that cannot list observations
// (memory.ObservationLister) is EUNAVAILABLE.
func (e *Engine) Observations(ctx context.Context, bank string, limit int) ([]*memory.Observation, error) {
	bank = defaultBank(bank)
	l, ok := e.store.(memory.ObservationLister)
	if !ok {
		return nil, memory.Errorf(memory.EUNAVAILABLE, "the store cannot list observations")
	}
	return l.ListObservations(ctx, bank, limit)
}
