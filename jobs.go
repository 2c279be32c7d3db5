package mnemo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/internal/id"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/retain"
)

// Defaults of the job queue (retain --async).
const (
	// DefaultJobPoll is how often the background worker looks for due
	// jobs (Config.JobPoll).
	DefaultJobPoll = time.Second
	// DefaultJobAttempts is how many times a job whose failure is
	// temporary (an EUNAVAILABLE error: a provider or the database down)
	// is tried before it fails for good.
	DefaultJobAttempts = 3
	// DefaultJobBackoff is how long a job waits after its first temporary
	// failure; each further one doubles it.
	DefaultJobBackoff = 5 * time.Second
	// DefaultJobLease is how long a claim on a job lasts without a
	// heartbeat. The worker running a job renews its claim every quarter
	// lease (memory.JobQueue.RenewJob), however long the job runs (a
	// nightly consolidation of a big bank); a worker that died stops
	// renewing, and its job is queued again for another worker (in this
	// process or another) once the lease has run out. A live worker that
	// cannot renew in time (the database unreachable for most of a lease)
	// stops the job rather than let it run twice.
	DefaultJobLease = 2 * time.Minute
)

// errLeaseLost ends a job's context when its worker lost the claim: the
// lease ran out (or could not be renewed in time) and the job may be
// another worker's now.
var errLeaseLost = errors.New("the job's lease was lost")

// jobRunner runs queued jobs (retain --async): a background loop every
// poll interval (background.go), and Engine.RunJobs on demand. The work
// (run, runJob) is a plain method; the loop only decides when.
type jobRunner struct {
	e        *Engine
	poll     time.Duration // < 0: no background worker
	attempts int
	backoff  time.Duration
	lease    time.Duration
	wake     chan struct{} // RetainAsync nudges the worker
}

func newJobRunner(e *Engine, cfg Config) *jobRunner {
	poll := cfg.JobPoll
	if poll == 0 {
		poll = DefaultJobPoll
	}
	lease := cfg.JobLease
	if lease <= 0 {
		lease = DefaultJobLease
	}
	return &jobRunner{e: e, poll: poll, attempts: DefaultJobAttempts, backoff: DefaultJobBackoff, lease: lease, wake: make(chan struct{}, 1)}
}

// RetainAsync queues a retain and returns the queued job at once; the
// background worker (or RunJobs) runs it later, and Job reports how it
// went. The request is validated now: bad input and an unknown bank are
// refused with EINVALID and ENOTFOUND before anything is queued. The
// default bank is created on first use. A request without At is dated
// when it is queued, not when it runs. Queued jobs are durable: they
// survive closing the engine and run in the next one to open the file.
func (e *Engine) RetainAsync(ctx context.Context, req memory.RetainRequest) (*memory.Job, error) {
	req.BankID = defaultBank(req.BankID)
	if err := retain.Validate(&req); err != nil {
		return nil, err
	}
	if err := e.requireBank(ctx, req.BankID); err != nil {
		return nil, err
	}
	e.redact(ctx, &req)
	now := e.now().UTC().Truncate(time.Microsecond)
	if req.At.IsZero() {
		// Dated when asked, not when run: relative dates in the text
		// ("yesterday") mean the day it was queued.
		req.At = now
	}
	payload, err := json.Marshal(req)
	if err != nil {
		return nil, memory.Errorf(memory.EINVALID, "encode request: %v", err)
	}
	j := &memory.Job{ID: newJobID(now, req.BankID), BankID: req.BankID, Kind: memory.JobRetain, Payload: payload, CreatedAt: now}
	if err := e.enqueue(ctx, j); err != nil {
		return nil, err
	}
	return j, nil
}

// newJobID returns a new, unique id for a job of bank queued at now.
func newJobID(now time.Time, bank string) string {
	var nonce [8]byte
	rand.Read(nonce[:])
	return id.Derive("job", now, bank, hex.EncodeToString(nonce[:]))
}

// enqueue stores j in the job queue and wakes the worker: every job the
// façade queues (retains, retries, webhook deliveries) goes through it.
func (e *Engine) enqueue(ctx context.Context, j *memory.Job) error {
	if err := e.store.EnqueueJob(ctx, j); err != nil {
		return err
	}
	select {
	case e.jobs.wake <- struct{}{}:
	default:
	}
	return nil
}

// requireBank creates the default bank on first use and fails with
// ENOTFOUND for any other bank that does not exist.
func (e *Engine) requireBank(ctx context.Context, bank string) error {
	if bank == memory.DefaultBank {
		return e.ensureDefaultBank(ctx)
	}
	if err := memory.ValidateBankName(bank); err != nil {
		return err
	}
	_, err := e.store.Bank(ctx, bank)
	return err
}

// Job returns one job of a bank (the default bank when bank is empty), or
// ENOTFOUND. A done retain job's Result is the JSON memory.RetainResult; a
// failed one's Error says why.
func (e *Engine) Job(ctx context.Context, bank, id string) (*memory.Job, error) {
	bank = defaultBank(bank)
	return e.store.Job(ctx, bank, id)
}

// Jobs lists a bank's jobs (the default bank when bank is empty), newest
// first, at most limit (0: all).
func (e *Engine) Jobs(ctx context.Context, bank string, limit int) ([]*memory.Job, error) {
	bank = defaultBank(bank)
	return e.store.Jobs(ctx, bank, limit)
}

// RunJobs runs every due job of every bank, one after the other, and
// returns how many it ran (whatever their outcome): what `mnemo jobs run`
// does, and what the background worker does every Config.JobPoll. Jobs
// left running by a worker that died (no heartbeat for a lease,
// Config.JobLease) are queued again first. A job that failed for a temporary reason
// and waits out its backoff is not due: it is left for a later call. It
// stops early when ctx ends; the job it interrupted is queued again.
func (e *Engine) RunJobs(ctx context.Context) (int, error) {
	return e.jobs.run(ctx)
}

func (r *jobRunner) run(ctx context.Context) (int, error) {
	now := r.e.now()
	if n, err := r.e.store.RequeueJobs(ctx, now.Add(-r.lease)); err != nil {
		return 0, err
	} else if n > 0 {
		r.e.log.Info("requeued abandoned jobs", "count", n)
	}
	ran := 0
	for ctx.Err() == nil {
		j, err := r.e.store.ClaimJob(ctx, r.e.now().UTC().Truncate(time.Microsecond))
		if memory.ErrorCode(err) == memory.ENOTFOUND {
			return ran, nil
		}
		if err != nil {
			return ran, err
		}
		ran++
		if err := r.runJob(ctx, j); err != nil {
			return ran, err
		}
	}
	return ran, ctx.Err()
}

// runJob runs one claimed job, renewing its claim while it runs
// (heartbeat), and records its end. Only a failure to record it is
// returned; the job's own failure is recorded in it. A job whose claim
// was lost is stopped and left to the worker that holds it now.
func (r *jobRunner) runJob(ctx context.Context, j *memory.Job) error {
	jctx, cancel := context.WithCancelCause(ctx)
	beating := r.heartbeat(jctx, j, cancel)
	res, err := r.e.execute(jctx, j)
	cancel(nil)
	<-beating
	if errors.Is(context.Cause(jctx), errLeaseLost) && ctx.Err() == nil {
		r.e.log.Warn("job stopped: its lease was lost, another worker may run it", "bank", j.BankID, "job", j.ID, "attempt", j.Attempts)
		return nil
	}
	now := r.e.now().UTC().Truncate(time.Microsecond)
	j.UpdatedAt, j.Result, j.Error = now, nil, ""
	switch {
	case err == nil:
		j.Status, j.Result = memory.JobDone, res
	case ctx.Err() != nil:
		// Interrupted by shutdown: not the job's fault, due again at once.
		j.Status, j.Error = memory.JobQueued, "interrupted: the engine stopped while the job ran"
	case memory.ErrorCode(err) == memory.EUNAVAILABLE && j.Attempts < r.attempts:
		j.Status, j.Error = memory.JobQueued, jobError(err)
		j.UpdatedAt = now.Add(r.backoff << (j.Attempts - 1))
	default:
		j.Status, j.Error = memory.JobFailed, jobError(err)
	}
	if err != nil && ctx.Err() == nil {
		r.e.log.Warn("job failed", "bank", j.BankID, "job", j.ID, "attempt", j.Attempts, "status", j.Status, "err", err)
	}
	// Record the end even when ctx ended: the job must not stay running.
	if err := r.e.store.FinishJob(context.WithoutCancel(ctx), j); err != nil {
		if memory.ErrorCode(err) == memory.ECONFLICT {
			// The lease ran out between the last heartbeat and the end:
			// the job is another worker's now, and its end is theirs.
			r.e.log.Warn("job finished after its lease was lost: its end is not recorded", "bank", j.BankID, "job", j.ID, "err", err)
			return nil
		}
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

// heartbeat renews j's claim every quarter lease until ctx ends, and
// returns a channel closed when it has stopped. If the claim is lost
// (ECONFLICT, ENOTFOUND) — or cannot be renewed before the lease runs
// out, so that another worker may take the job — it cancels the job
// with errLeaseLost: a job never runs on under a claim it does not hold.
func (r *jobRunner) heartbeat(ctx context.Context, j *memory.Job, cancel context.CancelCauseFunc) <-chan struct{} {
	done := make(chan struct{})
	every := r.lease / 4
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		last := time.Now() // the claim was made just before
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			err := r.e.store.RenewJob(ctx, j, r.e.now())
			switch {
			case err == nil:
				last = time.Now()
				continue
			case ctx.Err() != nil:
				return
			case memory.ErrorCode(err) == memory.ECONFLICT || memory.ErrorCode(err) == memory.ENOTFOUND:
				cancel(errLeaseLost)
				return
			}
			r.e.log.Warn("job heartbeat failed", "bank", j.BankID, "job", j.ID, "err", err)
			if time.Since(last) > r.lease-every {
				// The next tick would come after the lease ran out.
				cancel(errLeaseLost)
				return
			}
		}
	}()
	return done
}

// jobError is the message a failed job keeps: an *memory.Error's message,
// or the whole text of any other error (a job's error is read later, away
// from the log that has the details).
func jobError(err error) string {
	var me *memory.Error
	if errors.As(err, &me) {
		return me.Message
	}
	return err.Error()
}

// execute does a job's work and returns its JSON result.
func (e *Engine) execute(ctx context.Context, j *memory.Job) ([]byte, error) {
	switch j.Kind {
	case memory.JobRetain:
		var req memory.RetainRequest
		if err := json.Unmarshal(j.Payload, &req); err != nil {
			return nil, memory.Errorf(memory.EINVALID, "job %s: bad payload: %v", j.ID, err)
		}
		if req.BankID != j.BankID {
			return nil, memory.Errorf(memory.EINVALID, "job %s: payload names bank %q, not the job's %q", j.ID, req.BankID, j.BankID)
		}
		res, err := e.Retain(ctx, req)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	case consolidate.JobKind:
		return e.runConsolidationJob(ctx, j)
	case WebhookJobKind:
		return e.deliver(ctx, j)
	}
	return nil, memory.Errorf(memory.EINVALID, "job %s: unknown kind %q", j.ID, j.Kind)
}
