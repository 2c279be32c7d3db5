package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxForgetListed is how many selected facts a forget result lists; the
// counts cover them all.
const MaxForgetListed = 50

// ForgetInput are the arguments of the forget tool.
type ForgetInput struct {
	IDs      []string `json:"ids,omitempty" jsonschema:"ids of facts to forget, as recall returned them"`
	Query    string   `json:"query,omitempty" jsonschema:"forget the facts a recall of this query returns (at most limit); always a dry run unless confirm is true"`
	Limit    int      `json:"limit,omitempty" jsonschema:"with query: how many facts it selects, 1-50; default 10"`
	Entity   string   `json:"entity,omitempty" jsonschema:"forget every fact that mentions this person, place or thing (name or alias)"`
	Document string   `json:"document,omitempty" jsonschema:"forget every fact of this document id"`
	From     string   `json:"from,omitempty" jsonschema:"forget facts whose event time is at or after this (RFC 3339 or YYYY-MM-DD)"`
	To       string   `json:"to,omitempty" jsonschema:"forget facts whose event time is before this (RFC 3339 or YYYY-MM-DD)"`
	DryRun   bool     `json:"dry_run,omitempty" jsonschema:"only list what would be forgotten, with the texts; change nothing"`
	Confirm  bool     `json:"confirm,omitempty" jsonschema:"required to forget by query, entity, document or time: set true after checking the dry run's list with the user"`
	Bank     string   `json:"bank,omitempty" jsonschema:"memory bank; omit to use the server's default bank"`
}

// forgetDescription is the forget tool's description.
const forgetDescription = `Forget memories for good: the facts and every trace of them (search indexes, links, entity mentions, relations they supported). It cannot be undone.

Use it when the user asks to forget something, or a memory is wrong and must go. Select by ids (from recall), or by query, entity, document or time range; selectors given together must all match. Anything but ids is a dry run unless confirm=true: first call without confirm, show the user what would go, then call again with confirm=true. An audit record says that a forget happened, never what was forgotten.`

// addForget registers the forget tool.
func (s *Server) addForget() {
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        "forget",
		Title:       "Forget",
		Description: forgetDescription,
		Annotations: &mcp.ToolAnnotations{Title: "Forget", DestructiveHint: new(true), OpenWorldHint: new(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in ForgetInput) (*mcp.CallToolResult, *wire.Forget, error) {
		out, err := s.forget(ctx, req, in)
		if err != nil {
			return nil, nil, s.toolError("forget", err)
		}
		text := forgetText(out)
		if len(out.Facts) > MaxForgetListed {
			out.Facts = out.Facts[:MaxForgetListed] // the text says how many more
		}
		return textResult(text), out, nil
	})
}

// forget runs one forget: by ids at once, by any other selector only
// with confirm (else as a dry run); a read-only key may only dry-run.
func (s *Server) forget(ctx context.Context, req *mcp.CallToolRequest, in ForgetInput) (*wire.Forget, error) {
	bank, err := s.bank(ctx, req, in.Bank)
	if err != nil {
		return nil, err
	}
	if in.Limit < 0 || in.Limit > MaxRecallLimit {
		return nil, memory.Errorf(memory.EINVALID, "limit %d: use 1 to %d facts", in.Limit, MaxRecallLimit)
	}
	sel := mnemo.ForgetSelector{IDs: in.IDs, Query: in.Query, Limit: in.Limit, Entity: in.Entity, Document: in.Document, DryRun: in.DryRun, Actor: "mcp"}
	if sel.From, err = optionalTime(in.From); err != nil {
		return nil, err
	}
	if sel.To, err = optionalTime(in.To); err != nil {
		return nil, err
	}
	bySearch := in.Query != "" || in.Entity != "" || in.Document != "" || in.From != "" || in.To != ""
	if bySearch && !in.Confirm {
		sel.DryRun = true
	}
	if !sel.DryRun && !s.opts.CanWrite(ctx, req) {
		return nil, memory.Errorf(memory.EFORBIDDEN, "this key may only read: forget needs a key with write scope (a dry run is allowed)")
	}
	res, err := s.eng.Forget(ctx, bank, sel)
	if err != nil {
		return nil, err
	}
	out := wire.NewForget(res)
	return &out, nil
}

// optionalTime parses s, or is the zero time for "".
func optionalTime(s string) (t time.Time, err error) {
	if s == "" {
		return t, nil
	}
	return wire.ParseTime(s)
}

// forgetText is what the model reads of a forget: the counts, or the
// facts a dry run selected (at most MaxForgetListed, clipped), and what
// to do next.
func forgetText(f *wire.Forget) string {
	var b strings.Builder
	if !f.DryRun {
		c := f.Counts
		fmt.Fprintf(&b, "Forgot %s in bank %q (%d links, %d entities, %d relations, %d observations, %d documents removed with them). Audit record %s.",
			count(c.Facts, "fact", "facts"), f.Bank, c.Links, c.Entities, c.Relations, c.Observations, c.Documents, f.Record)
		if len(f.Facts) > MaxForgetListed {
			fmt.Fprintf(&b, " The result lists the first %d of their ids.", MaxForgetListed)
		}
		return b.String()
	}
	if len(f.Facts) == 0 {
		return fmt.Sprintf("Nothing in bank %q matches: nothing would be forgotten.", f.Bank)
	}
	fmt.Fprintf(&b, "Dry run: %s of bank %q would be forgotten:\n", count(len(f.Facts), "fact", "facts"), f.Bank)
	for i, x := range f.Facts {
		if i == MaxForgetListed {
			fmt.Fprintf(&b, "… and %d more (the result lists the first %d)\n", len(f.Facts)-i, MaxForgetListed)
			break
		}
		fmt.Fprintf(&b, "- %s: %s\n", x.ID, truncate(oneLine(x.Text), 200))
	}
	b.WriteString("Nothing was changed. To forget them, call forget again with the same arguments and confirm=true.")
	return b.String()
}
