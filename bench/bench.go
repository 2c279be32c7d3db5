// Package bench measures mnemo offline. It holds the per-query retrieval
// metrics and their aggregation exactly as the offline retrieval protocol
// MEM-RET v1 defines them, a seeded synthetic bank generator, and runners
// that drive an engine through a dataset and report quality, ingest
// throughput, recall latency and memory use; and the end-to-end
// question-answering benchmark (RunQA: a reader model answers from
// recalled memory, a judge model grades).
//
// The package drives an engine only through the [Engine] interface and
// models only through memory.LLM: it never imports a concrete store or
// provider.
// No dataset ships with it; package importer reads them (LoCoMo) from a
// reader or a path the caller gives. cmd/mnemo wires a real engine and
// draws progress.
package bench

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Engine is what a benchmark drives; *mnemo.Engine satisfies it.
// Runners call it from one goroutine, one call at a time.
type Engine interface {
	CreateBank(ctx context.Context, name string) (*memory.Bank, error)
	Retain(ctx context.Context, req memory.RetainRequest) (*memory.RetainResult, error)
	Recall(ctx context.Context, q memory.Query) (*memory.Recollection, error)
}

// Latency summarises a set of durations in milliseconds with nearest-rank
// percentiles.
type Latency struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
}

// Percentiles returns the nearest-rank 50th, 95th and 99th percentiles of
// ds in milliseconds: the p-th percentile is the ⌈p·n/100⌉-th smallest
// value. It returns the zero Latency when ds is empty and does not modify
// ds.
func Percentiles(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	sorted := make([]time.Duration, len(ds))
	copy(sorted, ds)
	slices.Sort(sorted)
	return Latency{
		P50: millis(nearestRank(sorted, 50)),
		P95: millis(nearestRank(sorted, 95)),
		P99: millis(nearestRank(sorted, 99)),
	}
}

// nearestRank returns the p-th percentile (0 < p ≤ 100) of the sorted,
// non-empty ds.
func nearestRank(sorted []time.Duration, p int) time.Duration {
	rank := (p*len(sorted) + 99) / 100 // ⌈p·n/100⌉ in integers: no float error
	rank = max(rank, 1)
	return sorted[rank-1]
}

func millis(d time.Duration) float64 {
	return float64(d) / float64(time.Millisecond)
}

// perSecond returns n/d in units per second, 0 when d is not positive.
func perSecond(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// retainTimed retains one request and returns the facts it stored and the
// wall time the call took.
func retainTimed(ctx context.Context, eng Engine, req memory.RetainRequest) (int, time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	start := time.Now()
	res, err := eng.Retain(ctx, req)
	took := time.Since(start)
	if err != nil {
		return 0, took, fmt.Errorf("retain %s: %w", req.ItemID, err)
	}
	return res.Facts, took, nil
}
