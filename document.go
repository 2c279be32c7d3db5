package mnemo

import (
	"context"

	"github.com/mnemo-ai/mnemo/memory"
)

// Document returns the document retained in bank for (source, item) — an
// item's latest version — with its chunks in order: the raw text its facts
// came from. An unknown bank or item is ENOTFOUND.
func (e *Engine) Document(ctx context.Context, bank, source, item string) (*memory.Document, []*memory.Chunk, error) {
	bank = defaultBank(bank)
	d, err := e.store.DocumentByItem(ctx, bank, source, item)
	if err != nil {
		return nil, nil, err
	}
	chunks, err := e.store.Chunks(ctx, bank, d.ID)
	if err != nil {
		return nil, nil, err
	}
	return d, chunks, nil
}
