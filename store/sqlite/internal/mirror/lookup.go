package mirror

import "context"

// PKs returns the rows of the bank's facts with the given ids, in the
// order of ids, each row once; an id the mirror does not hold (unknown,
// or deleted by another process since the mirror last looked) is left
// out. With no ids it only loads the bank's index. The store reads the
// facts themselves from the file by these rows.
func (m *Mirror) PKs(ctx context.Context, bank string, ids []string) ([]int64, error) {
	x, err := m.index(ctx, bank)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	pks := make([]int64, 0, len(ids))
	seen := make(map[int64]bool, len(ids))
	for _, id := range ids {
		slot, ok := x.slotOfID(id)
		if !ok {
			continue
		}
		pk := x.meta[slot].pk
		if seen[pk] {
			continue // a repeated id is returned once
		}
		seen[pk] = true
		pks = append(pks, pk)
	}
	return pks, nil
}

// Inactive returns the number of the bank's facts whose status is not
// active (superseded, archived): while it is 0, no fact of the bank has
// a history.
func (m *Mirror) Inactive(ctx context.Context, bank string) (int, error) {
	x, err := m.index(ctx, bank)
	if err != nil {
		return 0, err
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.inactive, nil
}
