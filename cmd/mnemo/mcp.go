package main

import (
	"log/slog"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/server/mcpserver"
	"github.com/spf13/cobra"
)

func newMCPCmd(g *globals) *cobra.Command {
	var approval bool
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve memory to an agent over MCP on stdin/stdout",
		Long: `Serve memory to an agent over the Model Context Protocol on stdin and
stdout, for clients that start mnemo themselves (Claude Desktop, Claude
Code, Cursor, …): tools retain (alias remember) and recall, over the
database of --db, in the bank of --bank unless a tool call names another.

With --require-approval, retain stores nothing until the user agrees:
clients that support elicitation ask the user; others get the text back
and must call again with confirm=true.

Stdout carries the protocol only; logs go to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// A long-running process: the background work (queued jobs,
			// idle sessions) stays on, as under import --watch.
			eng, err := g.engineWith(cmd, mnemo.Config{WarmRecall: true})
			if err != nil {
				return err
			}
			log := slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			srv := mcpserver.New(eng, mcpserver.Options{Bank: g.bank, RequireApproval: approval, Logger: log})
			return srv.Run(cmd.Context(), g.stdin, g.stdout)
		},
	}
	cmd.Flags().BoolVar(&approval, "require-approval", false, "ask the user before retain stores anything")
	return cmd
}
