package mnemo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// The engine's background work has one shape (litestream's store.go): the
// job is a plain method, tested directly — accessRecorder.flush,
// jobRunner.run, sessionBuffer.tick — and a loop only decides when it
// runs. Open makes the one context every loop runs under and starts the
// loops; Close cancels it, waits for every loop, then does the last work
// that must not be lost (the pending access records).

// loop runs tick every interval, and at once whenever wake receives (wake
// may be nil), until the engine closes. A failed tick is logged as what
// and tried again at the next one. A non-positive interval starts
// nothing: the work then runs only when called.
func (e *Engine) loop(what string, interval time.Duration, wake <-chan struct{}, tick func(context.Context) error) {
	if interval <= 0 {
		return
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		t := time.NewTimer(interval)
		defer t.Stop()
		for {
			select {
			case <-e.ctx.Done():
				return
			case <-t.C:
			case <-wake:
			}
			if err := tick(e.ctx); err != nil && e.ctx.Err() == nil {
				e.log.Warn(what, "err", err)
			}
			t.Reset(interval)
		}
	}()
}

// startBackground starts the engine's loops: the access recorder's
// flush, the job worker, the consolidation runner (runner.go) and the
// session idle trigger.
func (e *Engine) startBackground(cfg Config) {
	e.ctx, e.cancel = context.WithCancel(context.Background())
	if cfg.AccessFlush >= 0 {
		every := cfg.AccessFlush
		if every == 0 {
			every = DefaultAccessFlush
		}
		e.access = newAccessRecorder(e.store, e.now)
		e.loop("record access", every, nil, e.access.flush)
	}
	e.jobs = newJobRunner(e, cfg)
	e.loop("run jobs", e.jobs.poll, e.jobs.wake, func(ctx context.Context) error {
		_, err := e.jobs.run(ctx)
		return err
	})
	if e.runnerCfg = cfg.Consolidation.WithDefaults(); !e.runnerCfg.Off() {
		e.loop("schedule consolidation", e.runnerCfg.Tick(), nil, func(ctx context.Context) error {
			_, err := e.ScheduleConsolidation(ctx)
			return err
		})
	}
	e.sessions = newSessionBuffer(e, cfg)
	if e.sessions.idle > 0 {
		e.loop("extract idle sessions", e.sessions.every, nil, func(ctx context.Context) error {
			_, err := e.sessions.tick(ctx)
			return err
		})
	}
}

// stopBackground stops every loop and waits for it (a job running then is
// interrupted and queued again), then writes the pending access records.
func (e *Engine) stopBackground() error {
	e.cancel()
	e.wg.Wait()
	if e.access != nil {
		// Access tracking is best effort: a read-only file, a full disk
		// or a writer holding the lock must not fail the read that
		// recalled (nor hold it long).
		ctx, cancel := context.WithTimeout(context.Background(), DefaultAccessFlushWait)
		defer cancel()
		if err := e.access.flush(ctx); err != nil {
			e.log.Debug("record access", "err", err)
		}
	}
	return nil
}

// DefaultAccessFlushWait bounds the last write of pending access records
// when the engine closes; past it they are dropped (logged at debug).
const DefaultAccessFlushWait = 2 * time.Second

// accessRecorder batches recall's access records and writes them every
// interval, off the reply path. A fact recalled several times within one
// interval counts one access: access counts measure how many intervals a
// fact was useful in, which is what decay needs, not raw calls.
type accessRecorder struct {
	store memory.AccessRecorder
	// obs keeps observations' accesses (archival reads them); nil when
	// the store has no memory.ObservationLifecycle.
	obs memory.ObservationLifecycle
	now func() time.Time

	mu         sync.Mutex
	pending    map[string]map[string]bool // bank → fact ids
	pendingObs map[string]map[string]bool // bank → observation ids
}

func newAccessRecorder(st memory.AccessRecorder, now func() time.Time) *accessRecorder {
	obs, _ := st.(memory.ObservationLifecycle)
	return &accessRecorder{store: st, obs: obs, now: now, pending: map[string]map[string]bool{}, pendingObs: map[string]map[string]bool{}}
}

// record notes that facts ids of bank were recalled; flush writes it.
func (a *accessRecorder) record(bank string, ids []string) { a.note(false, bank, ids) }

// recordObservations notes that observations ids of bank were recalled.
func (a *accessRecorder) recordObservations(bank string, ids []string) {
	if a.obs != nil {
		a.note(true, bank, ids)
	}
}

// note adds ids to the pending facts (or observations) of bank. The map
// is chosen under the lock: flush swaps both maps for new ones.
func (a *accessRecorder) note(observations bool, bank string, ids []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	pending := a.pending
	if observations {
		pending = a.pendingObs
	}
	m := pending[bank]
	if m == nil {
		m = map[string]bool{}
		pending[bank] = m
	}
	for _, id := range ids {
		m[id] = true
	}
}

// flush writes every pending access record. A bank deleted meanwhile is
// no error.
func (a *accessRecorder) flush(ctx context.Context) error {
	a.mu.Lock()
	pending, pendingObs := a.pending, a.pendingObs
	a.pending, a.pendingObs = map[string]map[string]bool{}, map[string]map[string]bool{}
	a.mu.Unlock()
	var errs []error
	write := func(pending map[string]map[string]bool, record func(ctx context.Context, bank string, ids []string, at time.Time) error) {
		for bank, set := range pending {
			ids := make([]string, 0, len(set))
			for id := range set {
				ids = append(ids, id)
			}
			if err := record(ctx, bank, ids, a.now()); err != nil && memory.ErrorCode(err) != memory.ENOTFOUND {
				errs = append(errs, fmt.Errorf("bank %s: %w", bank, err))
			}
		}
	}
	write(pending, a.store.RecordAccess)
	if a.obs != nil {
		write(pendingObs, a.obs.RecordObservationAccess)
	}
	return errors.Join(errs...)
}
