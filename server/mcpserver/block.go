package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BlockReadInput are the arguments of the block_read tool.
type BlockReadInput struct {
	Name string `json:"name,omitempty" jsonschema:"the block to read, e.g. 'user_profile' or 'working_context'; omit to list every block with how full it is"`
	Bank string `json:"bank,omitempty" jsonschema:"memory bank; omit to use the server's default bank"`
}

// BlockWriteInput are the arguments of the block_write tool.
type BlockWriteInput struct {
	Name string `json:"name" jsonschema:"the block to write: persona, user_profile, working_context, operational_findings, contacts_summary, or a custom name of lower-case letters, digits and '_'"`
	Text string `json:"text" jsonschema:"the new text: the whole block (mode write), a line to add (mode append), or what replaces old (mode replace)"`
	Mode string `json:"mode,omitempty" jsonschema:"write (replace the whole block; the default), append (add text on a new line) or replace (replace the text old, which must occur exactly once)"`
	Old  string `json:"old,omitempty" jsonschema:"with mode replace: the exact text to replace; it must occur exactly once in the block"`
	Bank string `json:"bank,omitempty" jsonschema:"memory bank; omit to use the server's default bank"`
}

// blockReadDescription is the block_read tool's description.
const blockReadDescription = `Read the agent's memory blocks: small named texts kept verbatim and always current, unlike facts, which are recalled by search.

The default blocks are persona (who the agent is), user_profile (who the user is), working_context (the task at hand), operational_findings (what works and what failed) and contacts_summary (the people the user deals with). Without a name, lists every block with its size and limit; with a name, returns that block's text.`

// blockWriteDescription is the block_write tool's description.
const blockWriteDescription = `Change one of the agent's memory blocks (see block_read): replace it whole, append a line, or replace one passage.

Keep blocks short and current: each has a character limit (2,000 by default), and a write past it is refused and changes nothing — condense the block instead. Prefer mode replace or append over rewriting a whole block you have not read.`

// addBlocks registers block_read and block_write.
func (s *Server) addBlocks() {
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        "block_read",
		Title:       "Read memory blocks",
		Description: blockReadDescription,
		Annotations: &mcp.ToolAnnotations{Title: "Read memory blocks", ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in BlockReadInput) (*mcp.CallToolResult, *wire.BlockList, error) {
		out, text, err := s.blockRead(ctx, req, in)
		if err != nil {
			return nil, nil, s.toolError("block_read", err)
		}
		return textResult(text), out, nil
	})
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        "block_write",
		Title:       "Write a memory block",
		Description: blockWriteDescription,
		Annotations: &mcp.ToolAnnotations{Title: "Write a memory block", DestructiveHint: new(true), OpenWorldHint: new(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in BlockWriteInput) (*mcp.CallToolResult, *wire.Block, error) {
		out, err := s.blockWrite(ctx, req, in)
		if err != nil {
			return nil, nil, s.toolError("block_write", err)
		}
		return textResult(fmt.Sprintf("Block %s of bank %q now holds %d of %d characters.", out.Name, out.Bank, out.Chars, out.MaxChars)), out, nil
	})
}

// blockRead reads one block (a list of one) or lists them all, with the
// text the model reads: a block's value, or one line per block.
func (s *Server) blockRead(ctx context.Context, req *mcp.CallToolRequest, in BlockReadInput) (*wire.BlockList, string, error) {
	bank, err := s.bank(ctx, req, in.Bank)
	if err != nil {
		return nil, "", err
	}
	if in.Name != "" {
		b, err := s.eng.Block(ctx, bank, in.Name)
		if err != nil {
			return nil, "", err
		}
		out := wire.NewBlockList([]*memory.Block{b})
		if b.Value == "" {
			return &out, fmt.Sprintf("Block %s is empty (limit %d characters).", b.Name, b.MaxChars), nil
		}
		return &out, b.Value, nil
	}
	bs, err := s.eng.Blocks(ctx, bank)
	if err != nil {
		return nil, "", err
	}
	out := wire.NewBlockList(bs)
	var text strings.Builder
	for _, b := range out.Blocks {
		fmt.Fprintf(&text, "%s (%d/%d characters): %s\n", b.Name, b.Chars, b.MaxChars, b.Label)
	}
	return &out, text.String(), nil
}

// blockWrite applies one write, append or replace; a read-only key may
// not.
func (s *Server) blockWrite(ctx context.Context, req *mcp.CallToolRequest, in BlockWriteInput) (*wire.Block, error) {
	bank, err := s.bank(ctx, req, in.Bank)
	if err != nil {
		return nil, err
	}
	if !s.opts.CanWrite(ctx, req) {
		return nil, memory.Errorf(memory.EFORBIDDEN, "this key may only read: block_write needs a key with write scope")
	}
	mode := memory.BlockMode(in.Mode)
	switch mode {
	case "":
		mode = memory.BlockWrite
	case memory.BlockWrite, memory.BlockAppend, memory.BlockReplace:
	default:
		return nil, memory.Errorf(memory.EINVALID, "mode %q: use write, append or replace", in.Mode)
	}
	b, err := s.eng.WriteBlock(ctx, bank, in.Name, in.Text, mnemo.BlockOptions{Mode: mode, Old: in.Old})
	if err != nil {
		return nil, err
	}
	out := wire.NewBlock(b)
	return &out, nil
}
