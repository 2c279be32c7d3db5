package bench

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// ConsolidateFunc runs every consolidation pass over a bank and returns
// the run records (mnemo.Engine.ConsolidateAll): of the benchmark's
// engine, or of another one on the same database (one with an LLM,
// while the bank was retained offline).
type ConsolidateFunc func(ctx context.Context, bank string) ([]*memory.Run, error)

// DefaultConsolidationBank is the bank [RunConsolidation] fills.
const DefaultConsolidationBank = "bench-consolidation"

// DefaultDuplicateShare is the share of the generated documents
// [RunConsolidation] retains a second time under another item id: the
// same sentences said again, for the merge passes to find.
const DefaultDuplicateShare = 0.05

// ConsolidationOptions tunes [RunConsolidation]. The zero value is ready
// to use.
type ConsolidationOptions struct {
	// Bank is the bank to create; "" means DefaultConsolidationBank.
	Bank string
	// Facts is the size of the generated bank (before duplicates); 0 means
	// DefaultSyntheticFacts.
	Facts int
	// Seed seeds the generator.
	Seed int64
	// DuplicateShare is the share of documents retained twice; 0 means
	// DefaultDuplicateShare, negative none.
	DuplicateShare float64
	// Progress, when set, is called after each retained document.
	Progress func(done, total int)
}

// PassCost is what one pass of a full consolidation run cost.
type PassCost struct {
	Pass     string         `json:"pass"`
	Status   string         `json:"status"`
	Reason   string         `json:"reason,omitempty"`
	Error    string         `json:"error,omitempty"`
	WallMS   float64        `json:"wall_ms"`
	LLMCalls int            `json:"llm_calls"`
	Tokens   int            `json:"tokens"`
	Counts   map[string]int `json:"counts,omitempty"`
}

// ConsolidationReport is the outcome of [RunConsolidation].
type ConsolidationReport struct {
	// Facts is the facts the engine reported retaining, duplicates
	// included.
	Facts    int     `json:"facts"`
	IngestMS float64 `json:"ingest_ms"`
	// Passes are the passes of the full run, in the order they ran.
	Passes   []PassCost `json:"passes"`
	WallMS   float64    `json:"wall_ms"`
	LLMCalls int        `json:"llm_calls"`
	Tokens   int        `json:"tokens"`
}

// RunConsolidation fills a new bank with a generated conversation bank
// (GenerateSynthetic) of opts.Facts facts, a share of its documents said
// twice, then runs one full consolidation (every pass, in order: what
// the nightly run does) and reports each pass's wall time, LLM calls,
// tokens and counts. The engine decides which passes can run: without an
// LLM the ones that need one are skipped, with their reason. eng
// retains; consolidate consolidates.
func RunConsolidation(ctx context.Context, eng Engine, consolidate ConsolidateFunc, opts ConsolidationOptions) (*ConsolidationReport, error) {
	name := cmp.Or(opts.Bank, DefaultConsolidationBank)
	reqs := GenerateSynthetic(cmp.Or(opts.Facts, DefaultSyntheticFacts), opts.Seed)
	share := opts.DuplicateShare
	if share == 0 {
		share = DefaultDuplicateShare
	}
	if share > 0 {
		every := max(int(1/share), 1)
		n := len(reqs)
		for i := 0; i < n; i += every {
			dup := reqs[i]
			dup.ItemID += "-again"
			reqs = append(reqs, dup)
		}
	}
	bank, err := eng.CreateBank(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("create bank %s: %w", name, err)
	}
	rep := &ConsolidationReport{}
	for i := range reqs {
		reqs[i].BankID = bank.ID
	}
	start := time.Now()
	if bulk, ok := eng.(BulkRetainer); ok {
		for s := 0; s < len(reqs); s += syntheticChunk {
			chunk := reqs[s:min(s+syntheticChunk, len(reqs))]
			results, errs := bulk.RetainMany(ctx, chunk)
			for i, err := range errs {
				if err != nil {
					return nil, fmt.Errorf("retain %s: %w", chunk[i].ItemID, err)
				}
				rep.Facts += results[i].Facts
			}
			if opts.Progress != nil {
				opts.Progress(min(s+syntheticChunk, len(reqs)), len(reqs))
			}
		}
	} else {
		for i, req := range reqs {
			facts, _, err := retainTimed(ctx, eng, req)
			if err != nil {
				return nil, err
			}
			rep.Facts += facts
			if opts.Progress != nil {
				opts.Progress(i+1, len(reqs))
			}
		}
	}
	rep.IngestMS = millis(time.Since(start))
	start = time.Now()
	runs, err := consolidate(ctx, bank.ID)
	rep.WallMS = millis(time.Since(start))
	for _, r := range runs {
		c := PassCost{Pass: r.Pass, Status: string(r.Status), Reason: r.Reason, Error: r.Error, LLMCalls: r.LLMCalls, Tokens: r.Tokens, Counts: r.Counts}
		if !r.FinishedAt.IsZero() {
			c.WallMS = millis(r.FinishedAt.Sub(r.StartedAt))
		}
		rep.Passes = append(rep.Passes, c)
		rep.LLMCalls += r.LLMCalls
		rep.Tokens += r.Tokens
	}
	return rep, err
}

// WriteText prints r as a table, one pass a line.
func (r *ConsolidationReport) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "bank: %d facts, retained in %.1f s\n", r.Facts, r.IngestMS/1000)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "pass\tstatus\twall ms\tLLM calls\ttokens\t")
	for _, p := range r.Passes {
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%d\t%d\t\n", p.Pass, p.Status, p.WallMS, p.LLMCalls, p.Tokens)
	}
	fmt.Fprintf(tw, "total\t\t%.0f\t%d\t%d\t\n", r.WallMS, r.LLMCalls, r.Tokens)
	return tw.Flush()
}

// SyntheticNewest is when the newest document of GenerateSynthetic(n,
// seed) was said: a consolidation clock set just after it sees the
// generated bank as a live bank sees itself tonight ("recent" facts are
// its last days).
func SyntheticNewest(n int, seed int64) time.Time {
	var newest time.Time
	for _, r := range GenerateSynthetic(n, seed) {
		if r.At.After(newest) {
			newest = r.At
		}
	}
	return newest
}
