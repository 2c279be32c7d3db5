package mnemo

import (
	"context"
	"encoding/json"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
)

// consolidationJobs lists bank's consolidation jobs, newest first.
func consolidationJobs(t *testing.T, e *Engine, bank string) []*memory.Job {
	t.Helper()
	all, err := e.Jobs(context.Background(), bank, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []*memory.Job
	for _, j := range all {
		if j.Kind == consolidate.JobKind {
			out = append(out, j)
		}
	}
	return out
}

func payload(t *testing.T, j *memory.Job) consolidate.JobPayload {
	t.Helper()
	var p consolidate.JobPayload
	if err := json.Unmarshal(j.Payload, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// Two engines on one SQLite file (two processes' worth): a bank gets one
// consolidation job at a time, whichever engine looks.
func TestEngine_ScheduleConsolidation(t *testing.T) {
	ctx := context.Background()
	path := newDBPath(t)
	clock := testutil.NewClock(t0) // 09:00 UTC: past the daily 03:00
	cfg := noWorkers
	cfg.Consolidation = consolidate.RunnerConfig{Location: time.UTC}
	a := openAt(t, path, clock, cfg)
	b := openAt(t, path, clock, cfg)
	if _, err := a.Retain(ctx, memory.RetainRequest{Text: "Caroline adopted a dog named Oscar."}); err != nil {
		t.Fatal(err)
	}
	queued, err := a.ScheduleConsolidation(ctx)
	if err != nil || len(queued) != 1 {
		t.Fatalf("first look: got %d jobs, %v; want 1", len(queued), err)
	}
	// Never consolidated: pending (facts) and daily (never ran) are due;
	// the job runs the full order once.
	if p := payload(t, queued[0]); !slices.Equal(p.Passes, consolidate.Order) || !slices.Equal(p.Triggers, []consolidate.Trigger{consolidate.TriggerPending, consolidate.TriggerDaily}) {
		t.Errorf("payload: got %+v, want passes %v by pending and daily", p, consolidate.Order)
	}
	for _, e := range []*Engine{b, a} {
		if queued, err := e.ScheduleConsolidation(ctx); err != nil || len(queued) != 0 {
			t.Fatalf("while one is queued: got %d jobs, %v; want none", len(queued), err)
		}
	}
	runJobs(t, b, 1)
	if j := job(t, a, "", queued[0].ID); j.Status != memory.JobDone {
		t.Fatalf("job: got %+v, want done", j)
	}
	// The job's result is its runs, in the order they ran (the stored
	// records share one start time on the frozen clock).
	var runs []*memory.Run
	if err := json.Unmarshal(job(t, a, "", queued[0].ID).Result, &runs); err != nil || len(runs) != len(consolidate.Order) {
		t.Fatalf("runs: got %d, %v; want %d", len(runs), err, len(consolidate.Order))
	}
	for i, r := range runs {
		// Offline, the passes that need an LLM are skipped, saying why.
		want, status := consolidate.Order[i], memory.RunOK
		if consolidate.NeedsLLM(want) {
			status = memory.RunSkipped
		}
		if r.Pass != want || r.Status != status {
			t.Errorf("run %d: got %s %s, want %s %s", i, r.Pass, r.Status, want, status)
		}
	}
	if stored, err := a.Runs(ctx, "", 0); err != nil || len(stored) != len(consolidate.Order) {
		t.Errorf("stored runs: got %d, %v; want %d", len(stored), err, len(consolidate.Order))
	}
	// Nothing new, daily done: nothing due.
	clock.Advance(time.Minute)
	if queued, err := b.ScheduleConsolidation(ctx); err != nil || len(queued) != 0 {
		t.Fatalf("after the run: got %d jobs, %v; want none", len(queued), err)
	}
	// A new fact: pending once 30 s passed since the merge started.
	if _, err := a.Retain(ctx, memory.RetainRequest{Text: "Melanie painted a sunrise over the lake."}); err != nil {
		t.Fatal(err)
	}
	queued, err = b.ScheduleConsolidation(ctx)
	if err != nil || len(queued) != 1 {
		t.Fatalf("new fact: got %d jobs, %v; want 1", len(queued), err)
	}
	if p := payload(t, queued[0]); !slices.Equal(p.Passes, consolidate.PendingPasses) {
		t.Errorf("pending payload: got %v, want %v", p.Passes, consolidate.PendingPasses)
	}
	jobs := consolidationJobs(t, a, "")
	if len(jobs) != 2 || jobs[0].ID != nextConsolidationID(memory.DefaultBank, jobs[1]) {
		t.Errorf("chain: got %d jobs, want the second derived from the first", len(jobs))
	}
	// Another engine that saw the same last job derives the same id: the
	// queue keeps one.
	if err := a.store.EnqueueJob(ctx, &memory.Job{ID: jobs[0].ID, BankID: memory.DefaultBank, Kind: consolidate.JobKind, Payload: jobs[0].Payload, CreatedAt: clock.Now()}); memory.ErrorCode(err) != memory.ECONFLICT {
		t.Errorf("second enqueue of the same run: got %v, want ECONFLICT", err)
	}
}

// The runner loop queues on its own, and Close stops it with every other
// loop: no goroutine is left.
func TestEngine_ConsolidationLoop_Close(t *testing.T) {
	ctx := context.Background()
	before := runtime.NumGoroutine()
	cfg := noWorkers
	cfg.Consolidation = consolidate.RunnerConfig{PendingEvery: time.Millisecond, Idle: -1, DailyAt: -1}
	e := openAt(t, newDBPath(t), testutil.NewClock(t0), cfg)
	if _, err := e.Retain(ctx, memory.RetainRequest{Text: "Caroline adopted a dog named Oscar."}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(consolidationJobs(t, e, "")) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the runner queued nothing")
		}
		time.Sleep(time.Millisecond)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines: %d after Close, %d before Open", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
}
