package mnemo

import (
	"context"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/memory"
)

// runTemporal runs the temporal pass (consolidate.Temporal) over the
// engine's store, observations and embedder with the run's LLM. A store
// that keeps no observations (memory.ObservationStore) is EUNAVAILABLE.
func (e *Engine) runTemporal(ctx context.Context, p passRun) (map[string]int, error) {
	st, ok := e.store.(temporalStore)
	if !ok {
		return nil, memory.Errorf(memory.EUNAVAILABLE, "the store keeps no observations")
	}
	res, err := consolidate.Temporal(ctx, st, e.emb, p.llm, p.bank, p.now, p.d.Temporal)
	if res == nil {
		return nil, err
	}
	return res.Counts(), err
}

// temporalStore is a store with observations: what the temporal pass
// needs.
type temporalStore interface {
	memory.Store
	memory.ObservationStore
}

var _ consolidate.TemporalStore = temporalStore(nil)
