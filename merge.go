package mnemo

import (
	"context"
	"maps"
	"time"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/memory"
)

// MergeDuplicates runs the offline fact merge on a bank
// ([consolidate.MergeDuplicates]): active facts with the same speaker and
// the same text up to case, spacing and end punctuation are folded into
// one keeper, the others superseded by it. It is idempotent and needs no
// LLM. An unknown bank is ENOTFOUND.
func (e *Engine) MergeDuplicates(ctx context.Context, bank string) (*consolidate.MergeResult, error) {
	bank = defaultBank(bank)
	if _, err := e.store.Bank(ctx, bank); err != nil {
		return nil, err
	}
	return consolidate.MergeDuplicates(ctx, e.store, bank, consolidate.MergeOptions{Now: e.now})
}

// runMerge is the fact merge pass: the exact duplicates of the whole
// bank ([consolidate.MergeDuplicates]: scanned, groups, merged), then
// the near-exact ones and, with an LLM, the similar pairs it judges
// ([consolidate.MergeSimilar]: searched, near_exact, candidates,
// remembered, asked, llm_merged, different, failed). The similarity walk
// is incremental: it takes the facts created since the start of the
// pass's last ok run (their neighbours may be older), or every active
// fact when there is none.
func (e *Engine) runMerge(ctx context.Context, p passRun) (map[string]int, error) {
	exact, err := consolidate.MergeDuplicates(ctx, e.store, p.bank, consolidate.MergeOptions{Now: e.now})
	counts := map[string]int{}
	if exact != nil {
		counts = exact.Counts()
	}
	if err != nil {
		return counts, err
	}
	since, err := e.lastOK(ctx, p.bank, PassMerge)
	if err != nil {
		return counts, err
	}
	res, err := consolidate.MergeSimilar(ctx, e.store, p.bank, consolidate.SimilarOptions{
		LLM: p.llm, Since: since, Defaults: p.d.Merge, Now: e.now,
	})
	if res != nil {
		maps.Copy(counts, res.Counts())
	}
	return counts, err
}

// lastRunsRead bounds how many of a bank's newest runs lastOK reads to
// find a pass's last good one; when none is among them the pass walks
// the whole bank, which is always correct, only slower.
const lastRunsRead = 500

// lastOK returns when the last ok run of pass over bank started, or the
// zero time.
func (e *Engine) lastOK(ctx context.Context, bank, pass string) (time.Time, error) {
	runs, err := e.store.Runs(ctx, bank, lastRunsRead)
	if err != nil {
		return time.Time{}, err
	}
	for _, r := range runs {
		if r.Pass == pass && r.Status == memory.RunOK {
			return r.StartedAt, nil
		}
	}
	return time.Time{}, nil
}
