package recall

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// history attaches to each result the facts it superseded, so a current
// fact shows what it replaced ("previously: …"). As of a past time, only
// the facts already replaced then are shown.
func (p *Pipeline) history(ctx context.Context, bank string, asOf time.Time, results []memory.Result) error {
	if len(results) == 0 {
		return nil
	}
	ids := make([]string, len(results))
	at := make(map[string]int, len(results))
	for i, r := range results {
		ids[i] = r.Fact.ID
		at[r.Fact.ID] = i
	}
	old, err := p.Store.SupersededBy(ctx, bank, ids)
	if err != nil {
		return fmt.Errorf("load history: %w", err)
	}
	for _, f := range old {
		if !asOf.IsZero() && (f.ExpiredAt.IsZero() || f.ExpiredAt.After(asOf)) {
			continue // not yet replaced at the as-of time
		}
		if i, ok := at[f.SupersededBy]; ok {
			if r := results[i].Fact; f.ValidTo.IsZero() || memory.DuplicateKey(f.Speaker, f.Text) == memory.DuplicateKey(r.Speaker, r.Text) {
				// A fact consolidation folded into this one (a merged
				// duplicate, a group's member) is still true — only a
				// newer fact closes valid_to — so it is the same fact or
				// a part of it, not its history.
				continue
			}
			results[i].Previously = append(results[i].Previously, f)
		}
	}
	return nil
}
