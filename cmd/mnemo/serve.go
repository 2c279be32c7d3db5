package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/console"
	"github.com/mnemo-ai/mnemo/server/httpapi"
	"github.com/mnemo-ai/mnemo/server/mcpserver"
	"github.com/spf13/cobra"
)

// defaultShutdownTimeout is how long `mnemo serve` lets in-flight
// requests finish after SIGINT/SIGTERM before it closes them.
const defaultShutdownTimeout = 30 * time.Second

func newServeCmd(g *globals) *cobra.Command {
	var addr string
	var insecure bool
	var maxBody int64
	var grace time.Duration
	var approval bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the HTTP API and MCP at /mcp (OpenAPI at /openapi.json, docs at /docs, metrics at /metrics)",
		Long: `Serve the HTTP API and MCP (streamable HTTP, at /mcp) on --addr and
run the background work (queued retains, idle chat sessions) until
SIGINT or SIGTERM; then in-flight requests finish and pending work is
flushed before exiting.

Every /v1 and /mcp request needs "Authorization: Bearer <key>" (a key from
"mnemo keys create"), unless --insecure-local is given and the address is
a loopback one.
Access logs go to stderr as JSON lines.
The web console is at /ui/ (docs/console.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if maxBody <= 0 {
				return usagef("--max-body must be positive")
			}
			ln, err := listen(addr, insecure)
			if err != nil {
				return err
			}
			defer ln.Close()
			log := slog.New(slog.NewJSONHandler(g.stderr, nil))
			eng, err := g.engineWith(cmd, mnemo.Config{Logger: log, WarmRecall: true}) // background work on; closed after the command
			if err != nil {
				return err
			}
			mcp := mcpserver.Handler(eng, mcpserver.Options{Bank: g.bank, RequireApproval: approval, Logger: log})
			api := httpapi.New(eng, httpapi.Options{Auth: httpapi.NewKeyAuth(eng), InsecureLocal: insecure, MaxBody: maxBody, Logger: log, MCP: mcp})
			api.MountPublic(console.Prefix, console.New(eng, api, console.Options{Logger: log}))
			srv := httpapi.NewHTTPServer(api)
			srv.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
			if g.json {
				g.printJSON(map[string]string{"addr": ln.Addr().String()})
			} else {
				fmt.Fprintf(g.stdout, "mnemo: serving http://%s\n", ln.Addr())
			}
			done := make(chan error, 1)
			go func() { done <- srv.Serve(ln) }()
			select {
			case err := <-done:
				return fmt.Errorf("serve: %w", err)
			case <-ctx.Done():
			}
			log.Info("shutting down: in-flight requests finish", "timeout", grace)
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
			defer cancel()
			err = srv.Shutdown(sctx)
			if serr := <-done; !errors.Is(serr, http.ErrServerClosed) {
				err = errors.Join(err, serr)
			}
			return err // the engine closes next, flushing its pending work
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", httpapi.DefaultAddr, "address to listen on")
	f.BoolVar(&insecure, "insecure-local", false, "serve requests without a key from loopback clients (needs a loopback --addr)")
	f.Int64Var(&maxBody, "max-body", httpapi.DefaultMaxBody, "largest JSON request body in bytes (larger is 413)")
	f.DurationVar(&grace, "shutdown-timeout", defaultShutdownTimeout, "how long in-flight requests may take to finish on shutdown")
	f.BoolVar(&approval, "require-approval", false, "MCP: ask the user before retain stores anything")
	return cmd
}

// listen listens on addr for a server; with insecure (--insecure-local,
// no key asked) the address must be a loopback one.
func listen(addr string, insecure bool) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, memory.Errorf(memory.EINVALID, "listen on %s: %v", addr, err)
	}
	if insecure && !httpapi.IsLoopback(ln.Addr().String()) {
		ln.Close()
		return nil, usagef("--insecure-local needs a loopback address (127.0.0.1, ::1 or localhost), not %s", addr)
	}
	return ln, nil
}
