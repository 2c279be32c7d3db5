package mnemo

import (
	"context"
	"fmt"

	"github.com/mnemo-ai/mnemo/memory"
)

// indexWaiter is a store that builds search indexes in the background
// (the SQLite store's in-process mirror is one).
type indexWaiter interface {
	WaitIndexed(ctx context.Context, bankID string) error
}

// exactSearcher is a store whose SearchVector may be approximate and that
// can also answer exactly (the SQLite store is one).
type exactSearcher interface {
	SearchVectorExact(ctx context.Context, bankID string, vec []float32, k int, f memory.Filter) ([]memory.Hit, error)
}

// WaitIndexed blocks until the background search indexes of bank (the
// default bank when empty) are built, so that what follows is timed or
// tested on the finished index. Recall never needs it: it answers, exactly,
// while an index builds. A store that builds no index in the background
// returns at once. It returns ctx's error if ctx ends first.
func (e *Engine) WaitIndexed(ctx context.Context, bank string) error {
	if w, ok := e.store.(indexWaiter); ok {
		return w.WaitIndexed(ctx, defaultBank(bank))
	}
	return nil
}

// VectorIndexRecall measures how well the approximate vector index of a
// bank (the default bank when empty) finds what exact search finds: each
// query text is embedded with the engine's embedder, searched both ways
// for its k nearest active facts, and the share of the exact answer the
// index returned is averaged over the queries. ok is false, with nothing
// measured, when the store's vector search is exact (or it cannot search
// exactly to compare). An operator's check of an index, and a benchmark's.
func (e *Engine) VectorIndexRecall(ctx context.Context, bank string, queries []string, k int) (recall float64, ok bool, err error) {
	ex, ok := e.store.(exactSearcher)
	if !ok || len(queries) == 0 || k <= 0 {
		return 0, ok, nil
	}
	bank = defaultBank(bank)
	vecs, err := e.emb.Embed(ctx, queries)
	if err != nil {
		return 0, true, fmt.Errorf("embed queries: %w", err)
	}
	var sum float64
	for _, v := range vecs {
		got, err := e.store.SearchVector(ctx, bank, v, k, memory.Filter{})
		if err != nil {
			return 0, true, err
		}
		want, err := ex.SearchVectorExact(ctx, bank, v, k, memory.Filter{})
		if err != nil {
			return 0, true, err
		}
		sum += shareFound(got, want)
	}
	return sum / float64(len(vecs)), true, nil
}

// shareFound is the share of want's ids found in got (1 when want is
// empty).
func shareFound(got, want []memory.Hit) float64 {
	if len(want) == 0 {
		return 1
	}
	seen := make(map[string]bool, len(got))
	for _, h := range got {
		seen[h.ID] = true
	}
	n := 0
	for _, h := range want {
		if seen[h.ID] {
			n++
		}
	}
	return float64(n) / float64(len(want))
}
