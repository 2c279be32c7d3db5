package mnemo_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/sqlite"
)

// leaseEngine opens an engine on db with a short job lease and no
// background worker: jobs run only through RunJobs.
func leaseEngine(t *testing.T, db string, lease time.Duration) *mnemo.Engine {
	t.Helper()
	eng, err := mnemo.Open(t.Context(), mnemo.Config{DB: db, JobPoll: -1, SessionIdle: -1, AccessFlush: -1, JobLease: lease})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

// queueDelivery subscribes url to bank b's retains and retains once: one
// webhook delivery job is queued; it returns the job.
func queueDelivery(t *testing.T, eng *mnemo.Engine, url string) *memory.Job {
	t.Helper()
	ctx := t.Context()
	if _, err := eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.CreateWebhook(ctx, "b", url, []string{"retain.done"}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "b", Text: "Melanie adopted a puppy named Biscuit."}); err != nil {
		t.Fatal(err)
	}
	jobs, err := eng.WebhookDeliveries(ctx, "b", 0)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("deliveries queued: %v, %v", jobs, err)
	}
	return jobs[0]
}

// A job that runs for many lease periods keeps its claim by its
// heartbeat: another worker (another engine on the same file, as another
// process would be) polling all the while never runs it a second time.
func TestJobs_HeartbeatKeepsALongJob(t *testing.T) {
	// A lease long enough that a heartbeat delayed by a loaded machine
	// (a test run on two cores) still lands in time.
	const lease = time.Second
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		time.Sleep(4 * lease) // a slow but live job: four lease periods
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "m.db")
	a, b := leaseEngine(t, db, lease), leaseEngine(t, db, lease)
	j := queueDelivery(t, a, srv.URL)

	done := make(chan error, 1)
	go func() { _, err := a.RunJobs(t.Context()); done <- err }()
	var other int
	for deadline := time.After(20 * time.Second); ; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("RunJobs (holder): %v", err)
			}
			got, err := a.Job(t.Context(), "b", j.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != memory.JobDone || got.Attempts != 1 || calls.Load() != 1 {
				t.Fatalf("after four lease periods: job %s, attempt %d, %d deliveries; want done, 1, 1 (the other worker polled %d times)",
					got.Status, got.Attempts, calls.Load(), other)
			}
			if other < 10 {
				t.Fatalf("the other worker polled only %d times", other)
			}
			return
		case <-deadline:
			t.Fatal("the job did not finish")
		case <-time.After(lease / 4):
			if _, err := b.RunJobs(t.Context()); err != nil {
				t.Fatalf("RunJobs (other worker): %v", err)
			}
			other++
		}
	}
}

// A holder whose claim is lost (requeued behind its back, as when its
// heartbeats could not reach the database for a lease) stops the job at
// its next heartbeat and records nothing; the job is queued again and
// runs once more under a new claim.
func TestJobs_LostLeaseStopsTheHolder(t *testing.T) {
	const lease = 200 * time.Millisecond
	var calls atomic.Int32
	cancelled := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // then the server notices a client that goes away
		if calls.Add(1) == 1 {
			select { // the first holder hangs until it gives up
			case <-r.Context().Done():
				cancelled <- struct{}{}
			case <-time.After(10 * time.Second):
			}
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "m.db")
	a := leaseEngine(t, db, lease)
	j := queueDelivery(t, a, srv.URL)
	// A second handle on the file, to take the claim away.
	st, err := sqlite.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	done := make(chan error, 1)
	go func() { _, err := a.RunJobs(t.Context()); done <- err }()
	for calls.Load() == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	if got, err := st.Job(t.Context(), "b", j.ID); err != nil || got.Status != memory.JobRunning || got.Attempts != 1 {
		t.Fatalf("while the holder runs it: %+v, %v", got, err)
	}
	// Requeue everything claimed before an hour from now.
	if n, err := st.RequeueJobs(context.Background(), time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("RequeueJobs: %d, %v", n, err)
	}
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the holder went on after losing its claim")
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("RunJobs (holder): %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("RunJobs did not return")
	}
	// The holder's loop, or the next worker, runs the requeued job once
	// more, under a new claim.
	if _, err := a.RunJobs(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.Job(t.Context(), "b", j.ID); got.Status != memory.JobDone || got.Attempts != 2 || calls.Load() != 2 {
		t.Fatalf("after the lost claim: %+v, %d deliveries; want done at attempt 2, 2 deliveries", got, calls.Load())
	}
}
