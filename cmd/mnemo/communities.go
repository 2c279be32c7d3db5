package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

// newCommunitiesCmd is `mnemo communities`: the bank's entity
// communities, the most members first.
func newCommunitiesCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "communities",
		Short: "List the bank's entity communities (clusters found by the communities pass), the most members first",
		Long: `List the bank's entity communities, the most members first: clusters of
entities mentioned together and related more among themselves than with the
rest, found by the communities pass of consolidation ("mnemo consolidate
--pass communities", or a full run). Each has its members, its
representatives (promoted to L2 when old enough), and with an LLM a name and
a one-paragraph summary (docs/consolidation.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engineWith(cmd, oneShot)
			if err != nil {
				return err
			}
			cs, err := eng.Communities(cmd.Context(), g.bank)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewCommunityList(cs))
			}
			if len(cs) == 0 {
				fmt.Fprintf(g.stdout, "no communities in bank %s (run: mnemo consolidate --pass communities)\n", g.bank)
				return nil
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tMEMBERS\tUPDATED\tNAME\tSUMMARY")
			for _, c := range cs {
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", c.ID, len(c.Members), c.UpdatedAt.Local().Format(time.DateTime), oneLine(c.Name), oneLine(c.Summary))
			}
			return tw.Flush()
		},
	}
}
