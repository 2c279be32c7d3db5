package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/bench"
	"github.com/mnemo-ai/mnemo/importer"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/postgres"
	"github.com/mnemo-ai/mnemo/store/sqlite"
	"github.com/spf13/cobra"
)

func newBenchCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "bench", Short: "Run a benchmark on a fresh temporary database"}
	var data, out string
	var keep bool
	var consolidatePasses []string
	locomo := &cobra.Command{
		Use:   "locomo",
		Short: "Retrieval quality on LoCoMo (MEM-RET v1 protocol): recall@k, hit@10, MRR per category",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if data == "" {
				return usagef("--data FILE is required (the LoCoMo JSON)")
			}
			ds, err := importer.LoadLoCoMo(data)
			if err != nil {
				return memory.Errorf(memory.EINVALID, "%s: %v", data, err)
			}
			eng, _, cleanup, err := g.benchEngine(cmd, keep)
			if err != nil {
				return err
			}
			defer cleanup()
			opts := bench.LoCoMoOptions{Progress: g.progress(g.stderr, "locomo"), Consolidate: consolidatePasses}
			if out != "" {
				f, err := createPrivateFile(out)
				if err != nil {
					return memory.Errorf(memory.EINVALID, "create %s: %v", out, pathErr(err))
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
	locomo.Flags().StringSliceVar(&consolidatePasses, "consolidate", nil, "consolidation passes to run on each bank after retaining it, before the queries (e.g. merge)")
	var facts, queries int
	var seed int64
	var oneByOne, startup bool
	var cpuProfile, memProfile string
	synthetic := &cobra.Command{
		Use:   "synthetic",
		Short: "Ingest rate, recall latency, memory and vector recall@10 on a generated bank",
		Long: "Ingest rate, recall latency, memory and vector recall@10 on a generated bank.\n" +
			"With --startup, the bank is then opened by a new process (mnemo bench startup) that\n" +
			"times its first recall, then the recalls once its index is built, and its memory.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if facts <= 0 {
				return usagef("--facts must be positive")
			}
			eng, path, cleanup, err := g.benchEngine(cmd, keep || startup)
			if err != nil {
				return err
			}
			defer func() {
				if cleanup != nil {
					cleanup()
				}
			}()
			var stopProfile func()
			defer func() {
				if stopProfile != nil {
					stopProfile()
				}
			}()
			opts := bench.SyntheticOptions{
				Facts: facts, Seed: seed, Queries: queries, OneByOne: oneByOne, Progress: g.progress(g.stderr, "synthetic"),
				RestWait: restWait,
			}
			if cpuProfile != "" {
				// The recalls are profiled, not the ingest.
				opts.BeforeRecalls = func() {
					f, err := createPrivateFile(cpuProfile)
					if err != nil {
						fmt.Fprintln(g.stderr, "cpu profile:", err)
						return
					}
					if err := pprof.StartCPUProfile(f); err != nil {
						fmt.Fprintln(g.stderr, "cpu profile:", err)
						f.Close()
						return
					}
					stopProfile = func() { pprof.StopCPUProfile(); f.Close() }
				}
			}
			rep, err := bench.RunSynthetic(cmd.Context(), eng, opts)
			if err != nil {
				return err
			}
			if stopProfile != nil {
				stopProfile()
				stopProfile = nil
			}
			if memProfile != "" {
				if err := writeHeapProfile(memProfile); err != nil {
					return err
				}
			}
			var st *startupReport
			if startup {
				cleanup()
				cleanup = nil
				if st, err = g.runStartup(cmd.Context(), path, seed, queries); err != nil {
					return err
				}
				if !keep {
					os.RemoveAll(filepath.Dir(path))
				}
			}
			if g.json {
				if st != nil {
					return g.printJSON(struct {
						*bench.SyntheticReport
						Startup *startupReport `json:"startup"`
					}{rep, st})
				}
				return g.printJSON(rep)
			}
			if err := rep.WriteText(g.stdout); err != nil {
				return err
			}
			if st != nil {
				return st.writeText(g)
			}
			return nil
		},
	}
	synthetic.Flags().IntVar(&facts, "facts", bench.DefaultSyntheticFacts, "facts to generate")
	synthetic.Flags().IntVar(&queries, "queries", bench.DefaultSyntheticQueries, "recalls to time")
	synthetic.Flags().Int64Var(&seed, "seed", 1, "generator seed")
	synthetic.Flags().BoolVar(&oneByOne, "one-by-one", false, "retain documents one Retain call at a time instead of in bulk")
	synthetic.Flags().BoolVar(&startup, "startup", false, "then time a new process's first recall on the bank (mnemo bench startup)")
	synthetic.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the recalls here")
	synthetic.Flags().StringVar(&memProfile, "memprofile", "", "write a heap profile taken after the run here")

	var suBank string
	var noIndexFile bool
	startupCmd := &cobra.Command{
		Use:   "startup",
		Short: "Time a fresh process's first recall on an existing bank (--db), then its steady recalls and memory",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if noIndexFile {
				// The first recall then loads the bank from its rows.
				if err := os.RemoveAll(sqlite.IndexDir(g.db)); err != nil {
					return err
				}
			}
			rep, err := g.startup(cmd, suBank, seed, queries, cpuProfile, memProfile)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(rep)
			}
			return rep.writeText(g)
		},
	}
	startupCmd.Flags().StringVar(&suBank, "synthetic-bank", bench.DefaultSyntheticBank, "bank to recall from")
	startupCmd.Flags().Int64Var(&seed, "seed", 1, "seed of the synthetic queries")
	startupCmd.Flags().IntVar(&queries, "queries", bench.DefaultSyntheticQueries, "recalls to time after the first")
	startupCmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the open and the first recall here")
	startupCmd.Flags().StringVar(&memProfile, "memprofile", "", "write a heap profile taken after the recalls here")
	startupCmd.Flags().BoolVar(&noIndexFile, "no-index-file", false, "remove the banks' index files beside --db first, so the first recall loads from the rows")
	cmd.PersistentFlags().BoolVar(&keep, "keep", false, "keep the benchmark database (its path is printed)")
	cmd.PersistentFlags().String("db-url", "", "run on this PostgreSQL database (postgres://…), in a new schema dropped afterwards, instead of a temporary SQLite file")
	cmd.AddCommand(locomo, synthetic, startupCmd, newBenchServeCmd(g), newBenchConsolidateCmd(g),
		newBenchQACmd(g), newBenchGenCmd(g))
	return cmd
}

func writeHeapProfile(path string) error {
	f, err := createPrivateFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	runtime.GC()
	return pprof.WriteHeapProfile(f)
}

// restWait is how long a benchmark idles after its recalls before it
// reads the RSS "at rest": longer than the command's memory limit takes
// to settle (memSettle, 1 s) and the store's idle release of SQLite's
// writer cache (sqlite.DefaultWriterIdle, 2 s).
const restWait = 3 * time.Second

// startupReport is what mnemo bench startup measures in its own process.
type startupReport struct {
	// ProcessMS is the time from the process's start (exec) to its first
	// answer, to the 10 ms of the kernel's clock; 0 without /proc.
	ProcessMS float64 `json:"process_ms,omitempty"`
	// ProcessCPUMS is the CPU time (user and system, every thread) the
	// process spent up to its first answer, to the 10 ms of the kernel's
	// clock: on a shared machine, what the wall times cannot say; 0
	// without /proc.
	ProcessCPUMS float64 `json:"process_cpu_ms,omitempty"`
	// OpenMS is mnemo.Open; FirstRecallMS the first recall after it, which
	// loads the bank's search index.
	OpenMS        float64 `json:"open_ms"`
	FirstRecallMS float64 `json:"first_recall_ms"`
	// IndexWaitMS is the wait, after the first recall, for the background
	// graph build; RecallMS the recalls after it.
	IndexWaitMS float64       `json:"index_wait_ms"`
	RecallMS    bench.Latency `json:"recall_ms"`
	RSSMB       float64       `json:"rss_mb"`
	PeakRSSMB   float64       `json:"peak_rss_mb"`
	// RestRSSMB is the RSS after restWait of idling after the recalls.
	RestRSSMB float64 `json:"rest_rss_mb"`
	// HeapMB is the Go heap in use at the end (the rest of the RSS is
	// SQLite's page caches, the runtime, and heap not yet returned).
	HeapMB float64 `json:"heap_mb"`
	// Memory is where the RSS goes, read with it.
	Memory bench.Memory `json:"memory"`
	// ANNRecall10 is the mean share of the exact 10 nearest facts the
	// vector index found for the queries after the recalls (0: the
	// search is exact), as bench synthetic reports it.
	ANNRecall10 float64 `json:"ann_recall_at_10,omitempty"`
}

func (r *startupReport) writeText(g *globals) error {
	_, err := fmt.Fprintf(g.stdout, "startup (new process): open %.1f ms, first recall %.1f ms", r.OpenMS, r.FirstRecallMS)
	if err == nil && r.ProcessMS > 0 {
		_, err = fmt.Fprintf(g.stdout, ", process start to first answer %.0f ms (%.0f ms of CPU)", r.ProcessMS, r.ProcessCPUMS)
	}
	if err == nil {
		_, err = fmt.Fprintf(g.stdout, "\nstartup then: index ready +%.0f ms, recall p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, rss %.1f MB (%.1f MB at rest; peak %.1f MB, Go heap in use %.1f MB)\n",
			r.IndexWaitMS, r.RecallMS.P50, r.RecallMS.P95, r.RecallMS.P99, r.RSSMB, r.RestRSSMB, r.PeakRSSMB, r.HeapMB)
	}
	if err == nil && r.ANNRecall10 > 0 {
		_, err = fmt.Fprintf(g.stdout, "startup index: vector recall@10 %.3f against exact\n", r.ANNRecall10)
	}
	if err == nil {
		_, err = fmt.Fprint(g.stdout, "startup memory: ")
	}
	if err == nil {
		err = r.Memory.WriteText(g.stdout)
	}
	return err
}

// startup opens the engine on --db, times its first recall of the bank,
// waits for the store's background index and times the synthetic queries.
func (g *globals) startup(cmd *cobra.Command, bank string, seed int64, queries int, cpuProfile, memProfile string) (*startupReport, error) {
	ctx := cmd.Context()
	stopProfile := func() {}
	if cpuProfile != "" {
		f, err := createPrivateFile(cpuProfile)
		if err != nil {
			return nil, memory.Errorf(memory.EINVALID, "create %s: %v", cpuProfile, err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		// The open and the first recall are profiled, not what follows.
		stopped := false
		stopProfile = func() {
			if !stopped {
				pprof.StopCPUProfile()
				stopped = true
			}
		}
		defer stopProfile()
	}
	cfg := mnemo.Config{AccessFlush: -1, JobPoll: -1, WarmRecall: true}
	if err := g.configure(ctx, &cfg); err != nil {
		return nil, err
	}
	cfg.DB = g.db
	if _, err := os.Stat(cfg.DB); err != nil {
		return nil, memory.Errorf(memory.EINVALID, "no database at %s: run mnemo bench synthetic --keep first", cfg.DB)
	}
	rep := &startupReport{}
	t := time.Now()
	eng, err := mnemo.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	rep.OpenMS = millisSince(t)
	qs := bench.SyntheticQueries(max(queries, 1)+1, seed)
	now := time.Now()
	t = time.Now()
	if _, err := eng.Recall(ctx, memory.Query{BankID: bank, Text: qs[0], Limit: bench.SyntheticLimit, Now: now}); err != nil {
		return nil, err
	}
	rep.FirstRecallMS = millisSince(t)
	rep.ProcessMS, rep.ProcessCPUMS = processAge(), processCPU()
	stopProfile()
	t = time.Now()
	if err := eng.WaitIndexed(ctx, bank); err != nil {
		return nil, err
	}
	rep.IndexWaitMS = millisSince(t)
	lat := make([]time.Duration, 0, queries)
	for _, q := range qs[1:] {
		t := time.Now()
		if _, err := eng.Recall(ctx, memory.Query{BankID: bank, Text: q, Limit: bench.SyntheticLimit, Now: now}); err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(t))
	}
	rep.RecallMS = bench.Percentiles(lat)
	rep.RSSMB, rep.PeakRSSMB = bench.MemoryUse()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rep.HeapMB = float64(ms.HeapInuse) / (1 << 20)
	rep.Memory = bench.ReadMemory()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(restWait):
	}
	rep.RestRSSMB, _ = bench.MemoryUse()
	// After the memory is read: the exact searches scan every vector.
	if rep.ANNRecall10, _, err = eng.VectorIndexRecall(ctx, bank, qs[1:], 10); err != nil {
		return nil, err
	}
	if memProfile != "" {
		if err := writeHeapProfile(memProfile); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// runStartup runs mnemo bench startup on path in a new process, with the
// default providers, and returns its report.
func (g *globals) runStartup(ctx context.Context, path string, seed int64, queries int) (*startupReport, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	c := exec.CommandContext(ctx, exe, "bench", "startup", "--json", "--db", path,
		"--seed", strconv.FormatInt(seed, 10), "--queries", strconv.Itoa(queries))
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, g.stderr
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("bench startup: %w", err)
	}
	rep := &startupReport{}
	if err := json.Unmarshal(out.Bytes(), rep); err != nil {
		return nil, fmt.Errorf("bench startup: %w: %s", err, out.Bytes())
	}
	return rep, nil
}

// processAge returns how long ago the process started, from
// /proc/self/stat (field 22, in clock ticks of 1/100 s) and /proc/uptime;
// 0 where they cannot be read.
func processAge() float64 {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	up, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces: count from its ')'.
	i := bytes.LastIndexByte(stat, ')')
	fields := strings.Fields(string(stat[i+1:]))
	upF := strings.Fields(string(up))
	if len(fields) < 20 || len(upF) < 1 {
		return 0
	}
	start, err1 := strconv.ParseFloat(fields[19], 64) // field 22
	uptime, err2 := strconv.ParseFloat(upF[0], 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return (uptime - start/100) * 1000
}

// processCPU returns the CPU time the process has spent, user and
// system, from /proc/self/stat (fields 14 and 15, in clock ticks of
// 1/100 s); 0 where it cannot be read.
func processCPU() float64 {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(stat, ')')
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 13 {
		return 0
	}
	user, err1 := strconv.ParseFloat(fields[11], 64) // field 14
	sys, err2 := strconv.ParseFloat(fields[12], 64)  // field 15
	if err1 != nil || err2 != nil {
		return 0
	}
	return (user + sys) * 10
}

func millisSince(t time.Time) float64 { return float64(time.Since(t)) / float64(time.Millisecond) }

// benchEngine opens an engine on a new database in a temporary directory
// (benchmarks never touch the user's memory) with access recording off,
// so a run's results do not depend on the timing of earlier recalls, and
// with the providers the flags name. It returns the database path too.
func (g *globals) benchEngine(cmd *cobra.Command, keep bool) (*mnemo.Engine, string, func(), error) {
	dir, err := os.MkdirTemp("", "mnemo-bench-")
	if err != nil {
		return nil, "", nil, err
	}
	path := filepath.Join(dir, "bench.db")
	if dbURL, _ := cmd.Flags().GetString("db-url"); dbURL != "" {
		// PostgreSQL: a fresh schema of the database, dropped afterwards.
		schema := filepath.Base(dir)
		schema = "mnemo_bench_" + strings.ToLower(strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, strings.TrimPrefix(schema, "mnemo-bench-")))
		if path, err = postgres.CreateSchema(cmd.Context(), dbURL, schema); err != nil {
			os.RemoveAll(dir)
			return nil, "", nil, err
		}
		rm := func() { postgres.DropSchema(context.Background(), dbURL, schema); os.RemoveAll(dir) }
		eng, _, cleanup, err := g.openBenchEngine(cmd, path, keep, rm)
		return eng, path, cleanup, err
	}
	return g.openBenchEngine(cmd, path, keep, func() { os.RemoveAll(dir) })
}

// openBenchEngine opens the benchmark engine on db; remove deletes the
// database unless keep.
func (g *globals) openBenchEngine(cmd *cobra.Command, path string, keep bool, remove func()) (*mnemo.Engine, string, func(), error) {
	var err error
	// The providers the flags name (--embed, --llm, --rerank) apply; the
	// database is always the temporary one.
	cfg := mnemo.Config{AccessFlush: -1, JobPoll: -1, WarmRecall: true}
	err = g.configure(cmd.Context(), &cfg)
	var eng *mnemo.Engine
	if err == nil {
		cfg.DB = path
		eng, err = mnemo.Open(cmd.Context(), cfg)
	}
	if err != nil {
		remove()
		return nil, "", nil, err
	}
	return eng, path, func() {
		eng.Close()
		if keep {
			fmt.Fprintln(g.stderr, "benchmark database kept at", path)
			return
		}
		remove()
	}, nil
}
