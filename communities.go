package mnemo

import (
	"context"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/memory"
)

// runCommunities is the communities pass (consolidate.DetectCommunities)
// over the engine's store, with the run's metered LLM (nil: communities
// are found and named, not summarised) and clock, under the pass's
// defaults (consolidate.NewCommunityDefaults) and the bank's tier
// numbers.
func (e *Engine) runCommunities(ctx context.Context, p passRun) (map[string]int, error) {
	res, err := consolidate.DetectCommunities(ctx, e.store, p.llm, p.bank, p.now, p.d, consolidate.NewCommunityDefaults())
	if res == nil {
		return nil, err
	}
	return res.Counts(), err
}

// Communities lists bank's entity communities as the last communities
// pass left them (Engine.Consolidate with PassCommunities, or a full
// run): the most members first, then by id, each with its members
// heaviest first, its representatives and, when an LLM was configured,
// its name and summary. A bank whose pass never ran has none (an empty
// slice). An unknown bank is ENOTFOUND.
func (e *Engine) Communities(ctx context.Context, bank string) ([]memory.Community, error) {
	cs, err := e.store.ListCommunities(ctx, defaultBank(bank))
	if err != nil {
		return nil, err
	}
	out := make([]memory.Community, len(cs))
	for i, c := range cs {
		out[i] = *c
	}
	return out, nil
}
