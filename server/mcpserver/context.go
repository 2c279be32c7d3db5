package mcpserver

import (
	"context"
	"net/url"
	"strconv"
	"strings"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Context's MCP doors: the prompt a client puts at a session's start and
// the resources it reads, both Engine.Context rendered as `mnemo context`
// prints it.
const (
	// ContextPrompt is the prompt's name.
	ContextPrompt = "context"
	// ContextURI is the resource of the server's (or the key's) bank.
	ContextURI = "mnemo://context"
	// ContextTemplate is the resource template of any bank the caller
	// may read, with the context's options as query parameters.
	ContextTemplate = "mnemo://banks/{bank}/context{?query,budget,format,scope}"
)

const contextDescription = `The memory context for the start of a session: the memory blocks, the directives (must-follow rules) for the scope, the observations that matter most and, given a query, the memories relevant to it — within a token budget.`

// addContext registers the context prompt and resources.
func (s *Server) addContext() {
	s.mcp.AddPrompt(&mcp.Prompt{
		Name:        ContextPrompt,
		Title:       "Memory context",
		Description: contextDescription,
		Arguments: []*mcp.PromptArgument{
			{Name: "query", Description: "a question or the user's prompt: adds the memories relevant to it"},
			{Name: "scope", Description: "the session's scope (a project, a task type); comma-separated for several"},
			{Name: "budget", Description: "token budget, a hard cap (default 2048)"},
			{Name: "format", Description: "text (default), markdown or json"},
			{Name: "bank", Description: "memory bank; omit to use the server's default bank"},
		},
	}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		a := req.Params.Arguments
		bank, err := s.bank(ctx, &mcp.CallToolRequest{Session: req.Session, Extra: req.Extra}, a["bank"])
		if err != nil {
			return nil, s.toolError("context prompt", err)
		}
		res, err := s.context(ctx, bank, a["query"], a["budget"], a["format"], a["scope"])
		if err != nil {
			return nil, s.toolError("context prompt", err)
		}
		text := res.Text
		if strings.TrimSpace(text) == "" {
			text = "(No memories in bank " + bank + " yet.)"
		}
		return &mcp.GetPromptResult{
			Description: "Memory context of bank " + bank,
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
		}, nil
	})
	read := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		u, err := url.Parse(req.Params.URI)
		if err != nil {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		var arg string
		switch {
		case u.Scheme == "mnemo" && u.Host == "context" && (u.Path == "" || u.Path == "/"):
		case u.Scheme == "mnemo" && u.Host == "banks" && strings.HasSuffix(u.Path, "/context") && strings.Count(u.Path, "/") == 2:
			arg = strings.TrimSuffix(strings.TrimPrefix(u.Path, "/"), "/context")
		default:
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		bank, err := s.bank(ctx, &mcp.CallToolRequest{Session: req.Session, Extra: req.Extra}, arg)
		if err != nil {
			return nil, s.toolError("context resource", err)
		}
		q := u.Query()
		res, err := s.context(ctx, bank, q.Get("query"), q.Get("budget"), q.Get("format"), strings.Join(q["scope"], ","))
		if err != nil {
			return nil, s.toolError("context resource", err)
		}
		mime := map[string]string{"": "text/plain", memory.FormatText: "text/plain", memory.FormatMarkdown: "text/markdown", memory.FormatJSON: "application/json"}[q.Get("format")]
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: mime, Text: res.Text}}}, nil
	}
	s.mcp.AddResource(&mcp.Resource{URI: ContextURI, Name: "context", Title: "Memory context", Description: contextDescription, MIMEType: "text/plain"}, read)
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: ContextTemplate, Name: "bank-context", Title: "Memory context of a bank", Description: contextDescription}, read)
}

// context is Engine.Context with its options as the text a prompt
// argument or a URI query gives.
func (s *Server) context(ctx context.Context, bank, query, budget, format, scope string) (*mnemo.ContextResult, error) {
	req := mnemo.ContextRequest{Query: query, Format: format}
	if budget != "" {
		n, err := strconv.Atoi(budget)
		if err != nil {
			return nil, memory.Errorf(memory.EINVALID, "budget %q is not a number of tokens", budget)
		}
		req.Budget = n
	}
	for _, sc := range strings.Split(scope, ",") {
		if sc = strings.TrimSpace(sc); sc != "" {
			req.Scopes = append(req.Scopes, sc)
		}
	}
	return s.eng.Context(ctx, bank, req)
}
