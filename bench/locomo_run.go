package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/importer"
	"github.com/mnemo-ai/mnemo/memory"
)

// evaluatedCategories are the LoCoMo categories whose questions are
// scored, in the protocol's order: the rows of a report.
var evaluatedCategories = []importer.LoCoMoCategory{
	importer.CategoryMultiHop, importer.CategoryTemporal, importer.CategoryOpenDomain, importer.CategorySingleHop,
}

// DefaultLoCoMoLimit is the results asked of each LoCoMo recall: a run
// lists at least 100 ids per query (PROTOCOL §5), the MRR cutoff.
const DefaultLoCoMoLimit = 100

// LoCoMoOptions tunes [RunLoCoMo]. The zero value is ready to use.
type LoCoMoOptions struct {
	// BankPrefix is put before each conversation's sample_id to name its
	// bank; "" names banks by sample_id alone.
	BankPrefix string
	// Limit is the results asked of each recall; 0 means
	// DefaultLoCoMoLimit.
	Limit int
	// RunFile, when set, receives the run file (PROTOCOL §5): one line
	// {"query_id": …, "ranked": […]} per evaluated query, in query order.
	RunFile io.Writer
	// Progress, when set, is called after each step with the steps done
	// and the total: one step per retained session and per recall.
	Progress func(done, total int)
	// Consolidate names consolidation passes run on each conversation's
	// bank after it is retained and before it is recalled, in order; the
	// engine must then be a [Consolidator]. Their runs are in
	// LoCoMoReport.Runs.
	Consolidate []string
}

// Consolidator is an engine that runs consolidation passes
// (mnemo.Engine.Consolidate).
type Consolidator interface {
	Consolidate(ctx context.Context, bank, pass string) (*memory.Run, error)
}

// LoCoMoReport is the outcome of [RunLoCoMo]. Its JSON is
//
//	{"overall": {"n", "recall@5", "recall@10", "recall@20", "hit@10", "mrr", …},
//	 "categories": {"multi-hop": {…}, "temporal": {…}, "open-domain": {…}, "single-hop": {…}},
//	 "ingest_facts_per_s": …, "recall_ms": {"p50", "p95", "p99"},
//	 "first_recall_ms": {…}, "warm_recall_ms": {…}}
//
// where the groups also carry hit@5, all@10 and ndcg@10.
type LoCoMoReport struct {
	// Overall is the mean over every evaluated query (micro average).
	Overall GroupScore `json:"overall"`
	// Categories holds one group per evaluated category, by name; a
	// category without queries has N = 0.
	Categories map[string]GroupScore `json:"categories"`
	// IngestFactsPerSec is the facts the engine reported retaining over
	// the wall time of all retain calls.
	IngestFactsPerSec float64 `json:"ingest_facts_per_s"`
	// RecallMS is the latency of one recall call.
	RecallMS Latency `json:"recall_ms"`
	// FirstRecallMS is the latency of the first recall of each bank, the
	// one that loads the bank's search index (in the SQLite store, its
	// in-process mirror), and WarmRecallMS that of the recalls after it:
	// RecallMS's calls in two. A bare full-text index's latency, built
	// before its questions are timed, compares with WarmRecallMS.
	FirstRecallMS Latency `json:"first_recall_ms"`
	WarmRecallMS  Latency `json:"warm_recall_ms"`

	// Runs are the consolidation runs of LoCoMoOptions.Consolidate, per
	// bank in order.
	Runs []*memory.Run `json:"runs,omitempty"`

	Sessions   int           `json:"-"` // documents retained
	Facts      int           `json:"-"` // facts the engine reported
	IngestTime time.Duration `json:"-"` // wall time of all retain calls
}

// RunLoCoMo benchmarks eng on data. For each conversation it creates a bank
// named opts.BankPrefix + sample_id, retains each session as one chat
// document (see [importer.LoCoMoConversation.RetainRequests]), then recalls every
// evaluated question with the conversation's Now as the reference time.
// A result's ranked id is its fact's SourceRef: the turn id the engine was
// given. Results without one are skipped, repeats keep their first rank.
//
// The banks must not exist yet. RunLoCoMo stops at the first error of the
// engine, of ctx or of writing the run file.
func RunLoCoMo(ctx context.Context, eng Engine, data *importer.LoCoMo, opts LoCoMoOptions) (*LoCoMoReport, error) {
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultLoCoMoLimit
	}
	var run *json.Encoder
	if opts.RunFile != nil {
		run = json.NewEncoder(opts.RunFile)
		run.SetEscapeHTML(false)
	}
	total, done := 0, 0
	for _, c := range data.Conversations {
		total += len(c.Sessions)
		for _, q := range c.Queries {
			if q.Evaluated {
				total++
			}
		}
	}
	step := func() {
		done++
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	}

	r := &LoCoMoReport{}
	lastBank := "" // the bank of the last recall
	var (
		scores    []QueryScore
		groups    []string
		latencies []time.Duration
		firsts    []bool // latencies[i] is its bank's first recall
	)
	for _, c := range data.Conversations {
		bank, err := eng.CreateBank(ctx, opts.BankPrefix+c.ID)
		if err != nil {
			return nil, fmt.Errorf("create bank %s: %w", opts.BankPrefix+c.ID, err)
		}
		for _, req := range c.RetainRequests(bank.ID) {
			facts, took, err := retainTimed(ctx, eng, req)
			r.IngestTime += took
			if err != nil {
				return nil, err
			}
			r.Sessions++
			r.Facts += facts
			step()
		}
		if len(opts.Consolidate) > 0 {
			cons, ok := eng.(Consolidator)
			if !ok {
				return nil, memory.Errorf(memory.EINVALID, "consolidate: the engine runs no consolidation")
			}
			for _, pass := range opts.Consolidate {
				run, err := cons.Consolidate(ctx, bank.ID, pass)
				if err != nil {
					return nil, fmt.Errorf("consolidate %s %s: %w", bank.ID, pass, err)
				}
				r.Runs = append(r.Runs, run)
			}
		}
		for _, q := range c.Queries {
			if !q.Evaluated {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			start := time.Now()
			rec, err := eng.Recall(ctx, memory.Query{BankID: bank.ID, Text: q.Question, Limit: limit, Now: c.Now})
			firsts = append(firsts, len(firsts) == 0 || bank.ID != lastBank)
			lastBank = bank.ID
			latencies = append(latencies, time.Since(start))
			if err != nil {
				return nil, fmt.Errorf("recall %s: %w", q.ID, err)
			}
			ranked := RankedRefs(rec)
			if run != nil {
				line := struct {
					QueryID string   `json:"query_id"`
					Ranked  []string `json:"ranked"`
				}{q.ID, ranked}
				if err := run.Encode(line); err != nil {
					return nil, fmt.Errorf("write run file: %w", err)
				}
			}
			scores = append(scores, ScoreQuery(ranked, q.Gold))
			groups = append(groups, q.Category.String())
			step()
		}
	}

	overall, byGroup := Summarize(scores, groups)
	r.Overall = overall
	r.Categories = make(map[string]GroupScore, len(evaluatedCategories))
	for _, cat := range evaluatedCategories {
		r.Categories[cat.String()] = byGroup[cat.String()] // zero (n = 0) when absent
	}
	r.IngestFactsPerSec = perSecond(r.Facts, r.IngestTime)
	r.RecallMS = Percentiles(latencies)
	first, warm := split(latencies, firsts)
	r.FirstRecallMS, r.WarmRecallMS = Percentiles(first), Percentiles(warm)
	return r, nil
}

// split returns the latencies marked first and the others, each in order.
func split(latencies []time.Duration, first []bool) (marked, rest []time.Duration) {
	for i, d := range latencies {
		if first[i] {
			marked = append(marked, d)
		} else {
			rest = append(rest, d)
		}
	}
	return marked, rest
}

// RankedRefs returns the SourceRefs of rec's results in rank order, without
// empty refs and repeats (first occurrence kept): the ranked memory ids of
// a run. It never returns nil, so a run line always has a list.
func RankedRefs(rec *memory.Recollection) []string {
	out := []string{}
	if rec == nil {
		return out
	}
	seen := make(map[string]bool, len(rec.Results))
	for _, res := range rec.Results {
		if res.Fact == nil || res.Fact.SourceRef == "" || seen[res.Fact.SourceRef] {
			continue
		}
		seen[res.Fact.SourceRef] = true
		out = append(out, res.Fact.SourceRef)
	}
	return out
}

// WriteText writes r as a human-readable table: one row per evaluated
// category and one overall, then ingest and recall latency lines.
func (r *LoCoMoReport) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s %5s %7s %7s %7s %7s %7s %8s\n", "category", "n", "R@5", "R@10", "R@20", "Hit@10", "MRR", "nDCG@10")
	row := func(name string, g GroupScore) {
		fmt.Fprintf(&b, "%-12s %5d %7.4f %7.4f %7.4f %7.4f %7.4f %8.4f\n",
			name, g.N, g.Recall5, g.Recall10, g.Recall20, g.Hit10, g.MRR, g.NDCG10)
	}
	for _, cat := range evaluatedCategories {
		row(cat.String(), r.Categories[cat.String()])
	}
	row("overall", r.Overall)
	fmt.Fprintf(&b, "ingest: %d facts from %d sessions in %s (%.1f facts/s)\n",
		r.Facts, r.Sessions, r.IngestTime.Round(time.Millisecond), r.IngestFactsPerSec)
	fmt.Fprintf(&b, "recall: p50 %.2f ms, p95 %.2f ms, p99 %.2f ms\n", r.RecallMS.P50, r.RecallMS.P95, r.RecallMS.P99)
	fmt.Fprintf(&b, "recall, each bank's first (index load): p50 %.2f ms, p99 %.2f ms; the others: p50 %.2f ms, p95 %.2f ms, p99 %.2f ms\n",
		r.FirstRecallMS.P50, r.FirstRecallMS.P99, r.WarmRecallMS.P50, r.WarmRecallMS.P95, r.WarmRecallMS.P99)
	if len(r.Runs) > 0 {
		total := map[string]map[string]int{}
		var passes []string
		for _, run := range r.Runs {
			if total[run.Pass] == nil {
				total[run.Pass] = map[string]int{}
				passes = append(passes, run.Pass)
			}
			for k, v := range run.Counts {
				total[run.Pass][k] += v
			}
		}
		for _, p := range passes {
			keys := slices.Sorted(maps.Keys(total[p]))
			parts := make([]string, len(keys))
			for i, k := range keys {
				parts[i] = fmt.Sprintf("%s %d", k, total[p][k])
			}
			fmt.Fprintf(&b, "consolidate %s: %s\n", p, strings.Join(parts, ", "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
