package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/spf13/cobra"
)

// globals are the flags every command shares.
type globals struct {
	db   string
	bank string
	json bool
	prov providerFlags

	opened *mnemo.Engine // by engine, closed after the command
	root   *cobra.Command

	stdin          io.Reader
	stdout, stderr io.Writer
}

// usageError marks a command-line mistake (exit code 2): an unknown
// command or flag, a flag value that does not parse, the wrong number of
// arguments, or a check of a command's own (usagef). Cobra's errors are
// wrapped where cobra hands them over (see typeUsageErrors), so no error
// is recognised by its message.
type usageError struct{ error }

func (e *usageError) Unwrap() error { return e.error }

// usagef returns a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// typeUsageErrors makes every command-line mistake cobra finds under root
// a usageError: flag errors through the flag error function (which
// subcommands inherit), argument errors by wrapping each command's Args,
// and unknown commands by root's own Args (root runs, printing its help,
// when given no command; cobra's own check of unknown commands applies
// only while root's Args is nil). It must run after the last AddCommand.
func typeUsageErrors(root *cobra.Command) {
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	root.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return &usageError{errors.New(msg)}
	}
	root.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
	root.InitDefaultHelpCmd()
	strictHelp(root) // version.go
	root.InitDefaultCompletionCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c != root && c.Args != nil {
			check := c.Args
			c.Args = func(cmd *cobra.Command, args []string) error {
				if err := check(cmd, args); err != nil {
					return &usageError{err}
				}
				return nil
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// defaultDB is $MNEMO_DB, else mnemo.db under the user's data directory.
func defaultDB() string {
	if v := os.Getenv("MNEMO_DB"); v != "" {
		return v
	}
	dir := os.Getenv("XDG_DATA_HOME")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".local", "share")
		} else {
			dir = "."
		}
	}
	return filepath.Join(dir, "mnemo", "mnemo.db")
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) (*cobra.Command, *globals) {
	g := &globals{stdin: stdin, stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:           "mnemo",
		Short:         "Long-term memory for AI agents",
		Long:          "mnemo remembers what an agent sees and hears and recalls the right context when asked.\nOffline by default: an embedded SQLite file, no keys, no network.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(), // version.go: mnemo --version
	}
	g.root = root
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&g.db, "db", defaultDB(), "database file (env MNEMO_DB)")
	root.PersistentFlags().StringVar(&g.bank, "bank", "default", "memory bank")
	root.PersistentFlags().BoolVar(&g.json, "json", false, "print JSON")
	g.prov.register(root.PersistentFlags())
	root.AddCommand(newBankCmd(g), newRetainCmd(g), newImportCmd(g), newRecallCmd(g), newStatsCmd(g), newBenchCmd(g))
	root.AddCommand(newJobsCmd(g)) // jobs.go
	root.AddCommand(newEmbeddingsCmd(g))
	root.AddCommand(newExportCmd(g)) // export.go
	root.AddCommand(newKeysCmd(g))   // keys.go
	root.AddCommand(newBlocksCmd(g)) // blocks.go
	root.AddCommand(newMCPCmd(g))    // mcp.go
	root.AddCommand(newForgetCmd(g)) // forget.go
	root.AddCommand(newFactsCmd(g), newAboutCmd(g))
	root.AddCommand(newServeCmd(g))    // serve.go
	root.AddCommand(newProxyCmd(g))    // proxy.go
	root.AddCommand(newWebhooksCmd(g)) // webhooks.go
	root.AddCommand(newConsolidateCmd(g), newRunsCmd(g), newTiersCmd(g))
	root.AddCommand(newObservationsCmd(g)) // observations.go
	root.AddCommand(newDreamsCmd(g), newRestoreCmd(g))
	root.AddCommand(newContextCmd(g), newDirectivesCmd(g)) // context.go, directives.go
	root.AddCommand(newHookCmd(g), newInstallCmd(g))       // hook.go, install.go
	root.AddCommand(newReflectCmd(g), newStandingCmd(g))   // reflect.go, standing.go
	root.AddCommand(newCommunitiesCmd(g))                  // communities.go
	typeUsageErrors(root)
	return root, g
}

// engine opens the engine on the global database for one command and
// closes it when the command ends (see newRootCmd's PersistentPostRunE).
func (g *globals) engine(cmd *cobra.Command) (*mnemo.Engine, error) {
	return g.engineWith(cmd, oneShot)
}

// oneShot is the engine configuration of commands that do one thing and
// exit: no background job worker or idle-session trigger, which would only
// start work the exit interrupts; `mnemo jobs run` does it on demand.
var oneShot = mnemo.Config{JobPoll: -1, SessionIdle: -1, Consolidation: consolidate.RunnerConfig{PendingEvery: -1, Idle: -1, DailyAt: -1}}

// engineWith is engine with a config of the command's own: a long-running
// command (import --watch) keeps the background work on.
func (g *globals) engineWith(cmd *cobra.Command, cfg mnemo.Config) (*mnemo.Engine, error) {
	if err := g.configure(cmd.Context(), &cfg); err != nil {
		return nil, err
	}
	if err := checkDB(cmd, g.db); err != nil { // dbcheck.go
		return nil, err
	}
	cfg.DB = g.db
	eng, err := mnemo.Open(cmd.Context(), cfg)
	if err != nil {
		return nil, err
	}
	g.opened = eng
	return eng, nil
}

// closeEngine closes the engine a command opened, if any.
func (g *globals) closeEngine() error {
	if g.opened == nil {
		return nil
	}
	err := g.opened.Close()
	g.opened = nil
	return err
}

// configure resolves the provider settings and the database path (flag,
// then MNEMO_DB, then the config file) and builds the providers into cfg.
func (g *globals) configure(ctx context.Context, cfg *mnemo.Config) error {
	db, err := g.prov.resolve(g.root.PersistentFlags())
	if err != nil {
		return err
	}
	if db != "" && !g.root.PersistentFlags().Changed("db") && os.Getenv("MNEMO_DB") == "" {
		g.db = db
	}
	if v := os.Getenv("MNEMO_JOB_LEASE"); v != "" {
		// How long a job's claim lasts without a heartbeat (jobs.go);
		// every process sharing the database should use the same.
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return usagef("MNEMO_JOB_LEASE=%q: want a positive duration such as 2m", v)
		}
		cfg.JobLease = d
	}
	return g.prov.apply(ctx, cfg)
}

// printJSON writes v as indented JSON.
func (g *globals) printJSON(v any) error {
	enc := json.NewEncoder(g.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
