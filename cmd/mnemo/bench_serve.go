package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/pprof"
	"time"

	"github.com/mnemo-ai/mnemo/bench"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
	"github.com/spf13/cobra"
)

// newBenchServeCmd is `mnemo bench serve`: the HTTP API under load from
// concurrent clients on loopback.
func newBenchServeCmd(g *globals) *cobra.Command {
	var clients, facts int
	var duration time.Duration
	var share float64
	var seed int64
	var cpuProfile string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Load the HTTP API: concurrent clients mixing retain and recall on loopback; latency percentiles and the server's counters",
		Long: `Serve the HTTP API in this process on 127.0.0.1 (a free port, keyless
loopback access as with serve --insecure-local) over a fresh temporary
database holding --facts synthetic facts, then run --clients clients for
--duration: each sends one request at a time, a recall (a synthetic
question) with chance --recall-share and otherwise a retain (one synthetic
sentence as a new item). Reports requests/s, retain and recall latency
p50/p95/p99 as the clients saw them, errors by status and code, and the
server's retain and recall counters from /metrics afterwards.
Exits non-zero (6) when any request failed or /metrics could not be read.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case clients <= 0:
				return usagef("--clients must be positive")
			case duration <= 0:
				return usagef("--duration must be positive")
			case !(share >= 0 && share <= 1):
				return usagef("--recall-share must be between 0 and 1")
			case facts < 0:
				return usagef("--facts must not be negative")
			}
			ctx := cmd.Context()
			keep, _ := cmd.Flags().GetBool("keep")
			eng, _, cleanup, err := g.benchEngine(cmd, keep)
			if err != nil {
				return err
			}
			defer cleanup()
			fmt.Fprintf(g.stderr, "bench serve: loading %d synthetic facts\n", facts)
			stored, err := bench.LoadBank(ctx, eng, bench.DefaultLoadBank, facts, seed)
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return memory.Errorf(memory.EUNAVAILABLE, "listen on loopback: %v", err)
			}
			// Access logs would be one line a request: off.
			quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
			srv := httpapi.NewHTTPServer(httpapi.New(eng, httpapi.Options{InsecureLocal: true, Logger: quiet}))
			done := make(chan error, 1)
			go func() { done <- srv.Serve(ln) }()
			base := "http://" + ln.Addr().String()
			fmt.Fprintf(g.stderr, "bench serve: %d facts in bank %q; %d clients for %s on %s\n", stored, bench.DefaultLoadBank, clients, duration, base)
			if cpuProfile != "" {
				// The load is profiled (server and clients), not the preload.
				f, err := createPrivateFile(cpuProfile)
				if err != nil {
					return err
				}
				if err := pprof.StartCPUProfile(f); err != nil {
					f.Close()
					return err
				}
				defer func() { pprof.StopCPUProfile(); f.Close() }()
			}
			rep, err := bench.RunLoad(ctx, base, bench.LoadOptions{
				Bank: bench.DefaultLoadBank, Clients: clients, Duration: duration, RecallShare: share, Seed: seed,
			})
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), defaultShutdownTimeout)
			defer cancel()
			serr := srv.Shutdown(sctx)
			if e := <-done; !errors.Is(e, http.ErrServerClosed) {
				serr = errors.Join(serr, e)
			}
			if err != nil {
				return err
			}
			if serr != nil {
				return fmt.Errorf("shut the server down: %w", serr)
			}
			if g.json {
				err = g.printJSON(struct {
					PreloadFacts int `json:"preload_facts"`
					*bench.LoadReport
				}{stored, rep})
			} else {
				fmt.Fprintf(g.stdout, "preload: %d facts\n", stored)
				err = rep.WriteText(g.stdout)
			}
			if err != nil {
				return err
			}
			if rep.Errors > 0 {
				return &partialError{fmt.Sprintf("%d of %d requests failed", rep.Errors, rep.Requests)}
			}
			if rep.Server == nil {
				return &partialError{"the server's /metrics could not be read: " + rep.ServerError}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&clients, "clients", bench.DefaultLoadClients, "concurrent clients")
	f.DurationVar(&duration, "duration", bench.DefaultLoadDuration, "how long the clients send requests")
	f.Float64Var(&share, "recall-share", bench.DefaultLoadRecallShare, "share of requests that are recalls (the rest retain)")
	f.IntVar(&facts, "facts", bench.DefaultLoadFacts, "synthetic facts in the bank before the clients start")
	f.Int64Var(&seed, "seed", 1, "seed of the bank, the texts, the questions and the mix")
	f.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the load phase here")
	return cmd
}
