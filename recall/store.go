package recall

import (
	"context"

	"github.com/mnemo-ai/mnemo/memory"
)

// Store is the part of a memory.Store the read path uses: the searches
// its strategies run, the reads that load their hits and what those
// superseded, and the graph the graph strategy follows. Its methods keep
// memory.Store's contracts. A store that is also a
// memory.DocumentSearcher ranks whole documents for the context
// strategy; one that is also a memory.ObservationStore serves the first
// phase (observations.go); one that also searches by stems
// (stemSearcher) serves the kind search without stemming its lists on
// every query (kinds.go).
type Store interface {
	SearchVector(ctx context.Context, bankID string, vec []float32, k int, f memory.Filter) ([]memory.Hit, error)
	SearchText(ctx context.Context, bankID string, terms []string, k int, f memory.Filter) ([]memory.Hit, error)
	Facts(ctx context.Context, bankID string, ids []string) ([]*memory.Fact, error)
	Neighbours(ctx context.Context, bankID string, factIDs []string, radius int) (map[string][]string, error)
	SupersededBy(ctx context.Context, bankID string, factIDs []string) ([]*memory.Fact, error)
	EntitiesByName(ctx context.Context, bankID string, names []string) ([]*memory.Entity, error)
	EntityRefs(ctx context.Context, bankID string, factIDs []string) ([]memory.EntityRef, error)
	Entities(ctx context.Context, bankID string, ids []string) ([]*memory.Entity, error)
	FactsByEntities(ctx context.Context, bankID string, entityIDs []string, limit int) (map[string][]string, error)
	Links(ctx context.Context, bankID string, factIDs []string, kinds ...memory.LinkKind) ([]memory.Link, error)
}

// Every memory.Store is a Store.
var _ Store = memory.Store(nil)
