package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newExportCmd(g *globals) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "export [--out FILE]",
		Short: "Write a bank, whole, as JSONL (for mnemo import into any store)",
		Long: `Write everything --bank holds as JSON lines: the bank, documents and
chunks, facts with embeddings and lifecycle, entities with aliases and
counts, refs, co-occurrences, relations, links and watermarks.

mnemo import reads it back into any store, SQLite or PostgreSQL, as a
new bank (its own name, or --bank):

  mnemo export --bank alice --db memory.db --out alice.jsonl
  mnemo import alice.jsonl --db postgres://localhost/mnemo

The file begins with a header naming the format version; docs/export.md
describes the format. Without --out (or -o, --output) it goes to stdout.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			var w io.Writer = g.stdout
			var f *os.File
			if out != "" && out != "-" {
				if f, err = os.Create(out); err != nil {
					return memory.Errorf(memory.EINVALID, "create %s: %v", out, err)
				}
				defer f.Close()
				w = f
			}
			bw := bufio.NewWriterSize(w, 1<<20)
			if err := eng.Export(cmd.Context(), g.bank, bw); err != nil {
				return err
			}
			if err := bw.Flush(); err != nil {
				return err
			}
			if f != nil {
				return f.Close()
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "write to this file instead of stdout (also --output)")
	// --output is the flag's first spelling: an alias of --out, so both
	// keep working.
	cmd.Flags().SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "output" {
			name = "out"
		}
		return pflag.NormalizedName(name)
	})
	return cmd
}

// importExport imports a bank export (mnemo export) from path: into
// --bank when the flag is given, else under the exported bank's name.
func (g *globals) importExport(cmd *cobra.Command, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return memory.Errorf(memory.EINVALID, "open %s: %v", path, err)
	}
	defer f.Close()
	eng, err := g.engine(cmd)
	if err != nil {
		return err
	}
	opts := mnemo.ImportBankOptions{}
	if g.root.PersistentFlags().Changed("bank") {
		opts.Bank = g.bank
	}
	rep, err := eng.ImportBank(cmd.Context(), bufio.NewReaderSize(f, 1<<20), opts)
	if err != nil {
		return err
	}
	if g.json {
		return g.printJSON(wire.ImportBank{Bank: rep.Bank, Records: rep.Records, Counts: rep.Counts})
	}
	fmt.Fprintf(g.stdout, "imported bank %s: %d records (%d documents, %d facts, %d entities, %d relations, %d links)\n",
		rep.Bank, rep.Records, rep.Counts[memory.RecordDocument], rep.Counts[memory.RecordFact], rep.Counts[memory.RecordEntity],
		rep.Counts[memory.RecordRelation], rep.Counts[memory.RecordLink])
	return nil
}
