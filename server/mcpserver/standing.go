package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemo-ai/mnemo/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StandingPinInput are the arguments of the standing_pin tool.
type StandingPinInput struct {
	Question string `json:"question" jsonschema:"the question to keep answered, as the user would ask it"`
	Bank     string `json:"bank,omitempty" jsonschema:"memory bank; omit to use the server's default bank"`
}

// StandingListInput are the arguments of the standing_list tool.
type StandingListInput struct {
	Bank string `json:"bank,omitempty" jsonschema:"memory bank; omit to use the server's default bank"`
}

// StandingUnpinInput are the arguments of the standing_unpin tool.
type StandingUnpinInput struct {
	Question string `json:"question" jsonschema:"the pinned question's id (sq_…) or its text"`
	Bank     string `json:"bank,omitempty" jsonschema:"memory bank; omit to use the server's default bank"`
}

const standingPinDescription = `Pin a question whose answer the user will want again and again ("What are my current projects?", "What does the user prefer for travel?"). Consolidation keeps its answer up to date as memories change, and reflect and recall of the same question return it first, without a model call. Use it for questions worth keeping answered, not for one-off questions (use recall or reflect for those).`

// addStanding registers standing_pin, standing_list and standing_unpin:
// the bank's pinned questions (mnemo.Engine.PinQuestion and its kin).
func (s *Server) addStanding() {
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "standing_pin", Title: "Pin a question", Description: standingPinDescription,
		Annotations: &mcp.ToolAnnotations{Title: "Pin a question", OpenWorldHint: new(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in StandingPinInput) (*mcp.CallToolResult, *wire.Standing, error) {
		bank, err := s.writeBank(ctx, req, in.Bank, "standing_pin")
		if err != nil {
			return nil, nil, s.toolError("standing_pin", err)
		}
		q, err := s.eng.PinQuestion(ctx, bank, in.Question)
		if err != nil {
			return nil, nil, s.toolError("standing_pin", err)
		}
		out := wire.NewStanding(q)
		return textResult(fmt.Sprintf("Question %s pinned in bank %q; consolidation answers it and keeps the answer fresh.", q.ID, bank)), &out, nil
	})
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "standing_list", Title: "List pinned questions",
		Description: "List the bank's pinned questions, oldest first, with their latest answers and whether each answer is still fresh.",
		Annotations: &mcp.ToolAnnotations{Title: "List pinned questions", ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in StandingListInput) (*mcp.CallToolResult, *wire.StandingList, error) {
		bank, err := s.bank(ctx, req, in.Bank)
		if err != nil {
			return nil, nil, s.toolError("standing_list", err)
		}
		qs, err := s.eng.StandingQuestions(ctx, bank)
		if err != nil {
			return nil, nil, s.toolError("standing_list", err)
		}
		out := wire.StandingList{Questions: []wire.Standing{}}
		var b strings.Builder
		for _, q := range qs {
			out.Questions = append(out.Questions, wire.NewStandingStatus(q.StandingQuestion, q.Stale))
			switch {
			case q.Answer == "":
				fmt.Fprintf(&b, "%s %s\n  (not answered yet)\n", q.ID, q.Question)
			case q.Stale != "":
				fmt.Fprintf(&b, "%s %s\n  %s (stale: %s)\n", q.ID, q.Question, q.Answer, q.Stale)
			default:
				fmt.Fprintf(&b, "%s %s\n  %s\n", q.ID, q.Question, q.Answer)
			}
		}
		if len(qs) == 0 {
			b.WriteString("No pinned questions.")
		}
		return textResult(strings.TrimSuffix(b.String(), "\n")), &out, nil
	})
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "standing_unpin", Title: "Unpin a question",
		Description: "Unpin a question (by its id or its text) and drop its answer.",
		Annotations: &mcp.ToolAnnotations{Title: "Unpin a question", DestructiveHint: new(true), OpenWorldHint: new(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in StandingUnpinInput) (*mcp.CallToolResult, *wire.Standing, error) {
		bank, err := s.writeBank(ctx, req, in.Bank, "standing_unpin")
		if err != nil {
			return nil, nil, s.toolError("standing_unpin", err)
		}
		q, err := s.eng.UnpinQuestion(ctx, bank, in.Question)
		if err != nil {
			return nil, nil, s.toolError("standing_unpin", err)
		}
		out := wire.NewStanding(q)
		return textResult("Question " + q.ID + " unpinned."), &out, nil
	})
}
