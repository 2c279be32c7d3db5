package mnemo

import (
	"context"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/memory"
)

// runDreams is the dream pass (consolidate.Dreams) over the engine's
// store, with the run's metered LLM, the engine's embedder (for the
// insights, compared with the latest dreams) and the run's clock, which
// also seeds its random draws. The facts' vectors are read from the
// store, not embedded again: the bank already paid for them.
func (e *Engine) runDreams(ctx context.Context, p passRun) (map[string]int, error) {
	st, ok := e.store.(consolidate.DreamStore)
	if !ok {
		return nil, memory.Errorf(memory.EUNAVAILABLE, "the store keeps no dreams")
	}
	res, err := consolidate.Dreams(ctx, st, p.llm, e.emb, p.bank, p.now, p.d.Dream)
	if res == nil {
		return nil, err
	}
	return res.Counts(), err
}

// Dreams lists bank's dreams (the dream pass's cross-domain insights),
// newest first, at most limit (0: all). Dreams never enter recall; this
// is where they are read. An unknown bank is ENOTFOUND, a negative limit
// EINVALID; a store that keeps no dreams (memory.Dreams) is
// EUNAVAILABLE.
func (e *Engine) Dreams(ctx context.Context, bank string, limit int) ([]*memory.Dream, error) {
	bank = defaultBank(bank)
	d, ok := e.store.(memory.Dreams)
	if !ok {
		return nil, memory.Errorf(memory.EUNAVAILABLE, "the store keeps no dreams")
	}
	return d.ListDreams(ctx, bank, limit)
}
