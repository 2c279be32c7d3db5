package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemo-ai/mnemo/reflection"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ReflectInput are the arguments of the reflect tool.
type ReflectInput struct {
	Question string `json:"question" jsonschema:"the question to answer from memory, e.g. 'Where does Sam's manager live now?'"`
	AsOf     string `json:"as_of,omitempty" jsonschema:"answer from what memory held then (RFC 3339 or YYYY-MM-DD); omit for now"`
	MaxSteps int    `json:"max_steps,omitempty" jsonschema:"lookups the server's model may make, 1-32; default 8"`
	Bank     string `json:"bank,omitempty" jsonschema:"memory bank; omit to use the server's default bank"`
}

// reflectDescription is the reflect tool's description.
const reflectDescription = `Answer a question from memory: the server's own model looks things up (recall, observations, an entity's facts, the source text of a fact) as many times as the question needs, and answers with the ids of the memories the answer rests on. A question the bank pinned is answered from its standing answer at once.

Use it for questions that need several lookups or some reasoning ("which city does Sam's manager live in?"); use recall to get raw context for yourself. It needs an LLM configured on the server, and takes seconds.`

// addReflect registers the reflect tool.
func (s *Server) addReflect() {
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        "reflect",
		Title:       "Reflect on memory",
		Description: reflectDescription,
		Annotations: &mcp.ToolAnnotations{Title: "Reflect on memory", ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in ReflectInput) (*mcp.CallToolResult, *wire.Reflect, error) {
		bank, err := s.bank(ctx, req, in.Bank)
		if err != nil {
			return nil, nil, s.toolError("reflect", err)
		}
		r := reflection.Request{Question: in.Question, MaxSteps: in.MaxSteps}
		if in.AsOf != "" {
			if r.AsOf, err = wire.ParseTime(in.AsOf); err != nil {
				return nil, nil, s.toolError("reflect", err)
			}
		}
		res, err := s.eng.Reflect(ctx, bank, r)
		if err != nil {
			return nil, nil, s.toolError("reflect", err)
		}
		out := wire.NewReflect(res)
		text := res.Answer + "\n"
		if len(res.MemoryIDs) > 0 {
			text += fmt.Sprintf("(memories: %s)\n", strings.Join(res.MemoryIDs, ", "))
		}
		return textResult(text), &out, nil
	})
}
