package mnemo

import (
	"context"
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

// BlockOptions are the options of Engine.WriteBlock. The zero value
// replaces the whole block and keeps its label and limit.
type BlockOptions struct {
	// Mode is memory.BlockWrite (the default when empty: the value
	// replaces the block), memory.BlockAppend or memory.BlockReplace.
	Mode memory.BlockMode
	// Old is the text memory.BlockReplace replaces; it must occur
	// exactly once in the block.
	Old string
	// MaxChars, when positive, sets the block's limit first (at most
	// memory.MaxBlockChars); the value must fit the new limit.
	MaxChars int
	// Label, when not empty, sets what the block is for.
	Label string
}

// Block reads one memory block of a bank (the default bank when bank is
// empty) and counts the read. The default blocks (memory.DefaultBlocks)
// exist in every bank: one never written reads as empty, and its first
// read stores it. A name that is not a valid block name is EINVALID; a
// custom block that was never written, or an unknown bank, is ENOTFOUND.
func (e *Engine) Block(ctx context.Context, bank, name string) (*memory.Block, error) {
	bank = defaultBank(bank)
	if err := memory.ValidateBlockName(name); err != nil {
		return nil, err
	}
	if err := e.requireBank(ctx, bank); err != nil {
		return nil, err
	}
	b, err := e.store.ReadBlock(ctx, bank, name, e.now())
	if memory.ErrorCode(err) != memory.ENOTFOUND || memory.DefaultBlock(bank, name) == nil {
		return b, err
	}
	// A default block read for the first time: store it empty (an edit
	// with nothing to change, so a concurrent first write is kept).
	if _, err := e.store.EditBlock(ctx, bank, name, memory.BlockEdit{At: e.now()}); err != nil {
		return nil, err
	}
	return e.store.ReadBlock(ctx, bank, name, e.now())
}

// Blocks lists the memory blocks of a bank (the default bank when bank
// is empty) without counting reads: the default blocks first, in the
// order of memory.DefaultBlocks (empty if never written), then the
// custom blocks by name. An unknown bank is ENOTFOUND.
func (e *Engine) Blocks(ctx context.Context, bank string) ([]*memory.Block, error) {
	bank = defaultBank(bank)
	if bank == memory.DefaultBank {
		if err := e.ensureDefaultBank(ctx); err != nil {
			return nil, err
		}
	}
	stored, err := e.store.Blocks(ctx, bank)
	if err != nil {
		return nil, err
	}
	out := make([]*memory.Block, 0, len(memory.DefaultBlocks)+len(stored))
	for _, d := range memory.DefaultBlocks {
		i := slices.IndexFunc(stored, func(b *memory.Block) bool { return b.Name == d.Name })
		if i >= 0 {
			out = append(out, stored[i])
		} else {
			out = append(out, memory.DefaultBlock(bank, d.Name))
		}
	}
	for _, b := range stored {
		if memory.DefaultBlock(bank, b.Name) == nil {
			out = append(out, b)
		}
	}
	return out, nil
}

// WriteBlock changes a memory block of a bank (the default bank when bank
// is empty; it is created on first use) with value as opts say — replace
// it whole, append to it, or replace one occurrence of opts.Old — and
// returns the block as stored. A block that does not exist is created:
// a default block with its label and limit, another with
// memory.DefaultBlockMaxChars unless opts.MaxChars is set. The change is
// atomic: concurrent writes to one block all land, one after the other.
//
// A change that would take the block past its limit is EINVALID and
// changes nothing, as are an invalid name, mode, limit or text, and a
// replace whose opts.Old does not occur exactly once (see
// memory.ApplyBlockEdit). An unknown bank is ENOTFOUND.
func (e *Engine) WriteBlock(ctx context.Context, bank, name, value string, opts BlockOptions) (*memory.Block, error) {
	bank = defaultBank(bank)
	if err := memory.ValidateBlockName(name); err != nil {
		return nil, err
	}
	if err := e.requireBank(ctx, bank); err != nil {
		return nil, err
	}
	mode := opts.Mode
	if mode == "" {
		mode = memory.BlockWrite
	}
	return e.store.EditBlock(ctx, bank, name, memory.BlockEdit{Mode: mode, Value: value, Old: opts.Old, MaxChars: opts.MaxChars, Label: opts.Label, At: e.now()})
}

// DeleteBlock removes a memory block of a bank (the default bank when
// bank is empty). A default block cannot go away: deleting it empties it
// and gives back its default label and limit (a default block never
// written is left as it is). A custom block that does not exist, or an
// unknown bank, is ENOTFOUND.
func (e *Engine) DeleteBlock(ctx context.Context, bank, name string) error {
	bank = defaultBank(bank)
	if err := memory.ValidateBlockName(name); err != nil {
		return err
	}
	err := e.store.DeleteBlock(ctx, bank, name)
	if memory.ErrorCode(err) == memory.ENOTFOUND && memory.DefaultBlock(bank, name) != nil {
		// Not stored: already in its default state, if the bank exists.
		_, err = e.store.Blocks(ctx, bank)
	}
	return err
}
