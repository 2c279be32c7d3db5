package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/hooks"
	"github.com/spf13/cobra"
)

// hookLogEnv names the file hooks log their failures to.
const hookLogEnv = "MNEMO_HOOK_LOG"

// newHookCmd is `mnemo hook HARNESS EVENT`: one event of an agent
// harness's hooks, its JSON on stdin.
func newHookCmd(g *globals) *cobra.Command {
	o := hooks.Options{PerProject: true}
	var logPath string
	cmd := &cobra.Command{
		Use:   "hook HARNESS EVENT",
		Short: "Handle an agent harness's hook event (JSON on stdin): context in, transcript out",
		Long: `Handle one hook event of an agent harness: the event's JSON on stdin, what
the harness expects on stdout. Harnesses and events:

  claude-code  SessionStart (the memory context), UserPromptSubmit (the
               memories relevant to the prompt, nothing when none is),
               PreCompact, Stop, SessionEnd (retain the transcript: only
               what it gained since the last time)
  gemini-cli   SessionStart, BeforeAgent
  codex        SessionStart, UserPromptSubmit

The bank is --bank, else $MNEMO_BANK, else one per repository (named after
the repository's folder; --per-project=false uses the default bank). The
repository's name is the context's scope: directives added with --scope
NAME apply there.

A hook never gets in the agent's way: each event has a time limit, and on
any error or timeout it prints nothing, exits 0 and logs one line to
$MNEMO_HOOK_LOG (default ~/.local/state/mnemo/hooks.log). "mnemo install"
writes these hooks into a harness's settings.`,
		Example: `  echo '{"hook_event_name":"SessionStart","cwd":"'$PWD'"}' | mnemo hook claude-code SessionStart`,
		Args:    cobra.ArbitraryArgs,
		// A harness must never see a usage error: nothing is refused
		// before RunE, which always succeeds.
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 2 {
				o.Harness, o.Event = args[0], args[1]
			}
			o.Stdin, o.Stdout, o.Getenv = g.stdin, g.stdout, os.Getenv
			o.Dir, _ = os.Getwd()
			if cmd.Flags().Changed("bank") || cmd.Root().PersistentFlags().Changed("bank") {
				o.Bank = g.bank
			}
			o.Open = func(ctx context.Context) (hooks.Engine, func() error, error) {
				cfg := oneShot
				if err := g.configure(ctx, &cfg); err != nil {
					return nil, nil, err
				}
				if err := checkDB(cmd, g.db); err != nil {
					return nil, nil, err
				}
				cfg.DB = g.db
				eng, err := mnemo.Open(ctx, cfg)
				if err != nil {
					return nil, nil, err
				}
				return eng, eng.Close, nil
			}
			var err error
			if len(args) != 2 {
				err = fmt.Errorf("want HARNESS EVENT, got %d arguments", len(args))
			} else {
				err = hooks.Run(cmd.Context(), o)
			}
			if err != nil {
				logHookFailure(logPath, args, err)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.PerProject, "per-project", true, "without --bank or $MNEMO_BANK, use one bank per repository (else the default bank)")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", 0, "time limit of the event (default: 5s for a session's context, 3s for a prompt, 60s to retain)")
	cmd.Flags().IntVar(&o.Budget, "budget", 0, fmt.Sprintf("token budget of what is injected (default %d at a session's start, %d for a prompt)", hooks.DefaultSessionBudget, hooks.DefaultPromptBudget))
	cmd.Flags().Float64Var(&o.MinSimilarity, "min-similarity", 0, fmt.Sprintf("relevance floor of a prompt's memories (default %.2f)", hooks.DefaultMinSimilarity))
	cmd.Flags().StringVar(&logPath, "log", "", "log file of failures (default $"+hookLogEnv+", else ~/.local/state/mnemo/hooks.log)")
	return cmd
}

// logHookFailure appends one line about a failed hook to the hook log;
// if even that fails, the failure is dropped: a hook never fails.
func logHookFailure(path string, args []string, err error) {
	if path == "" {
		path = os.Getenv(hookLogEnv)
	}
	if path == "" {
		dir := os.Getenv("XDG_STATE_HOME")
		if dir == "" {
			home, herr := os.UserHomeDir()
			if herr != nil {
				return
			}
			dir = filepath.Join(home, ".local", "state")
		}
		path = filepath.Join(dir, "mnemo", "hooks.log")
	}
	if os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return
	}
	f, ferr := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if ferr != nil {
		return
	}
	defer f.Close()
	msg := strings.Join(strings.Fields(err.Error()), " ")
	io.WriteString(f, fmt.Sprintf("%s mnemo hook %s: %s\n", time.Now().UTC().Format(time.RFC3339), strings.Join(args, " "), msg))
}
