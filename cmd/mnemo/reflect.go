package main

import (
	"fmt"
	"strings"

	"github.com/mnemo-ai/mnemo/reflection"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

// newReflectCmd is `mnemo reflect QUESTION`: an answer from the bank's
// memory, reasoned by the configured LLM over recall and the source text.
func newReflectCmd(g *globals) *cobra.Command {
	var asOf string
	var steps, tokens int
	var trace bool
	cmd := &cobra.Command{
		Use:   "reflect QUESTION",
		Short: "Answer a question from memory with the LLM (an agentic loop over recall)",
		Long: `Answer a question from the bank's memory: the configured LLM (--llm) looks
things up with recall, observations, an entity's facts and a fact's source
text, as many times as the question needs, then answers with the ids of the
memories the answer rests on. The bank's disposition and mission shape how
it reasons (PATCH /v1/banks/{bank}). A question the bank pinned (mnemo standing
add) is answered from its fresh standing answer, with no LLM call.
See docs/reflect.md.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := reflection.Request{Question: strings.Join(args, " "), MaxSteps: steps, MaxTokens: tokens}
			if asOf != "" {
				t, err := wire.ParseTime(asOf)
				if err != nil {
					return err
				}
				req.AsOf = t
			}
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			res, err := eng.Reflect(cmd.Context(), g.bank, req)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewReflect(res))
			}
			fmt.Fprintln(g.stdout, res.Answer)
			if len(res.MemoryIDs) > 0 {
				fmt.Fprintf(g.stdout, "\nmemories: %s\n", strings.Join(res.MemoryIDs, ", "))
			}
			if trace {
				for i, s := range res.Trace {
					fmt.Fprintf(g.stderr, "%2d. %s %s", i+1, s.Tool, s.Arguments)
					if s.Error != "" {
						fmt.Fprintf(g.stderr, "  error: %s", s.Error)
					}
					fmt.Fprintln(g.stderr)
				}
			}
			if res.Standing {
				fmt.Fprintln(g.stderr, "(standing answer: no LLM call)")
			} else {
				fmt.Fprintf(g.stderr, "(%d LLM calls, %d+%d tokens)\n", res.Calls, res.InputTokens, res.OutputTokens)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&asOf, "as-of", "", "answer from what the bank knew then (RFC 3339 or YYYY-MM-DD)")
	cmd.Flags().IntVar(&steps, "max-steps", 0, fmt.Sprintf("model turns at most (0: %d)", reflection.DefaultMaxSteps))
	cmd.Flags().IntVar(&tokens, "max-tokens", 0, fmt.Sprintf("tokens at most over every call (0: %d)", reflection.DefaultMaxTokens))
	cmd.Flags().BoolVar(&trace, "trace", false, "print the tool calls to stderr")
	return cmd
}
