package main

import (
	"fmt"

	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

// newRestoreCmd is `mnemo restore ID...`: archived facts and observations
// back into recall.
func newRestoreCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "restore ID...",
		Short: "Bring archived facts and observations back into recall",
		Long: `Bring archived facts and observations back into recall by id: those the
archival pass took out (old, consolidated, unused), and facts taken out by
"mnemo facts invalidate". Each id may name a fact or an observation; all
or nothing: an id that names neither changes nothing. A restored fact or
observation counts one access, so the next archival leaves it be.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			r, err := eng.RestoreArchived(cmd.Context(), g.bank, args)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewRestored(r.Facts, r.Observations))
			}
			fmt.Fprintf(g.stdout, "restored %d facts and %d observations (of %d ids)\n", len(r.Facts), len(r.Observations), len(args))
			return nil
		},
	}
}
