package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

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
			if out == "" || out == "-" {
				bw := bufio.NewWriterSize(g.stdout, 1<<20)
				if err := eng.Export(cmd.Context(), g.bank, bw); err != nil {
					return err
				}
				return bw.Flush()
			}
			return writeAtomic(out, func(w io.Writer) error {
				bw := bufio.NewWriterSize(w, 1<<20)
				if err := eng.Export(cmd.Context(), g.bank, bw); err != nil {
					return err
				}
				return bw.Flush()
			})
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

// writeAtomic writes the file at path with write, through a temporary
// file beside it renamed over path once write and the sync succeed: a
// failed or interrupted write leaves path as it was (and no partial file).
func writeAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return memory.Errorf(memory.EINVALID, "create %s: %v", path, pathErr(err))
	}
	tmp := f.Name()
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o600) // an export is the bank: owner-only
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// importExport imports a bank export (mnemo export) from r: into
// --bank when the flag is given, else under the exported bank's name.
func (g *globals) importExport(cmd *cobra.Command, r io.Reader) error {
	eng, err := g.engine(cmd)
	if err != nil {
		return err
	}
	opts := mnemo.ImportBankOptions{}
	if g.root.PersistentFlags().Changed("bank") {
		opts.Bank = g.bank
	}
	rep, err := eng.ImportBank(cmd.Context(), r, opts)
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
