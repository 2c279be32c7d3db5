package mnemo

import (
	"context"

	"github.com/mnemo-ai/mnemo/memory"
)

// JobCounts counts the jobs of every bank by status (queued, running,
// done, failed): the queue's depth is the queued count. It reads every
// job of every bank, so it suits a metrics scrape, not a hot path.
func (e *Engine) JobCounts(ctx context.Context) (map[memory.JobStatus]int, error) {
	banks, err := e.store.Banks(ctx)
	if err != nil {
		return nil, err
	}
	out := map[memory.JobStatus]int{}
	for _, b := range banks {
		jobs, err := e.store.Jobs(ctx, b.ID, 0)
		if err != nil {
			if memory.ErrorCode(err) == memory.ENOTFOUND {
				continue // deleted meanwhile
			}
			return nil, err
		}
		for _, j := range jobs {
			out[j.Status]++
		}
	}
	return out, nil
}
