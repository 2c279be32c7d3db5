package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/proxy"
	"github.com/spf13/cobra"
)

// defaultProxyAddr is where `mnemo proxy` listens unless told otherwise.
const defaultProxyAddr = "127.0.0.1:7078"

func newProxyCmd(g *globals) *cobra.Command {
	var upstream, addr string
	var insecure bool
	var budget int
	var grace time.Duration
	cmd := &cobra.Command{
		Use:   "proxy --upstream URL",
		Short: "Serve an OpenAI- and Anthropic-compatible chat API that adds memory and forwards to --upstream",
		Long: `Serve POST /v1/chat/completions (OpenAI and compatible servers) and
POST /v1/messages (Anthropic) on --addr. For each chat the proxy recalls
what the bank knows about the latest user message, adds it to the system
prompt, forwards the request to --upstream (the base URL an OpenAI client
would be given, e.g. http://localhost:11434/v1), streams the answer back
as it arrives, and then retains the exchange in the background.

The client's Authorization or x-api-key header goes to the upstream
untouched. The mnemo key travels in X-Mnemo-Key (not needed with
--insecure-local on a loopback address); X-Mnemo-Bank picks a bank the key
may use (default: --bank, else the key's bank); "X-Mnemo-Memory: off"
forwards a request untouched and retains nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if upstream == "" {
				return usagef("--upstream is required (e.g. --upstream http://localhost:11434/v1)")
			}
			ln, err := listen(addr, insecure)
			if err != nil {
				return err
			}
			defer ln.Close()
			log := slog.New(slog.NewJSONHandler(g.stderr, nil))
			eng, err := g.engineWith(cmd, mnemo.Config{Logger: log, WarmRecall: true}) // the job worker runs the queued retains
			if err != nil {
				return err
			}
			p, err := proxy.New(eng, proxy.Config{Upstream: upstream, Bank: g.bank, InsecureLocal: insecure, Budget: budget, Logger: log})
			if err != nil {
				return err
			}
			defer p.Close()
			srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
			if g.json {
				g.printJSON(map[string]string{"addr": ln.Addr().String(), "upstream": upstream})
			} else {
				fmt.Fprintf(g.stdout, "mnemo: memory proxy on http://%s/v1 → %s\n", ln.Addr(), upstream)
			}
			done := make(chan error, 1)
			go func() { done <- srv.Serve(ln) }()
			select {
			case err := <-done:
				return fmt.Errorf("proxy: %w", err)
			case <-ctx.Done():
			}
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
			defer cancel()
			err = srv.Shutdown(sctx)
			if serr := <-done; !errors.Is(serr, http.ErrServerClosed) {
				err = errors.Join(err, serr)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&upstream, "upstream", "", "base URL of the LLM API to forward to (required)")
	f.StringVar(&addr, "addr", defaultProxyAddr, "address to listen on")
	f.BoolVar(&insecure, "insecure-local", false, "serve requests without X-Mnemo-Key from loopback clients (needs a loopback --addr)")
	f.IntVar(&budget, "budget", proxy.DefaultBudget, "token budget of the memory added to each request")
	f.DurationVar(&grace, "shutdown-timeout", defaultShutdownTimeout, "how long in-flight requests may take to finish on shutdown")
	return cmd
}
