package mnemo

import (
	"context"

	"github.com/mnemo-ai/mnemo/consolidate"
)

// runGroup is the group consolidation pass ([consolidate.GroupFacts]):
// groups of similar facts become one summary fact written by the LLM,
// the members superseded by it and linked to it. It only runs with an
// LLM (consolidate.NeedsLLM). Its seeds are the facts created since the
// start of its last ok run, or every active fact when there is none.
func (e *Engine) runGroup(ctx context.Context, p passRun) (map[string]int, error) {
	since, err := e.lastOK(ctx, p.bank, PassGroup)
	if err != nil {
		return nil, err
	}
	res, err := consolidate.GroupFacts(ctx, e.store, p.bank, consolidate.GroupOptions{
		LLM: p.llm, Embedder: e.emb, Since: since, Defaults: p.d.Group, Now: e.now,
	})
	if res == nil {
		return nil, err
	}
	return res.Counts(), err
}
