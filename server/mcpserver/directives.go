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

// DirectiveAddInput are the arguments of the directive_add tool.
type DirectiveAddInput struct {
	Text   string   `json:"text" jsonschema:"the rule, as the user gave it: one sentence or a few"`
	Scopes []string `json:"scopes,omitempty" jsonschema:"where it applies (a project name, a task type); omit for everywhere"`
	Bank   string   `json:"bank,omitempty" jsonschema:"memory bank; omit to use the server's default bank"`
}

// DirectiveListInput are the arguments of the directive_list tool.
type DirectiveListInput struct {
	Scopes []string `json:"scopes,omitempty" jsonschema:"list only the directives that apply to these scopes; omit for all"`
	Bank   string   `json:"bank,omitempty" jsonschema:"memory bank; omit to use the server's default bank"`
}

// DirectiveEditInput are the arguments of the directive_edit tool.
type DirectiveEditInput struct {
	ID         string   `json:"id" jsonschema:"the directive's id (dir_…), from directive_list"`
	Text       string   `json:"text,omitempty" jsonschema:"the new text; omit to keep it"`
	Scopes     []string `json:"scopes,omitempty" jsonschema:"the new scopes; omit to keep them"`
	Everywhere bool     `json:"everywhere,omitempty" jsonschema:"true to remove the scopes: the directive then applies everywhere"`
	Bank       string   `json:"bank,omitempty" jsonschema:"memory bank; omit to use the server's default bank"`
}

// DirectiveRemoveInput are the arguments of the directive_remove tool.
type DirectiveRemoveInput struct {
	ID   string `json:"id" jsonschema:"the directive's id (dir_…)"`
	Bank string `json:"bank,omitempty" jsonschema:"memory bank; omit to use the server's default bank"`
}

const directiveAddDescription = `Store a directive: a rule the user wants followed from now on ("never push to main on Fridays", "answer in British English"). Directives are shown at the start of every session they apply to and are never forgotten or merged away; use them for standing instructions, not for facts (use retain for those). Give scopes to limit a rule to a project or a kind of task.`

// addDirectives registers directive_add, directive_list, directive_edit
// and directive_remove.
func (s *Server) addDirectives() {
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "directive_add", Title: "Add a directive", Description: directiveAddDescription,
		Annotations: &mcp.ToolAnnotations{Title: "Add a directive", OpenWorldHint: new(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in DirectiveAddInput) (*mcp.CallToolResult, *wire.Directive, error) {
		bank, err := s.writeBank(ctx, req, in.Bank, "directive_add")
		if err != nil {
			return nil, nil, s.toolError("directive_add", err)
		}
		d, err := s.eng.AddDirective(ctx, bank, in.Text, in.Scopes)
		if err != nil {
			return nil, nil, s.toolError("directive_add", err)
		}
		out := wire.NewDirective(d)
		return textResult(fmt.Sprintf("Directive %s stored in bank %q (%s).", d.ID, bank, scopesText(d.Scopes))), &out, nil
	})
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "directive_list", Title: "List directives",
		Description: "List the directives (must-follow rules) of a bank, oldest first; with scopes, only those that apply there.",
		Annotations: &mcp.ToolAnnotations{Title: "List directives", ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in DirectiveListInput) (*mcp.CallToolResult, *wire.DirectiveList, error) {
		bank, err := s.bank(ctx, req, in.Bank)
		if err != nil {
			return nil, nil, s.toolError("directive_list", err)
		}
		var ds []*memory.Directive
		if len(in.Scopes) > 0 {
			ds, err = s.eng.DirectivesFor(ctx, bank, in.Scopes)
		} else {
			ds, err = s.eng.Directives(ctx, bank)
		}
		if err != nil {
			return nil, nil, s.toolError("directive_list", err)
		}
		var b strings.Builder
		for _, d := range ds {
			fmt.Fprintf(&b, "%s (%s): %s\n", d.ID, scopesText(d.Scopes), d.Text)
		}
		if len(ds) == 0 {
			b.WriteString("No directives.")
		}
		out := wire.NewDirectiveList(ds)
		return textResult(strings.TrimSuffix(b.String(), "\n")), &out, nil
	})
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "directive_edit", Title: "Edit a directive",
		Description: "Change a directive's text or scopes (everywhere=true makes it apply everywhere).",
		Annotations: &mcp.ToolAnnotations{Title: "Edit a directive", DestructiveHint: new(true), OpenWorldHint: new(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in DirectiveEditInput) (*mcp.CallToolResult, *wire.Directive, error) {
		bank, err := s.writeBank(ctx, req, in.Bank, "directive_edit")
		if err != nil {
			return nil, nil, s.toolError("directive_edit", err)
		}
		var edit mnemo.DirectiveEdit
		if in.Text != "" {
			edit.Text = &in.Text
		}
		switch {
		case in.Everywhere && len(in.Scopes) > 0:
			return nil, nil, s.toolError("directive_edit", memory.Errorf(memory.EINVALID, "give scopes or everywhere, not both"))
		case in.Everywhere:
			edit.Scopes = &[]string{}
		case len(in.Scopes) > 0:
			edit.Scopes = &in.Scopes
		}
		if edit.Text == nil && edit.Scopes == nil {
			return nil, nil, s.toolError("directive_edit", memory.Errorf(memory.EINVALID, "nothing to change: give text, scopes or everywhere"))
		}
		d, err := s.eng.EditDirective(ctx, bank, in.ID, edit)
		if err != nil {
			return nil, nil, s.toolError("directive_edit", err)
		}
		out := wire.NewDirective(d)
		return textResult(fmt.Sprintf("Directive %s now reads: %s (%s).", d.ID, d.Text, scopesText(d.Scopes))), &out, nil
	})
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "directive_remove", Title: "Remove a directive",
		Description: "Remove a directive the user no longer wants followed.",
		Annotations: &mcp.ToolAnnotations{Title: "Remove a directive", DestructiveHint: new(true), OpenWorldHint: new(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in DirectiveRemoveInput) (*mcp.CallToolResult, *wire.Deleted, error) {
		bank, err := s.writeBank(ctx, req, in.Bank, "directive_remove")
		if err != nil {
			return nil, nil, s.toolError("directive_remove", err)
		}
		if err := s.eng.DeleteDirective(ctx, bank, in.ID); err != nil {
			return nil, nil, s.toolError("directive_remove", err)
		}
		return textResult("Directive " + in.ID + " removed."), &wire.Deleted{Deleted: in.ID}, nil
	})
}

// writeBank is the bank of a call that writes, or EFORBIDDEN for a key
// that may only read.
func (s *Server) writeBank(ctx context.Context, req *mcp.CallToolRequest, arg, tool string) (string, error) {
	bank, err := s.bank(ctx, req, arg)
	if err != nil {
		return "", err
	}
	if !s.opts.CanWrite(ctx, req) {
		return "", memory.Errorf(memory.EFORBIDDEN, "this key may only read: %s needs a key with write scope", tool)
	}
	return bank, nil
}

// scopesText says where a directive applies.
func scopesText(scopes []string) string {
	if len(scopes) == 0 {
		return "everywhere"
	}
	return "scopes " + strings.Join(scopes, ", ")
}
