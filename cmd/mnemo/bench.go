package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/bench"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/spf13/cobra"
)

func newBenchCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "bench", Short: "Run a benchmark on a fresh temporary database"}
	var data, out string
	var keep bool
	locomo := &cobra.Command{
		Use:   "locomo",
		Short: "Retrieval quality on LoCoMo (MEM-RET v1 protocol): recall@k, hit@10, MRR per category",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if data == "" {
				return usagef("--data FILE is required (the LoCoMo JSON)")
			}
			ds, err := bench.LoadLoCoMo(data)
			if err != nil {
				return memory.Errorf(memory.EINVALID, "%s: %v", data, err)
			}
			eng, cleanup, err := g.benchEngine(cmd, keep)
			if err != nil {
				return err
			}
			defer cleanup()
			opts := bench.LoCoMoOptions{Progress: g.progress(g.stderr, "locomo")}
			if out != "" {
				f, err := os.Create(out)
				if err != nil {
					return memory.Errorf(memory.EINVALID, "create %s: %v", out, err)
				}
				defer f.Close()
				opts.RunFile = f
			}
			rep, err := bench.RunLoCoMo(cmd.Context(), eng, ds, opts)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(rep)
			}
			return rep.WriteText(g.stdout)
		},
	}
	locomo.Flags().StringVar(&data, "data", "", "LoCoMo JSON file (e.g. ../shared/data/locomo-dev.json)")
	locomo.Flags().StringVar(&out, "out", "", "write the run file (JSONL) here")
	var facts, queries int
	var seed int64
	var oneByOne bool
	synthetic := &cobra.Command{
		Use:   "synthetic",
		Short: "Ingest rate, recall latency and memory on a generated bank",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if facts <= 0 {
				return usagef("--facts must be positive")
			}
			eng, cleanup, err := g.benchEngine(cmd, keep)
			if err != nil {
				return err
			}
			defer cleanup()
			rep, err := bench.RunSynthetic(cmd.Context(), eng, bench.SyntheticOptions{
				Facts: facts, Seed: seed, Queries: queries, OneByOne: oneByOne, Progress: g.progress(g.stderr, "synthetic"),
			})
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(rep)
			}
			return rep.WriteText(g.stdout)
		},
	}
	synthetic.Flags().IntVar(&facts, "facts", bench.DefaultSyntheticFacts, "facts to generate")
	synthetic.Flags().IntVar(&queries, "queries", bench.DefaultSyntheticQueries, "recalls to time")
	synthetic.Flags().Int64Var(&seed, "seed", 1, "generator seed")
	synthetic.Flags().BoolVar(&oneByOne, "one-by-one", false, "retain documents one Retain call at a time instead of in bulk")
	cmd.PersistentFlags().BoolVar(&keep, "keep", false, "keep the benchmark database (its path is printed)")
	cmd.AddCommand(locomo, synthetic)
	return cmd
}

// benchEngine opens an engine on a new database in a temporary directory
// (benchmarks never touch the user's memory) with access recording off,
// so a run's results do not depend on the timing of earlier recalls, and
// with the providers the flags name.
func (g *globals) benchEngine(cmd *cobra.Command, keep bool) (*mnemo.Engine, func(), error) {
	dir, err := os.MkdirTemp("", "mnemo-bench-")
	if err != nil {
		return nil, nil, err
	}
	path := filepath.Join(dir, "bench.db")
	// The providers the flags name (--embed, --llm, --rerank) apply; the
	// database is always the temporary one.
	cfg := mnemo.Config{AccessFlush: -1, JobPoll: -1}
	err = g.configure(cmd.Context(), &cfg)
	var eng *mnemo.Engine
	if err == nil {
		cfg.DB = path
		eng, err = mnemo.Open(cmd.Context(), cfg)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return eng, func() {
		eng.Close()
		if keep {
			fmt.Fprintln(g.stderr, "benchmark database kept at", path)
			return
		}
		os.RemoveAll(dir)
	}, nil
}
