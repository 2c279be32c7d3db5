package sqlite

import (
	"context"
)

// Neighbours implements memory.Store from the bank's document mirror: a
// map lookup per fact instead of a query, once the mirror reflects the
// bank's version.
func (s *Store) Neighbours(ctx context.Context, bankID string, factIDs []string, radius int) (map[string][]string, error) {
	return s.mirror.Neighbours(ctx, bankID, factIDs, radius)
}
