package mnemo

import (
	"context"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/memory"
)

// The observation passes (seed 000): the per-fact observation pass and
// the observation merge, each handed the engine's store and embedder and
// the run's metered LLM, clock and numbers. Consolidate runs them only
// with an LLM (consolidate.NeedsLLM).

func (e *Engine) runObservations(ctx context.Context, p passRun) (map[string]int, error) {
	st, ok := e.store.(consolidate.ObserveStore)
	if !ok {
		return nil, memory.Errorf(memory.EUNAVAILABLE, "the store keeps no observations or consolidation queue")
	}
	res, err := consolidate.Observe(ctx, st, e.emb, p.llm, p.bank, p.now, p.d.Observe)
	if res == nil {
		return nil, err
	}
	for _, ferr := range res.Errors {
		e.log.Warn("observation pass: a fact stays pending", "bank", p.bank, "err", ferr)
	}
	return res.Counts(), err
}

func (e *Engine) runObservationMerge(ctx context.Context, p passRun) (map[string]int, error) {
	st, ok := e.store.(consolidate.ObservationMergeStore)
	if !ok {
		return nil, memory.Errorf(memory.EUNAVAILABLE, "the store reads no observation vectors")
	}
	res, err := consolidate.MergeObservations(ctx, st, e.emb, p.llm, p.bank, p.now, p.d.ObservationMerge)
	if res == nil {
		return nil, err
	}
	for _, perr := range res.Errors {
		e.log.Warn("observation merge: a pair was not judged", "bank", p.bank, "err", perr)
	}
	return res.Counts(), err
}
