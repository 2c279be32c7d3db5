package mnemo

import (
	"context"

	"github.com/mnemo-ai/mnemo/consolidate"
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
