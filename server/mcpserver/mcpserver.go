// Package mcpserver serves mnemo to agents over the Model Context
// Protocol (the official Go SDK): tools that are thin adapters over the
// façade's calls (retain and its alias remember, recall, …), each one
// small function over one Engine method answering one wire shape, as
// structured content and as text an LLM reads well.
//
// It holds no memory logic and no transport policy: `mnemo mcp` runs a
// Server over stdio, and `mnemo serve` mounts Handler at /mcp behind its
// own authentication, which tells the tools the caller's bank through
// Options.KeyBank (by default the bank claim of the SDK's bearer token
// info, see TokenBank).
package mcpserver

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Name is the implementation name the server announces.
const Name = "mnemo"

// DefaultSessionTimeout is how long an idle HTTP session is kept.
const DefaultSessionTimeout = 30 * time.Minute

// Instructions tell the client's model what the server is for; clients
// may add them to the system prompt.
const Instructions = `mnemo is your long-term memory. Call recall before answering anything that may depend on what you were told before (the user's preferences, people, projects, past decisions, dates); call retain (or remember) whenever you learn something worth keeping beyond this conversation, as short self-contained sentences. Results are paginated and token-budgeted: ask for the next page with the offset a result gives.`

// Options configure a Server. The zero value serves the engine's
// default bank with no approval step.
type Options struct {
	// Bank is the bank a tool call uses when it names none; "" means the
	// engine's default bank.
	Bank string
	// KeyBank returns the bank the caller's credentials are bound to and
	// whether they are bound at all (fixed). A fixed bank wins over the
	// tool argument, and a call naming another bank fails as if that
	// bank did not exist. Nil means TokenBank.
	KeyBank func(ctx context.Context, req *mcp.CallToolRequest) (bank string, fixed bool)
	// CanWrite reports whether the caller's credentials may write (retain);
	// a caller that may not gets an unauthorized tool error. Nil means
	// TokenCanWrite.
	CanWrite func(ctx context.Context, req *mcp.CallToolRequest) bool
	// RequireApproval makes retain ask before it stores anything (seed
	// 001's "requires approval"): through MCP elicitation when the client
	// supports it, otherwise by answering with what would be stored and
	// storing only when called again with confirm=true.
	RequireApproval bool
	// SessionTimeout closes an HTTP session idle this long (the client
	// starts a new one); 0 means DefaultSessionTimeout, negative never.
	SessionTimeout time.Duration
	// Version is the version the server announces; "" means "dev".
	Version string
	// Logger receives internal errors in full (tools show "internal
	// error"); nil means slog.Default().
	Logger *slog.Logger
}

// Server is mnemo's MCP server: the tools over one engine. It is safe
// for concurrent use by many sessions.
type Server struct {
	eng  *mnemo.Engine
	opts Options
	mcp  *mcp.Server
	log  *slog.Logger
}

// New returns the MCP server of eng with every tool registered.
func New(eng *mnemo.Engine, opts Options) *Server {
	if opts.KeyBank == nil {
		opts.KeyBank = TokenBank
	}
	if opts.CanWrite == nil {
		opts.CanWrite = TokenCanWrite
	}
	if opts.SessionTimeout == 0 {
		opts.SessionTimeout = DefaultSessionTimeout
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{eng: eng, opts: opts, log: opts.Logger}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: Name, Title: "mnemo long-term memory", Version: opts.Version},
		&mcp.ServerOptions{Instructions: Instructions, Logger: s.log})
	// One line per tool; each tool's file holds its arguments, result,
	// description and handler.
	s.addRetain("retain")
	s.addRetain("remember")
	s.addRecall()
	s.addBlocks()
	s.addForget()
	s.addAbout()
	s.addContext()    // context.go
	s.addDirectives() // directives.go
	s.addReflect()    // reflect.go
	s.addStanding()   // standing.go
	return s
}

// MCP returns the SDK server, to run over any transport
// (server.Run(ctx, &mcp.StdioTransport{})) or connect in tests.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one client over a pair of streams, newline-delimited
// JSON-RPC as MCP's stdio transport speaks it (stdin and stdout for
// `mnemo mcp`), until the client closes its end or ctx is done. Either
// is a normal end: it returns nil.
func (s *Server) Run(ctx context.Context, in io.Reader, out io.Writer) error {
	err := s.mcp.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// nopWriteCloser is a Writer whose Close does nothing: the server does
// not close the process's stdout.
type nopWriteCloser struct{ io.Writer }

// Close implements io.Closer.
func (nopWriteCloser) Close() error { return nil }

// Handler returns the streamable HTTP handler of the server, to mount at
// /mcp. Authentication is the caller's: wrap the handler in middleware
// that checks the bearer key (for instance the SDK's
// auth.RequireBearerToken, whose token info TokenBank reads).
func (s *Server) Handler() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Logger: s.log, SessionTimeout: max(s.opts.SessionTimeout, 0)})
}

// Handler is New(eng, opts).Handler(): the streamable HTTP handler
// `mnemo serve` mounts at /mcp.
func Handler(eng *mnemo.Engine, opts Options) http.Handler {
	return New(eng, opts).Handler()
}

// BankClaim is the key of auth.TokenInfo.Extra that TokenBank reads: the
// bank a bearer key is bound to (absent or "" for a key of every bank).
const BankClaim = "mnemo_bank"

// TokenBank is the default Options.KeyBank: the BankClaim of the bearer
// token info the HTTP transport attached to the request, if any. Over
// stdio there is none and no bank is fixed.
func TokenBank(_ context.Context, req *mcp.CallToolRequest) (string, bool) {
	if req == nil || req.Extra == nil || req.Extra.TokenInfo == nil {
		return "", false
	}
	bank, _ := req.Extra.TokenInfo.Extra[BankClaim].(string)
	return bank, bank != ""
}

// Scopes of a bearer key that TokenCanWrite lets write.
const (
	ScopeWrite = "write"
	ScopeAdmin = "admin"
)

// TokenCanWrite is the default Options.CanWrite: true without bearer
// token info (stdio, or an HTTP layer that checks scopes itself), else
// whether the token's scopes hold ScopeWrite or ScopeAdmin.
func TokenCanWrite(_ context.Context, req *mcp.CallToolRequest) bool {
	if req == nil || req.Extra == nil || req.Extra.TokenInfo == nil {
		return true
	}
	return slices.Contains(req.Extra.TokenInfo.Scopes, ScopeWrite) || slices.Contains(req.Extra.TokenInfo.Scopes, ScopeAdmin)
}

// bank is the bank a call works on: the key's bank when it is fixed (a
// different argument fails as an unknown bank, so a key cannot learn
// that another bank exists), else the argument, else the server's
// default (else "", the engine's default).
func (s *Server) bank(ctx context.Context, req *mcp.CallToolRequest, arg string) (string, error) {
	if key, fixed := s.opts.KeyBank(ctx, req); fixed {
		if arg != "" && arg != key {
			return "", memory.UnknownBank(arg)
		}
		return key, nil
	}
	if arg != "" {
		return arg, nil
	}
	if s.opts.Bank != "" {
		return s.opts.Bank, nil
	}
	return memory.DefaultBank, nil
}

// toolError is the error a tool returns for err: the SDK turns it into a
// tool result with IsError set, never a protocol error, so the model
// reads it and can correct its call. A coded error shows its code and
// message ("invalid: …"); any other is logged in full and shown as
// "internal error".
func (s *Server) toolError(tool string, err error) error {
	code := memory.ErrorCode(err)
	if code == memory.EINTERNAL {
		s.log.Error("mcp tool failed", slog.String("tool", tool), slog.Any("err", err))
	}
	return &memory.Error{Code: code, Message: memory.ErrorMessage(err)}
}

// textResult is a tool result whose text content is text; the SDK adds
// the structured content from the tool's output value.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
