package consolidate

import (
	"context"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// factLister is the listing the passes walk a bank's facts with.
type factLister interface {
	ListFacts(ctx context.Context, bankID string, q memory.FactQuery) (*memory.FactPage, error)
}

// walkActive hands fn the bank's active facts a page of size at a time,
// newest first, keeping those created at or after since (all when since
// is zero). Since pages come newest first, an incremental walk ends at
// the first page with no fact created since. A listing error is
// returned as is; fn's error ends the walk and is returned.
func walkActive(ctx context.Context, st factLister, bank string, size int, since time.Time, fn func([]*memory.Fact) error) error {
	q := memory.FactQuery{Statuses: []memory.Status{memory.StatusActive}, Limit: size}
	for {
		page, err := st.ListFacts(ctx, bank, q)
		if err != nil {
			return err
		}
		var walk []*memory.Fact
		for _, f := range page.Facts {
			if since.IsZero() || !f.CreatedAt.Before(since) {
				walk = append(walk, f)
			}
		}
		if err := fn(walk); err != nil {
			return errWalk{err}
		}
		if page.Next == "" || !since.IsZero() && len(walk) == 0 {
			return nil
		}
		q.Cursor = page.Next
	}
}

// errWalk marks an error of walkActive's fn, so that callers tell it from
// a listing error.
type errWalk struct{ err error }

func (e errWalk) Error() string { return e.err.Error() }
func (e errWalk) Unwrap() error { return e.err }
