package main

import (
	"fmt"

	"github.com/mnemo-ai/mnemo/bench"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/spf13/cobra"
)

// newBenchGenCmd is `mnemo bench gen`: it writes the generated large
// inputs of the memory measurements (docs/scale.md).
func newBenchGenCmd(g *globals) *cobra.Command {
	var mb float64
	var seed int64
	var sessions int
	var out string
	cmd := &cobra.Command{
		Use:   "gen doc|locomo",
		Short: "Write a generated large input: one plain-text document, or a LoCoMo-shaped conversation file",
		Long: `Write a generated large input of about --mb megabytes (10^6 bytes).

  doc:     one plain-text document of paragraphs of sentences naming
           people, places, organisations, dates and numbers; retain it
           with mnemo retain - < FILE.
  locomo:  a LoCoMo-shaped JSON list of conversations (--sessions
           sessions each, a few dozen turns a session); import it with
           mnemo import FILE.

The same size and --seed give the same bytes.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if mb <= 0 {
				return usagef("--mb must be positive")
			}
			if out == "" {
				return usagef("--out FILE is required")
			}
			size := int(mb * 1e6)
			f, err := createPrivateFile(out)
			if err != nil {
				return memory.Errorf(memory.EINVALID, "create %s: %v", out, pathErr(err))
			}
			defer f.Close()
			var n int
			switch args[0] {
			case "doc":
				n, err = bench.WriteDocument(f, size, seed)
			case "locomo":
				n, err = bench.WriteConversations(f, size, sessions, seed)
			default:
				return usagef("unknown input %q: use doc or locomo", args[0])
			}
			if err != nil {
				return fmt.Errorf("write %s: %w", out, err)
			}
			if err := f.Close(); err != nil {
				return fmt.Errorf("write %s: %w", out, err)
			}
			fmt.Fprintf(g.stdout, "wrote %d bytes to %s\n", n, out)
			return nil
		},
	}
	cmd.Flags().Float64Var(&mb, "mb", 5, "about how many megabytes to write")
	cmd.Flags().Int64Var(&seed, "seed", 1, "generator seed")
	cmd.Flags().IntVar(&sessions, "sessions", 30, "locomo: sessions per conversation")
	cmd.Flags().StringVar(&out, "out", "", "the file to write")
	return cmd
}
