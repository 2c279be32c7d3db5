package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
)

type contextInput struct {
	Bank   string   `path:"bank" doc:"bank name"`
	Query  string   `query:"query" doc:"a question or the user's prompt: adds the memories relevant to it"`
	Budget int      `query:"budget" doc:"token budget, a hard cap (0: the default)"`
	Format string   `query:"format" enum:"text,markdown,json" default:"text" doc:"text, markdown or json"`
	Scopes []string `query:"scope" doc:"scopes of the session (a project, a task type), comma-separated: their directives are shown"`
}

// contextOutput is a context as the CLI prints it: the same bytes.
type contextOutput struct {
	ContentType string `header:"Content-Type"`
	Body        []byte
}

// contextTypes are the media types of a context's formats.
var contextTypes = map[string]string{
	memory.FormatText:     "text/plain; charset=utf-8",
	memory.FormatMarkdown: "text/markdown; charset=utf-8",
	memory.FormatJSON:     "application/json",
}

// registerContext adds GET /v1/banks/{bank}/context: the memory context
// for a session's start (Engine.Context), rendered in the format asked
// for — byte for byte what `mnemo context` prints.
func (s *Server) registerContext() {
	o := op(http.MethodGet, "/v1/banks/{bank}/context", "getContext", "The memory context for a session's system prompt, within a token budget", ScopeRead, "context")
	o.Responses = map[string]*huma.Response{"200": {
		Description: "the context: memory blocks, directives, observations and, given a query, the memories relevant to it",
		Content:     map[string]*huma.MediaType{contextTypes[memory.FormatText]: {}, contextTypes[memory.FormatMarkdown]: {}, contextTypes[memory.FormatJSON]: {}},
	}}
	register(s, o, func(ctx context.Context, in *contextInput) (*contextOutput, error) {
		res, err := s.eng.Context(ctx, in.Bank, mnemo.ContextRequest{Query: in.Query, Budget: in.Budget, Format: in.Format, Scopes: in.Scopes})
		if err != nil {
			return nil, s.fail(err)
		}
		return &contextOutput{ContentType: contextTypes[in.Format], Body: []byte(res.Text)}, nil
	})
}
