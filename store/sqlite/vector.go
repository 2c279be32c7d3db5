package sqlite

import (
	"context"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/sqlite/internal/mirror"
)

// Defaults of the vector search.
const (
	// DefaultANNThreshold is the vectors a bank must hold before its
	// search index builds an HNSW graph: below it an exact int8 SIMD scan
	// answers within about a millisecond (20k × 384 dimensions measured
	// at 0.5 ms), and no graph costs memory or build time.
	DefaultANNThreshold = mirror.DefaultANNThreshold
	// DefaultExactSelectivity is the share of a bank's facts a filter must
	// pass for a search to walk the graph: a filter that passes fewer is
	// answered by the exact scan, which costs little more than the walk
	// would and never misses a fact.
	DefaultExactSelectivity = mirror.DefaultExactSelectivity
)

// SearchVector implements memory.Store from the bank's search mirror.
// The candidates come from the int8 vectors — an exact scan, or in a bank
// of ANNThreshold vectors or more an HNSW walk over the slots the graph
// has linked plus an exact scan of the rest — and the best k + a margin
// are rescored with the float32 originals, so scores are exact cosines
// and, below the threshold (or under a selective filter), the hits are
// the exact answer.
func (s *Store) SearchVector(ctx context.Context, bankID string, vec []float32, k int, f memory.Filter) ([]memory.Hit, error) {
	return s.mirror.SearchVector(ctx, bankID, vec, k, f)
}

// SearchVectorExact is SearchVector without the graph: an exact scan of
// every vector, whatever the bank's size. Benchmarks measure the graph's
// recall against it.
func (s *Store) SearchVectorExact(ctx context.Context, bankID string, vec []float32, k int, f memory.Filter) ([]memory.Hit, error) {
	return s.mirror.SearchVectorExact(ctx, bankID, vec, k, f)
}

// WaitIndexed loads the bank's search index and waits until its graph, if
// the bank has one, has linked every vector; benchmarks call it to time
// searches in the steady state. It returns ctx's error if ctx ends first.
func (s *Store) WaitIndexed(ctx context.Context, bankID string) error {
	return s.mirror.WaitIndexed(ctx, bankID)
}

// IndexStats describes a bank's in-process search index.
type IndexStats struct {
	Slots, Live int
	// VectorBytes is the memory of the int8 vectors; GraphBytes of the
	// HNSW links (0 without a graph); Linked the slots the graph covers.
	VectorBytes, GraphBytes int64
	Linked                  int
}

// IndexStats returns the state of a bank's search index, loading it.
func (s *Store) IndexStats(ctx context.Context, bankID string) (IndexStats, error) {
	st, err := s.mirror.Stats(ctx, bankID)
	return IndexStats(st), err
}
