package mnemo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/internal/id"
	"github.com/mnemo-ai/mnemo/memory"
)

// The consolidation runner (DESIGN §6): a loop (background.go) that every
// tick looks at each bank, asks consolidate.Due what is due and queues it
// as one job on the durable queue; the job worker (jobs.go) runs it.
// The queue is the one lock: a bank with a consolidation job queued or
// running gets no other, and the ids of a bank's consolidation jobs form
// a chain (each derived from the one before) so that two processes
// queueing at once derive the same id and the queue's ECONFLICT keeps
// one.

// ScheduleConsolidation looks at every bank once at the engine's clock
// and queues a consolidation job for each bank with a trigger due
// (consolidate.Due under cfg.Consolidation). It returns the jobs queued.
// It is what the background runner does every tick; a bank deleted
// meanwhile is skipped.
func (e *Engine) ScheduleConsolidation(ctx context.Context) ([]*memory.Job, error) {
	banks, err := e.store.Banks(ctx)
	if err != nil {
		return nil, err
	}
	var queued []*memory.Job
	var errs []error
	for _, b := range banks {
		j, err := e.scheduleBank(ctx, b.ID)
		if err != nil && memory.ErrorCode(err) != memory.ENOTFOUND {
			errs = append(errs, fmt.Errorf("bank %s: %w", b.ID, err))
		}
		if j != nil {
			queued = append(queued, j)
		}
	}
	if len(queued) > 0 {
		select {
		case e.jobs.wake <- struct{}{}:
		default:
		}
	}
	return queued, errors.Join(errs...)
}

// scheduleBank queues the consolidation due for bank, if any; nil when
// nothing is due, the bank is busy, or another process queued it first.
func (e *Engine) scheduleBank(ctx context.Context, bank string) (*memory.Job, error) {
	state, last, err := e.consolidationState(ctx, bank)
	if err != nil {
		return nil, err
	}
	now := e.now().UTC().Truncate(time.Microsecond)
	triggers := consolidate.Due(state, now, e.runnerCfg)
	if len(triggers) == 0 {
		return nil, nil
	}
	payload, err := json.Marshal(consolidate.JobPayload{Bank: bank, Passes: consolidate.Passes(triggers), Triggers: triggers})
	if err != nil {
		return nil, err
	}
	j := &memory.Job{ID: nextConsolidationID(bank, last), BankID: bank, Kind: consolidate.JobKind, Payload: payload, CreatedAt: now}
	if last != nil && !j.CreatedAt.After(last.CreatedAt) {
		// Keep the chain newest-first even if clocks disagree.
		j.CreatedAt = last.CreatedAt.Add(time.Microsecond)
	}
	if err := e.store.EnqueueJob(ctx, j); err != nil {
		if memory.ErrorCode(err) == memory.ECONFLICT {
			return nil, nil // another process queued this very run
		}
		return nil, err
	}
	return j, nil
}

// nextConsolidationID is the id of the consolidation job of bank after
// last (nil: the first): the same in every process that saw the same
// last job.
func nextConsolidationID(bank string, last *memory.Job) string {
	if last == nil {
		return id.Derive("job", time.Time{}, bank, consolidate.JobKind)
	}
	return id.Derive("job", last.CreatedAt, bank, consolidate.JobKind, last.ID)
}

// consolidationState gathers what consolidate.Due needs of bank: when its
// newest fact was created, its passes' latest runs, whether a
// consolidation job is queued or running; and that latest job (nil if
// none).
func (e *Engine) consolidationState(ctx context.Context, bank string) (consolidate.BankState, *memory.Job, error) {
	s := consolidate.BankState{Passes: map[string]consolidate.PassRun{}}
	page, err := e.store.ListFacts(ctx, bank, memory.FactQuery{Limit: 1})
	if err != nil {
		return s, nil, err
	}
	if len(page.Facts) > 0 {
		s.LastRetain = page.Facts[0].CreatedAt
	}
	runs, err := e.store.Runs(ctx, bank, 0)
	if err != nil {
		return s, nil, err
	}
	for _, r := range runs { // newest first
		pr := s.Passes[r.Pass]
		if pr.Started.IsZero() {
			pr.Started = r.StartedAt
		}
		// A pass skipped on purpose (no LLM configured, off for the bank)
		// has done all it will: for the triggers it ran ok, or an offline
		// bank would be due again at every tick.
		if pr.OK.IsZero() && (r.Status == memory.RunOK || r.Status == memory.RunSkipped) {
			pr.OK = r.StartedAt
		}
		s.Passes[r.Pass] = pr
	}
	jobs, err := e.store.Jobs(ctx, bank, 0)
	if err != nil {
		return s, nil, err
	}
	var last *memory.Job
	for _, j := range jobs { // newest first
		if j.Kind == consolidate.JobKind {
			last = j
			break
		}
	}
	s.Busy = last != nil && (last.Status == memory.JobQueued || last.Status == memory.JobRunning)
	return s, last, nil
}

// runConsolidationJob runs a consolidation job's passes in order, each
// with its run record (Engine.Consolidate), and returns the runs as JSON.
// Every pass is tried; the first failure is returned after the rest ran.
func (e *Engine) runConsolidationJob(ctx context.Context, j *memory.Job) ([]byte, error) {
	var p consolidate.JobPayload
	if err := json.Unmarshal(j.Payload, &p); err != nil {
		return nil, memory.Errorf(memory.EINVALID, "job %s: bad payload: %v", j.ID, err)
	}
	if p.Bank != j.BankID {
		return nil, memory.Errorf(memory.EINVALID, "job %s: payload names bank %q, not the job's %q", j.ID, p.Bank, j.BankID)
	}
	var runs []*memory.Run
	var first error
	for _, pass := range p.Passes {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r, err := e.Consolidate(ctx, j.BankID, pass)
		if r != nil {
			runs = append(runs, r)
		}
		if err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	return json.Marshal(runs)
}
