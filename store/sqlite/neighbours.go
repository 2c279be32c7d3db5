package sqlite

import (
	"context"
)

// Neighbours implements memory.Store from the bank's document mirror
// (docindex.go): a map lookup per fact instead of a query, once the
// mirror reflects the bank's version.
func (s *Store) Neighbours(ctx context.Context, bankID string, factIDs []string, radius int) (map[string][]string, error) {
	x, err := s.docs(ctx, bankID)
	if err != nil {
		return nil, err
	}
	defer x.mu.RUnlock()
	radius = max(radius, 0)
	out := make(map[string][]string, len(factIDs))
	for _, id := range factIDs {
		at, ok := x.at[id]
		if !ok {
			continue
		}
		if at.doc < 0 {
			out[id] = []string{id}
			continue
		}
		facts := x.docs[at.doc].facts
		lo, hi := max(int(at.pos)-radius, 0), min(int(at.pos)+radius+1, len(facts))
		out[id] = append([]string(nil), facts[lo:hi]...)
	}
	return out, nil
}
