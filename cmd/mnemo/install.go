package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mnemo-ai/mnemo/hooks"
	"github.com/spf13/cobra"
)

// newInstallCmd is `mnemo install HARNESS [--project] [--uninstall]`.
func newInstallCmd(g *globals) *cobra.Command {
	var project, uninstall bool
	var dir string
	cmd := &cobra.Command{
		Use:   "install HARNESS",
		Short: "Write mnemo's hooks and MCP server into an agent harness's settings (claude-code, gemini-cli, codex)",
		Long: `Write mnemo's hooks ("mnemo hook HARNESS EVENT" for every event it handles)
and its MCP server ("mnemo mcp") into a harness's settings, for the user
(default) or, with --project, for the project in --dir (default: here):

  claude-code  ~/.claude/settings.json (hooks), ~/.claude.json (MCP);
               --project: .claude/settings.json and .mcp.json
  gemini-cli   ~/.gemini/settings.json (hooks and MCP); --project: .gemini/
  codex        ~/.codex/hooks.json (hooks), ~/.codex/config.toml (the MCP
               server, and the codex_hooks feature that enables hooks)

Every other setting is kept. Running it again changes nothing. Before the
first change a copy of each file is kept beside it (FILE.mnemo-backup);
--uninstall puts it back byte for byte (or, if the file changed since,
takes out only mnemo's entries). --db and --bank given to install are
passed on to the hooks and the MCP server. With --project and no --bank,
the MCP server gets the repository's bank, the one its hooks use.`,
		Example: `  mnemo install claude-code
  mnemo install gemini-cli --project
  mnemo install claude-code --uninstall`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := os.UserHomeDir()
			if err != nil && !project {
				return err
			}
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			if dir == "" {
				if dir, err = os.Getwd(); err != nil {
					return err
				}
			}
			if dir, err = filepath.Abs(dir); err != nil {
				return err
			}
			o := hooks.InstallOptions{Harness: args[0], Scope: hooks.ScopeUser, Home: home, Project: dir, Command: exe}
			if project {
				o.Scope = hooks.ScopeProject
			}
			if f := cmd.Root().PersistentFlags().Lookup("db"); f != nil && f.Changed {
				db := g.db
				if !strings.Contains(db, "://") {
					if db, err = filepath.Abs(db); err != nil {
						return err
					}
				}
				o.Args = append(o.Args, "--db", db)
			}
			if f := cmd.Root().PersistentFlags().Lookup("bank"); f != nil && f.Changed {
				o.Args = append(o.Args, "--bank", g.bank)
			} else if project {
				// The hooks use the repository's bank: so does the MCP
				// server of this project.
				o.MCPArgs = []string{"--bank", hooks.ProjectBank(hooks.ProjectRoot(dir))}
			}
			run := hooks.Install
			if uninstall {
				run = hooks.Uninstall
			}
			changes, err := run(o)
			if g.json && err == nil {
				return g.printJSON(map[string]any{"harness": args[0], "changes": changes})
			}
			for _, c := range changes {
				line := fmt.Sprintf("%-9s %s", c.Action, c.Path)
				if c.Backup != "" {
					line += " (backup: " + c.Backup + ")"
				}
				fmt.Fprintln(g.stdout, line)
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&project, "project", false, "write the project's settings (in --dir) instead of the user's")
	cmd.Flags().StringVar(&dir, "dir", "", "the project folder for --project (default: the current folder)")
	cmd.Flags().BoolVar(&uninstall, "uninstall", false, "take mnemo out again: restore the files as they were before install")
	return cmd
}
