package main

import (
	"fmt"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/spf13/cobra"
)

type bankJSON struct {
	Name      string    `json:"name"`
	Embedder  string    `json:"embedder,omitempty"`
	Dimension int       `json:"dimension,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

func toBankJSON(b *memory.Bank) bankJSON {
	return bankJSON{Name: b.Name, Embedder: b.Embedder, Dimension: b.Dimension, CreatedAt: b.CreatedAt}
}

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
				return g.printJSON(toBankJSON(b))
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
				out := make([]bankJSON, 0, len(banks))
				for _, b := range banks {
					out = append(out, toBankJSON(b))
				}
				return g.printJSON(map[string]any{"banks": out})
			}
			for _, b := range banks {
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
				return g.printJSON(map[string]any{"deleted": args[0]})
			}
			fmt.Fprintf(g.stdout, "deleted bank %s\n", args[0])
			return nil
		},
	})
	return cmd
}
