package main

import (
	"fmt"

	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

func newBankCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "bank", Short: "Create, list and delete memory banks"}
	cmd.AddCommand(&cobra.Command{
		Use:   "create NAME",
		Short: "Create a bank",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			b, err := eng.CreateBank(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewBank(b))
			}
			fmt.Fprintf(g.stdout, "created bank %s\n", b.Name)
			return nil
		},
	}, &cobra.Command{
		Use:   "list",
		Short: "List banks",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			banks, err := eng.Banks(cmd.Context())
			if err != nil {
				return err
			}
			if g.json {
				out := make([]wire.Bank, 0, len(banks))
				for _, b := range banks {
					out = append(out, wire.NewBank(b))
				}
				return g.printJSON(wire.BankList{Banks: out})
			}
			for _, b := range banks {
				if b.Settings.Restoring {
					// A bank an import is filling, or left incomplete.
					fmt.Fprintf(g.stdout, "%s (incomplete: import running or interrupted)\n", b.Name)
					continue
				}
				fmt.Fprintln(g.stdout, b.Name)
			}
			return nil
		},
	}, &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a bank and everything in it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			if err := eng.DeleteBank(cmd.Context(), args[0]); err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.Deleted{Deleted: args[0]})
			}
			fmt.Fprintf(g.stdout, "deleted bank %s\n", args[0])
			return nil
		},
	})
	return cmd
}
