package httpapi

import (
	"context"
	"net/http"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
)

type blockInput struct {
	Bank string `path:"bank" doc:"bank name"`
	Name string `path:"name" doc:"block name (persona, user_profile, working_context, … or a custom one)"`
}

type writeBlockInput struct {
	Bank string `path:"bank" doc:"bank name"`
	Name string `path:"name" doc:"block name"`
	Body wire.WriteBlock
}

type appendBlockInput struct {
	Bank string `path:"bank" doc:"bank name"`
	Name string `path:"name" doc:"block name"`
	Body wire.AppendBlock
}

type replaceBlockInput struct {
	Bank string `path:"bank" doc:"bank name"`
	Name string `path:"name" doc:"block name"`
	Body wire.ReplaceBlock
}

type blockListOutput struct{ Body wire.BlockList }

type blockOutput struct{ Body wire.Block }

// registerBlocks adds memory blocks: list, read, write, append, replace
// and delete. A change past a block's limit is 400 and changes nothing.
func (s *Server) registerBlocks() {
	register(s, op(http.MethodGet, "/v1/banks/{bank}/blocks", "listBlocks", "List a bank's memory blocks", ScopeRead, "blocks"),
		func(ctx context.Context, in *bankPath) (*blockListOutput, error) {
			bs, err := s.eng.Blocks(ctx, in.Bank)
			if err != nil {
				return nil, s.fail(err)
			}
			return &blockListOutput{Body: wire.NewBlockList(bs)}, nil
		})
	register(s, op(http.MethodGet, "/v1/banks/{bank}/blocks/{name}", "readBlock", "Read a memory block", ScopeRead, "blocks"),
		func(ctx context.Context, in *blockInput) (*blockOutput, error) {
			return s.blockResult(s.eng.Block(ctx, in.Bank, in.Name))
		})
	register(s, op(http.MethodPut, "/v1/banks/{bank}/blocks/{name}", "writeBlock", "Replace a memory block's value (creating it)", ScopeWrite, "blocks"),
		func(ctx context.Context, in *writeBlockInput) (*blockOutput, error) {
			opts := mnemo.BlockOptions{Mode: memory.BlockWrite, MaxChars: in.Body.MaxChars, Label: in.Body.Label}
			return s.blockResult(s.eng.WriteBlock(ctx, in.Bank, in.Name, in.Body.Value, opts))
		})
	register(s, op(http.MethodPost, "/v1/banks/{bank}/blocks/{name}/append", "appendBlock", "Append text to a memory block", ScopeWrite, "blocks"),
		func(ctx context.Context, in *appendBlockInput) (*blockOutput, error) {
			return s.blockResult(s.eng.WriteBlock(ctx, in.Bank, in.Name, in.Body.Text, mnemo.BlockOptions{Mode: memory.BlockAppend}))
		})
	register(s, op(http.MethodPost, "/v1/banks/{bank}/blocks/{name}/replace", "replaceBlock", "Replace the one occurrence of old in a memory block by new", ScopeWrite, "blocks"),
		func(ctx context.Context, in *replaceBlockInput) (*blockOutput, error) {
			opts := mnemo.BlockOptions{Mode: memory.BlockReplace, Old: in.Body.Old}
			return s.blockResult(s.eng.WriteBlock(ctx, in.Bank, in.Name, in.Body.New, opts))
		})
	register(s, op(http.MethodDelete, "/v1/banks/{bank}/blocks/{name}", "deleteBlock", "Delete a custom memory block (a default one is emptied)", ScopeWrite, "blocks"),
		func(ctx context.Context, in *blockInput) (*deletedOutput, error) {
			if err := s.eng.DeleteBlock(ctx, in.Bank, in.Name); err != nil {
				return nil, s.fail(err)
			}
			return &deletedOutput{Body: wire.Deleted{Deleted: in.Name}}, nil
		})
}

// blockResult is the answer of a block call.
func (s *Server) blockResult(b *memory.Block, err error) (*blockOutput, error) {
	if err != nil {
		return nil, s.fail(err)
	}
	return &blockOutput{Body: wire.NewBlock(b)}, nil
}
