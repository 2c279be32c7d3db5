package main

import (
	"fmt"

	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

func newStatsCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "stats",
		Short: "Count what a bank holds",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			st, err := eng.Stats(cmd.Context(), g.bank)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewStats(g.bank, st))
			}
			fmt.Fprintf(g.stdout, "bank %s\n  documents  %d\n  chunks     %d\n  facts      %d (%d active, %d superseded, %d archived)\n  entities   %d\n  relations  %d\n  links      %d\n",
				g.bank, st.Documents, st.Chunks, st.Facts, st.Active, st.Superseded, st.Archived, st.Entities, st.Relations, st.Links)
			if st.Quarantined > 0 || st.Redacted > 0 {
				fmt.Fprintf(g.stdout, "  firewall   %d facts with a secret masked, %d held back as instructions (mnemo facts list --status quarantined)\n", st.Redacted, st.Quarantined)
			}
			return nil
		},
	}
}
