package main

import (
	"io"

	"github.com/mnemo-ai/mnemo"
	"github.com/spf13/cobra"
)

// newContextCmd is `mnemo context`: the bank's memory context for the
// start of a session, or for one prompt with --query.
func newContextCmd(g *globals) *cobra.Command {
	var req mnemo.ContextRequest
	cmd := &cobra.Command{
		Use:   "context",
		Short: "Print the memory context for a session's system prompt, within a token budget",
		Long: `Print what an agent should know at the start of a session, ready for its
system prompt: the bank's memory blocks, the directives that apply to the
--scope given (and those that apply everywhere), the observations that
matter most (by evidence, use and how recent they are) and, with --query,
the memories relevant to the query with what they said before.

--budget is a hard cap in tokens (4 bytes a token, as recall counts): a
section that does not fit is cut between two items or left out, never in
the middle of one. Directives take the budget first, then the blocks, the
query's memories and the observations; they are shown in the order
blocks, directives, observations, memories. --format is text (the
default), markdown or json; --json is --format json.`,
		Example: `  mnemo context --bank alice
  mnemo context --bank alice --query "what should I cook tonight?" --budget 800
  mnemo context --bank work --scope mnemo --format markdown`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if g.json && !cmd.Flags().Changed("format") {
				req.Format = "json"
			}
			eng, err := g.engineWith(cmd, oneShot)
			if err != nil {
				return err
			}
			res, err := eng.Context(cmd.Context(), g.bank, req)
			if err != nil {
				return err
			}
			_, err = io.WriteString(g.stdout, res.Text)
			return err
		},
	}
	cmd.Flags().StringVarP(&req.Query, "query", "q", "", "add the memories relevant to this query or prompt")
	cmd.Flags().IntVar(&req.Budget, "budget", mnemo.DefaultContextBudget, "token budget: the context never exceeds it")
	cmd.Flags().StringVar(&req.Format, "format", "text", "text, markdown or json")
	cmd.Flags().StringArrayVar(&req.Scopes, "scope", nil, "the scope of the session (a project, a task type); repeat for several")
	return cmd
}
