package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

// newObservationsCmd is `mnemo observations`: the bank's observations,
// newest first.
func newObservationsCmd(g *globals) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "observations",
		Short: "List the bank's observations (patterns consolidated from facts), newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engineWith(cmd, oneShot)
			if err != nil {
				return err
			}
			obs, err := eng.Observations(cmd.Context(), g.bank, limit)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewObservationList(obs))
			}
			if len(obs) == 0 {
				fmt.Fprintf(g.stdout, "no observations in bank %s\n", g.bank)
				return nil
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tKIND\tSTATUS\tEVIDENCE\tCREATED\tTEXT")
			for _, o := range obs {
				status, kind := o.StatusKind()
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", o.ID, kind, status, o.EvidenceCount, o.CreatedAt.Local().Format(time.DateTime), oneLine(o.Text))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 20, "how many observations to list (0: all)")
	return cmd
}
