package mnemo

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/hashembed"
)

// These tests are in package mnemo: they drive the background triggers'
// ticks directly, on an injected clock, instead of sleeping.

var t0 = time.Date(2025, time.March, 14, 9, 0, 0, 0, time.UTC)

// openAt opens an engine on the database file path with cfg and the
// clock; the test closes it (again: Close is idempotent) when it ends.
func openAt(t *testing.T, path string, clock *testutil.Clock, cfg Config) *Engine {
	t.Helper()
	if cfg.Store == nil {
		cfg.DB = path
	}
	cfg.Now = clock.Now
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	e, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// noWorkers turns the background job worker and idle trigger off: the
// test runs them by hand.
var noWorkers = Config{JobPoll: -1, SessionIdle: -1}

func newDBPath(t *testing.T) string { return filepath.Join(t.TempDir(), "mnemo.db") }

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := memory.ErrorCode(err); got != code {
		t.Errorf("%s: got error %v (code %q), want code %q", what, err, got, code)
	}
}

func job(t *testing.T, e *Engine, bank, id string) *memory.Job {
	t.Helper()
	j, err := e.Job(context.Background(), bank, id)
	if err != nil {
		t.Fatalf("Job(%s, %s): %v", bank, id, err)
	}
	return j
}

func runJobs(t *testing.T, e *Engine, want int) {
	t.Helper()
	n, err := e.RunJobs(context.Background())
	if err != nil || n != want {
		t.Fatalf("RunJobs: got %d, %v; want %d jobs run", n, err, want)
	}
}

func TestEngine_RetainAsync(t *testing.T) {
	ctx := context.Background()
	t.Run("SurvivesRestart", func(t *testing.T) {
		path, clock := newDBPath(t), testutil.NewClock(t0)
		e := openAt(t, path, clock, noWorkers)
		j, err := e.RetainAsync(ctx, memory.RetainRequest{ItemID: "lisbon", Text: "Caroline moved to Lisbon in May.", Tags: []string{"move"}})
		if err != nil {
			t.Fatalf("RetainAsync: %v", err)
		}
		if j.Status != memory.JobQueued || j.BankID != memory.DefaultBank || j.Kind != memory.JobRetain || !strings.HasPrefix(j.ID, "job_") {
			t.Errorf("RetainAsync: got job %+v, want a queued retain job of the default bank", j)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}

		clock.Advance(time.Minute)
		e = openAt(t, path, clock, noWorkers)
		js, err := e.Jobs(ctx, "", 0)
		if err != nil || len(js) != 1 || js[0].ID != j.ID || js[0].Status != memory.JobQueued {
			t.Fatalf("Jobs after reopening: got %v, %v; want the queued job", js, err)
		}
		if st, _ := e.Stats(ctx, ""); st.Documents != 0 {
			t.Fatalf("the job ran before RunJobs: %d documents", st.Documents)
		}
		runJobs(t, e, 1)
		got := job(t, e, "", j.ID)
		if got.Status != memory.JobDone || got.Attempts != 1 || got.Error != "" || !got.UpdatedAt.Equal(t0.Add(time.Minute)) {
			t.Errorf("job after RunJobs: got %+v, want done after 1 attempt at %v", got, t0.Add(time.Minute))
		}
		var res memory.RetainResult
		if err := json.Unmarshal(got.Result, &res); err != nil || res.Facts == 0 || res.DocumentID == "" {
			t.Errorf("job result %s (%v): want a RetainResult with facts", got.Result, err)
		}
		// Dated when it was queued, not when it ran.
		if d, err := e.store.DocumentByItem(ctx, memory.DefaultBank, memory.SourceAPI, "lisbon"); err != nil || !d.OccurredAt.Equal(t0) {
			t.Errorf("document: %+v, %v; want it dated %v", d, err, t0)
		}
		rec, err := e.Recall(ctx, memory.Query{Text: "Where did Caroline move?"})
		if err != nil || len(rec.Results) == 0 || !strings.Contains(rec.Results[0].Fact.Text, "Lisbon") {
			t.Errorf("Recall after the job: got %v, %v; want the Lisbon fact", rec, err)
		}
		runJobs(t, e, 0)
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		e := openAt(t, newDBPath(t), testutil.NewClock(t0), noWorkers)
		for name, req := range map[string]memory.RetainRequest{
			"empty":       {Text: "  "},
			"bad UTF-8":   {Text: "caf\xe9"},
			"both":        {Text: "x", Messages: []memory.Message{{Text: "y"}}},
			"bad bank":    {BankID: "no such/bank", Text: "x"},
			"over a size": {Text: strings.Repeat("a", memory.MaxContentBytes+1)},
		} {
			_, err := e.RetainAsync(ctx, req)
			wantCode(t, "RetainAsync("+name+")", err, memory.EINVALID)
		}
		_, err := e.RetainAsync(ctx, memory.RetainRequest{BankID: "nope", Text: "x"})
		wantCode(t, "RetainAsync(unknown bank)", err, memory.ENOTFOUND)
		// Nothing was queued; the default bank was not even created.
		if js, err := e.Jobs(ctx, "", 0); memory.ErrorCode(err) != memory.ENOTFOUND || len(js) != 0 {
			t.Errorf("Jobs after refused requests: got %v, %v; want ENOTFOUND (no default bank yet)", js, err)
		}
		_, err = e.Job(ctx, "", "job_nope")
		wantCode(t, "Job(unknown)", err, memory.ENOTFOUND)
	})
	t.Run("Worker", func(t *testing.T) {
		// The background worker runs a queued job without being asked.
		e := openAt(t, newDBPath(t), testutil.NewClock(t0), Config{JobPoll: 5 * time.Millisecond, SessionIdle: -1})
		j, err := e.RetainAsync(ctx, memory.RetainRequest{Text: "Melanie paints sunsets."})
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for job(t, e, "", j.ID).Status != memory.JobDone {
			if time.Now().After(deadline) {
				t.Fatalf("the worker did not run the job: %+v", job(t, e, "", j.ID))
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

// flakyEmbedder fails its first fails calls with err, then embeds.
type flakyEmbedder struct {
	memory.Embedder
	err   error
	fails int
	calls int
	hook  func() // called on each call, when set
}

func (f *flakyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.calls++
	if f.hook != nil {
		f.hook()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if f.calls <= f.fails {
		return nil, f.err
	}
	return f.Embedder.Embed(ctx, texts)
}

func TestEngine_RunJobs(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T, emb *flakyEmbedder) (*Engine, *testutil.Clock, *memory.Job) {
		t.Helper()
		emb.Embedder = hashembed.New(hashembed.DefaultDimension)
		clock := testutil.NewClock(t0)
		cfg := noWorkers
		cfg.Embedder = emb
		e := openAt(t, newDBPath(t), clock, cfg)
		j, err := e.RetainAsync(ctx, memory.RetainRequest{Text: "Caroline adopted a dog named Oscar."})
		if err != nil {
			t.Fatal(err)
		}
		return e, clock, j
	}
	t.Run("UnavailableRetried", func(t *testing.T) {
		emb := &flakyEmbedder{err: memory.Errorf(memory.EUNAVAILABLE, "embedder down"), fails: 1}
		e, clock, j := setup(t, emb)
		runJobs(t, e, 1)
		got := job(t, e, "", j.ID)
		if got.Status != memory.JobQueued || got.Attempts != 1 || got.Error != "embedder down" {
			t.Fatalf("after a temporary failure: got %+v, want queued after 1 attempt with the error", got)
		}
		runJobs(t, e, 0) // waits out its backoff
		clock.Advance(DefaultJobBackoff)
		runJobs(t, e, 1)
		if got := job(t, e, "", j.ID); got.Status != memory.JobDone || got.Attempts != 2 || got.Error != "" {
			t.Errorf("after the retry: got %+v, want done after 2 attempts", got)
		}
		if st, _ := e.Stats(ctx, ""); st.Documents != 1 {
			t.Errorf("documents: got %d, want 1", st.Documents)
		}
	})
	t.Run("UnavailableGivesUp", func(t *testing.T) {
		emb := &flakyEmbedder{err: memory.Errorf(memory.EUNAVAILABLE, "embedder down"), fails: 100}
		e, clock, j := setup(t, emb)
		for attempt := 1; attempt <= DefaultJobAttempts; attempt++ {
			runJobs(t, e, 1)
			got := job(t, e, "", j.ID)
			want := memory.JobQueued
			if attempt == DefaultJobAttempts {
				want = memory.JobFailed
			}
			if got.Status != want || got.Attempts != attempt || got.Error != "embedder down" {
				t.Fatalf("attempt %d: got %+v, want %s", attempt, got, want)
			}
			// The backoff doubles: not due a moment before it ends.
			backoff := DefaultJobBackoff << (attempt - 1)
			clock.Advance(backoff - time.Millisecond)
			runJobs(t, e, 0)
			clock.Advance(time.Millisecond)
		}
		runJobs(t, e, 0)
		if st, _ := e.Stats(ctx, ""); st.Documents != 0 {
			t.Errorf("a failed job wrote %d documents", st.Documents)
		}
	})
	t.Run("FailsAtOnce", func(t *testing.T) {
		emb := &flakyEmbedder{err: errors.New("disk on fire"), fails: 100}
		e, _, j := setup(t, emb)
		runJobs(t, e, 1)
		if got := job(t, e, "", j.ID); got.Status != memory.JobFailed || got.Attempts != 1 || !strings.Contains(got.Error, "disk on fire") || len(got.Result) != 0 {
			t.Errorf("after a lasting failure: got %+v, want failed after 1 attempt with the error", got)
		}
	})
	t.Run("Interrupted", func(t *testing.T) {
		emb := &flakyEmbedder{}
		e, _, j := setup(t, emb)
		rctx, cancel := context.WithCancel(ctx)
		emb.hook = cancel // the engine stops while the job runs
		n, err := e.RunJobs(rctx)
		if n != 1 || !errors.Is(err, context.Canceled) {
			t.Fatalf("RunJobs(interrupted): got %d, %v; want 1, context.Canceled", n, err)
		}
		got := job(t, e, "", j.ID)
		if got.Status != memory.JobQueued || !strings.Contains(got.Error, "interrupted") {
			t.Fatalf("interrupted job: got %+v, want queued again", got)
		}
		emb.hook = nil
		runJobs(t, e, 1)
		if got := job(t, e, "", j.ID); got.Status != memory.JobDone {
			t.Errorf("after the interruption: got %+v, want done", got)
		}
	})
	t.Run("Lease", func(t *testing.T) {
		// A job claimed by a process that died is run once its lease is
		// over; one claimed by a live process recently is left to it.
		clock := testutil.NewClock(t0)
		e := openAt(t, newDBPath(t), clock, noWorkers)
		dead, err := e.RetainAsync(ctx, memory.RetainRequest{Text: "Caroline went to a support group."})
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Millisecond)
		live, err := e.RetainAsync(ctx, memory.RetainRequest{Text: "Melanie ran a charity race."})
		if err != nil {
			t.Fatal(err)
		}
		if j, err := e.store.ClaimJob(ctx, clock.Now()); err != nil || j.ID != dead.ID {
			t.Fatalf("claim for the dead worker: %v, %v", j, err)
		}
		clock.Advance(DefaultJobLease - time.Minute)
		if j, err := e.store.ClaimJob(ctx, clock.Now()); err != nil || j.ID != live.ID {
			t.Fatalf("claim for the live worker: %v, %v", j, err)
		}
		runJobs(t, e, 0) // the dead worker's lease is not over yet
		clock.Advance(2 * time.Minute)
		runJobs(t, e, 1)
		if got := job(t, e, "", dead.ID); got.Status != memory.JobDone || got.Attempts != 2 {
			t.Errorf("abandoned job: got %+v, want done on its 2nd attempt", got)
		}
		if got := job(t, e, "", live.ID); got.Status != memory.JobRunning {
			t.Errorf("live job: got %+v, want still running (its worker's)", got)
		}
	})
}
