package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

// newDreamsCmd is `mnemo dreams`: the bank's dreams, newest first.
func newDreamsCmd(g *globals) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "dreams",
		Short: "List the bank's dreams (cross-domain insights of the dream pass), newest first",
		Long: `List the bank's dreams, newest first: the insights the dream pass found
between unrelated clusters of facts, each with its bridge (the connection,
in a few words). Dreams are never part of recall. The dream pass is off by
default and needs an LLM (docs/consolidation.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 {
				return usagef("--limit %d: want 0 (all) or more", limit)
			}
			eng, err := g.engineWith(cmd, oneShot)
			if err != nil {
				return err
			}
			ds, err := eng.Dreams(cmd.Context(), g.bank, limit)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewDreamList(ds))
			}
			if len(ds) == 0 {
				fmt.Fprintf(g.stdout, "no dreams in bank %s\n", g.bank)
				return nil
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tCREATED\tBRIDGE\tINSIGHT")
			for _, d := range ds {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.ID, d.CreatedAt.Local().Format(time.DateTime), oneLine(d.Bridge), oneLine(d.Insight))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 20, "how many dreams to list (0: all)")
	return cmd
}
