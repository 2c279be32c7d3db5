package mnemo

import (
	"context"
	"time"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/memory"
)

// Short-term memory (seed 002): a retain with RetainRequest.ShortTerm
// stamps its facts with ExpiresAt = now + the bank's TTL
// (BankSettings.ShortTermTTL, else consolidate.ShortTermDefaults.TTL,
// 48 h); recall searches both tiers, tags each result with its tier and
// leaves out the expired facts the expire pass will prune; the expire
// pass (PassExpire) promotes the expired facts that were recalled or are
// important and prunes the rest. docs/consolidation.md tells the whole
// story.

// shortTermTTL is the TTL of a short-term retain into bank: the bank's
// BankSettings.ShortTermTTL when set, else the seeds' default. An
// unknown bank is ENOTFOUND. The retain pipeline calls it
// (retain.Pipeline.ShortTermTTL), so that every way in — Retain,
// RetainMany, an async job, an import — resolves it alike, when the
// retain runs.
func (e *Engine) shortTermTTL(ctx context.Context, bank string) (time.Duration, error) {
	d, _, err := e.bankConsolidation(ctx, bank)
	if err != nil {
		return 0, err
	}
	return d.ShortTerm.TTL, nil
}

// lapsed reports whether f is a short-term fact that the expire pass
// will prune at now (consolidate.Lapsed): recall no longer shows it
// (recall.Pipeline.Lapsed), nor does About.
func lapsed(f *memory.Fact, now time.Time) bool {
	return f.ShortTerm() && consolidate.Lapsed(f, now, shortTermDefaults)
}

// shortTermDefaults are the seeds' numbers of short-term memory, which
// recall's lapse rule reads for every fact it loads.
var shortTermDefaults = consolidate.NewDefaults().ShortTerm

// runExpire runs the expire pass over the run's bank.
func (e *Engine) runExpire(ctx context.Context, p passRun) (map[string]int, error) {
	res, err := consolidate.Expire(ctx, e.store, p.bank, p.now, p.d)
	if res == nil {
		return nil, err
	}
	return res.Counts(), err
}
