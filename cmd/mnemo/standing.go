package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

// newStandingCmd is `mnemo standing add|list|rm`: the bank's pinned
// questions, whose answers consolidation keeps fresh.
func newStandingCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "standing",
		Short: "Pin questions whose answers consolidation keeps fresh (standing answers)",
		Long: `A bank can pin questions ("What does the user prefer for breakfast?"). The
standing consolidation pass (mnemo consolidate --pass standing; it needs an
LLM) answers each one, and answers it again only when its evidence changes;
while an answer is fresh, mnemo reflect and mnemo recall of that question
return it first, with no LLM call. See docs/reflect.md.`,
	}
	add := &cobra.Command{
		Use:   "add QUESTION",
		Short: "Pin a question",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			q, err := eng.PinQuestion(cmd.Context(), g.bank, strings.Join(args, " "))
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewStanding(q))
			}
			fmt.Fprintf(g.stdout, "pinned %s: %s\n", q.ID, q.Question)
			return nil
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the pinned questions with their answers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			qs, err := eng.StandingQuestions(cmd.Context(), g.bank)
			if err != nil {
				return err
			}
			if g.json {
				out := wire.StandingList{Questions: []wire.Standing{}}
				for _, q := range qs {
					out.Questions = append(out.Questions, wire.NewStandingStatus(q.StandingQuestion, q.Stale))
				}
				return g.printJSON(out)
			}
			if len(qs) == 0 {
				fmt.Fprintf(g.stdout, "no pinned questions in bank %s\n", g.bank)
				return nil
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tQUESTION\tANSWERED\tFRESH\tANSWER")
			for _, q := range qs {
				answered, fresh := "never", "yes"
				if !q.AnsweredAt.IsZero() {
					answered = q.AnsweredAt.Local().Format(time.DateTime)
				}
				if q.Stale != "" {
					fresh = "no: " + q.Stale
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", q.ID, oneLine(q.Question), answered, fresh, oneLine(q.Answer))
			}
			return tw.Flush()
		},
	}
	rm := &cobra.Command{
		Use:   "rm ID|QUESTION",
		Short: "Unpin a question (by id or by its text)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			q, err := eng.UnpinQuestion(cmd.Context(), g.bank, strings.Join(args, " "))
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewStanding(q))
			}
			fmt.Fprintf(g.stdout, "unpinned %s: %s\n", q.ID, q.Question)
			return nil
		},
	}
	cmd.AddCommand(add, list, rm)
	return cmd
}
