// Package httpapi is mnemo's HTTP API: REST over the façade's calls
// (banks, retain, recall, jobs, documents, stats, export and import,
// forget, facts, about, entities and relations, memory blocks, keys,
// consolidation: runs, tiers, observations) and
// MCP at /mcp,
// described by an OpenAPI 3.1 document at /openapi.json with a docs page
// at /docs, with health checks (/healthz, /readyz) and Prometheus metrics
// (/metrics). Every handler is one Engine call and one wire shape; no
// memory logic lives here. Keys are checked by an Authenticator the
// caller supplies; `mnemo serve` (cmd/mnemo) builds the server and runs
// it.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/mnemo-ai/mnemo"
)

// Defaults of a server.
const (
	// DefaultAddr is where `mnemo serve` listens: loopback only.
	DefaultAddr = "127.0.0.1:7077"
	// DefaultMaxBody bounds a request body (JSON); larger is 413.
	DefaultMaxBody = 4 << 20
	// DefaultMaxImport bounds an import body (a bank export, JSONL).
	DefaultMaxImport = 1 << 30
	// DefaultReadHeaderTimeout, DefaultReadTimeout, DefaultWriteTimeout
	// and DefaultIdleTimeout are the http.Server's timeouts (NewHTTPServer).
	// An export or import extends its own deadlines.
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = time.Minute
	DefaultWriteTimeout      = 2 * time.Minute
	DefaultIdleTimeout       = 2 * time.Minute
)

// Options configure a Server. The zero value serves nothing under /v1:
// set Auth, or InsecureLocal for loopback clients without keys.
type Options struct {
	// Auth checks the bearer keys of /v1 requests; nil accepts no key.
	Auth Authenticator
	// InsecureLocal serves requests without a key when they come from a
	// loopback address (`mnemo serve --insecure-local`). A request that
	// sends a key is still checked.
	InsecureLocal bool
	// MaxBody bounds JSON request bodies; 0 means DefaultMaxBody.
	MaxBody int64
	// MaxImport bounds an import's body; 0 means DefaultMaxImport.
	MaxImport int64
	// Logger receives access logs and internal errors; nil means
	// slog.Default().
	Logger *slog.Logger
	// Extra handlers are mounted at their patterns (ServeMux patterns,
	// e.g. "/mcp") behind the same key check: see Protect and
	// PrincipalFrom.
	Extra map[string]http.Handler
	// MCP, when set, is the MCP server's HTTP handler
	// (mcpserver.Handler), served at MCPPath behind the same key check,
	// the key's bank and scope passed to the tools.
	MCP http.Handler
	// Version is the API version the OpenAPI document states.
	Version string
}

// Server is the HTTP API over one Engine. It is an http.Handler, safe for
// concurrent use.
type Server struct {
	eng     *mnemo.Engine
	opts    Options
	log     *slog.Logger
	mux     *http.ServeMux
	api     huma.API
	metrics *metrics
	handler http.Handler
}

// New returns the API over eng. The caller runs eng's background work
// and closes it after the server has shut down.
func New(eng *mnemo.Engine, opts Options) *Server {
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.MaxImport <= 0 {
		opts.MaxImport = DefaultMaxImport
	}
	if opts.Version == "" {
		opts.Version = "1"
	}
	s := &Server{eng: eng, opts: opts, log: opts.Logger, mux: http.NewServeMux()}
	if s.log == nil {
		s.log = slog.Default()
	}
	cfg := huma.DefaultConfig("mnemo", opts.Version)
	cfg.Info.Description = "Long-term memory for AI agents. Send `Authorization: Bearer <key>` with every /v1 request."
	cfg.CreateHooks = nil // no $schema links in bodies: the wire shapes are the contract
	cfg.RejectUnknownQueryParameters = true
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"bearer": {Type: "http", Scheme: "bearer"},
	}
	s.api = humago.New(s.mux, cfg)
	s.api.UseMiddleware(s.guard)
	s.metrics = newMetrics(eng)
	s.mux.Handle("GET /metrics", s.metrics.handler())
	s.register()
	if opts.MCP != nil {
		s.mountMCP(opts.MCP) // mcp.go
	}
	for pattern, h := range opts.Extra {
		s.Mount(pattern, h)
	}
	s.handler = s.observe(s.mux)
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Mount serves h at pattern (a ServeMux pattern) behind the key check
// (Protect). Call it before serving.
func (s *Server) Mount(pattern string, h http.Handler) {
	s.mux.Handle(pattern, s.Protect(h))
}

// API is the huma API the routes are registered on, for adapters that add
// operations of their own (they get the same middleware and document).
func (s *Server) API() huma.API { return s.api }

// NewHTTPServer is an http.Server for h with the default timeouts.
func NewHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: DefaultReadHeaderTimeout,
		ReadTimeout:       DefaultReadTimeout,
		WriteTimeout:      DefaultWriteTimeout,
		IdleTimeout:       DefaultIdleTimeout,
	}
}

// Operation metadata keys (huma.Operation.Metadata).
const (
	metaScope = "mnemo.scope" // Scope the route needs; absent: public
	metaRaw   = "mnemo.raw"   // the handler streams the body itself, at most this many bytes (int64)
)

// op is a huma operation on path needing scope ("" for a public one).
func op(method, path, id, summary string, scope Scope, tags ...string) huma.Operation {
	o := huma.Operation{Method: method, Path: path, OperationID: id, Summary: summary, Tags: tags, Metadata: map[string]any{}}
	if scope != "" {
		o.Metadata[metaScope] = scope
		o.Security = []map[string][]string{{"bearer": {}}}
	}
	return o
}

// register adds operation o with handler h to s's API, its body bounded
// by MaxBody.
func register[I, O any](s *Server, o huma.Operation, h func(context.Context, *I) (*O, error)) {
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = s.opts.MaxBody
	}
	huma.Register(s.api, o, h)
}

// register adds every route.
func (s *Server) register() {
	s.registerHealth()      // health.go
	s.registerBanks()       // banks.go
	s.registerMemories()    // memories.go
	s.registerRecall()      // recall.go
	s.registerJobs()        // jobs.go
	s.registerDocuments()   // documents.go
	s.registerStats()       // stats.go
	s.registerContext()     // context.go
	s.registerDirectives()  // directives.go
	s.registerExport()      // export.go
	s.registerForget()      // forget.go
	s.registerFacts()       // facts.go
	s.registerEntities()    // entities.go
	s.registerBlocks()      // blocks.go
	s.registerKeys()        // keys.go
	s.registerConsolidate() // consolidate.go
	s.registerDreams()      // dreams.go
	s.registerWebhooks()    // webhooks.go
	s.registerReflect()     // reflect.go
	s.registerStanding()    // standing.go
	s.registerCommunities() // communities.go
}

// MountPublic serves h at pattern (a ServeMux pattern) with no key check,
// under the same access log and metrics: for handlers that check keys
// themselves on the paths that need them (the web console's pages, whose
// shell needs no key; server/console). Call it before serving.
func (s *Server) MountPublic(pattern string, h http.Handler) {
	s.mux.Handle(pattern, h)
}
