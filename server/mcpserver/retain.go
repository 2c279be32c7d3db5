package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RetainInput are the arguments of the retain (remember) tool.
type RetainInput struct {
	Text       string   `json:"text" jsonschema:"what to remember: one or more short, self-contained sentences that name who and what they are about and say when, e.g. 'Alice moved to Lisbon in May 2024.' or 'The user prefers answers in French.' Not a whole transcript."`
	Bank       string   `json:"bank,omitempty" jsonschema:"memory bank to write to; omit to use the server's default bank"`
	Speaker    string   `json:"speaker,omitempty" jsonschema:"who said or wrote it (e.g. 'user', 'Alice'); omit if unknown"`
	OccurredAt string   `json:"occurred_at,omitempty" jsonschema:"when it was said or happened, RFC 3339 or YYYY-MM-DD[ HH:MM]; relative dates in the text ('yesterday') are resolved against it; omit for now"`
	Tags       []string `json:"tags,omitempty" jsonschema:"optional labels to filter by later, e.g. ['project-x']"`
	ShortTerm  bool     `json:"short_term,omitempty" jsonschema:"set true for something that matters only for a day or two (today's plan, a temporary state, 'I am at the dentist until 3'): it is kept as short-term memory and expires after about 48 hours unless it is recalled meanwhile or is important, in which case it is kept for good; omit for durable facts"`
	Confirm    bool     `json:"confirm,omitempty" jsonschema:"only when the server requires approval and a previous call answered pending: set true after the user agreed to store exactly this text; ignored otherwise"`
}

// retainDescription is the retain tool's description.
const retainDescription = `Store something in long-term memory so it can be recalled in later conversations.

Use it when you learn a durable fact worth keeping: a preference, a person or project detail, a decision, a date, an event. Write short self-contained sentences (resolve "he", "it", "there" to names). Facts, entities and dates are extracted from the text; retaining the same text twice is harmless (reported as a duplicate), and a newer fact that contradicts an older one supersedes it.

For something that matters only for a day or two (today's plan, where the user is right now), set short_term=true: it is recalled like any memory, marked short-term, and expires after about 48 hours unless it was recalled or is important.

The result says what was stored (facts, entities). If the server requires approval, the result may be pending: show the user the text and call again with confirm=true only once they agree.`

// addRetain registers the retain tool under name (retain and its alias
// remember share it).
func (s *Server) addRetain(name string) {
	desc := retainDescription
	if name != "retain" {
		desc = "Alias of retain. " + desc
	}
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        name,
		Title:       "Remember",
		Description: desc,
		Annotations: &mcp.ToolAnnotations{Title: "Remember", IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in RetainInput) (*mcp.CallToolResult, *wire.Retained, error) {
		out, ask, err := s.retain(ctx, req, in)
		if err != nil {
			return nil, nil, s.toolError(name, err)
		}
		if ask != nil {
			return ask, nil, nil
		}
		return textResult(out.Message), out, nil
	})
}

// retain stores in.Text through Engine.Retain, after the user's approval
// when the server requires it. When the approval is still to be asked it
// returns ask, the tool result that asks it, and nothing else.
func (s *Server) retain(ctx context.Context, req *mcp.CallToolRequest, in RetainInput) (_ *wire.Retained, ask *mcp.CallToolResult, _ error) {
	bank, err := s.bank(ctx, req, in.Bank)
	if err != nil {
		return nil, nil, err
	}
	if !s.opts.CanWrite(ctx, req) {
		return nil, nil, memory.Errorf(memory.EFORBIDDEN, "this key may only read: retain needs a key with write scope")
	}
	if strings.TrimSpace(in.Text) == "" {
		return nil, nil, memory.Errorf(memory.EINVALID, "text is empty: give the sentences to remember")
	}
	r := memory.RetainRequest{BankID: bank, Text: in.Text, Speaker: in.Speaker, Tags: in.Tags, ShortTerm: in.ShortTerm}
	if in.OccurredAt != "" {
		t, err := wire.ParseTime(in.OccurredAt)
		if err != nil {
			return nil, nil, err
		}
		r.At = t
	}
	if s.opts.RequireApproval {
		ok, pending, ask := approve(req, bank, in)
		if ask != nil {
			return nil, ask, nil
		}
		if pending {
			return &wire.Retained{Bank: bank, Pending: true, Message: fmt.Sprintf(
				"Not stored yet: this server requires the user's approval. Show the user the text below and, only if they agree, call %s again with the same arguments and confirm=true.\n\n%s", req.Params.Name, in.Text)}, nil, nil
		}
		if !ok {
			return &wire.Retained{Bank: bank, Message: "Not stored: the user declined."}, nil, nil
		}
	}
	res, err := s.eng.Retain(ctx, r)
	if err != nil {
		return nil, nil, err
	}
	out := &wire.Retained{Bank: bank, Stored: true, Result: wire.NewRetainResult(res)}
	switch {
	case res.Duplicate:
		out.Message = fmt.Sprintf("Already remembered in bank %q: nothing new to store.", bank)
	case in.ShortTerm:
		out.Message = fmt.Sprintf("Remembered in bank %q as short-term memory: %s, %s.", bank, count(res.Facts, "fact", "facts"), count(res.Entities, "entity", "entities"))
	default:
		out.Message = fmt.Sprintf("Remembered in bank %q: %s, %s.", bank, count(res.Facts, "fact", "facts"), count(res.Entities, "entity", "entities"))
	}
	return out, nil, nil
}

// approvalID names the approval among a call's input requests.
const approvalID = "approve"

// approve decides a retain that needs the user's approval. A client that
// supports elicitation is asked through a multi round-trip input request
// (the SDK asks older clients itself and calls the tool again): the first
// call returns ask, the retry carries the user's answer (ok). Any other
// client answers through the confirm argument: pending until the agent
// calls again with confirm=true.
func approve(req *mcp.CallToolRequest, bank string, in RetainInput) (ok, pending bool, ask *mcp.CallToolResult) {
	if !canElicit(req.Session) {
		return in.Confirm, !in.Confirm, nil
	}
	if res, found := req.Params.InputResponses[approvalID].(*mcp.ElicitResult); found {
		return res.Action == "accept", false, nil
	}
	return false, false, &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{approvalID: &mcp.ElicitParams{
		Message:         fmt.Sprintf("Store this in %s memory (bank %q)?\n\n%s", tierName(in.ShortTerm), bank, in.Text),
		RequestedSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}},
	}}}
}

// tierName names the memory a retain writes to, for the user.
func tierName(shortTerm bool) string {
	if shortTerm {
		return "short-term"
	}
	return "long-term"
}

// canElicit reports whether the client of ss declared elicitation.
func canElicit(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// count is n with the noun's singular or plural: "1 fact", "2 facts".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
