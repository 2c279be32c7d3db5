package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/sqlite"
)

// A worker process killed with SIGKILL while it runs a job leaves the job
// running under a claim nobody renews: another process leaves it alone
// while the lease lasts, then queues it again and runs it (one more
// attempt), and it ends done.
func TestJobs_KilledHolderIsRequeuedAfterItsLease(t *testing.T) {
	const lease = 600 * time.Millisecond
	var calls atomic.Int32
	first := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if calls.Add(1) == 1 {
			close(first)
			select { // the first holder never gets an answer: it is killed
			case <-r.Context().Done():
			case <-time.After(20 * time.Second):
			}
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	db := newDB(t)
	for _, args := range [][]string{
		{"bank", "create", "b"},
		{"--bank", "b", "webhooks", "add", "--event", "retain.done", srv.URL},
		{"--bank", "b", "retain", "Melanie adopted a puppy named Biscuit."},
	} {
		if r := exe(t, db, args...); r.code != exitOK {
			t.Fatalf("mnemo %s: %v", strings.Join(args, " "), r)
		}
	}
	env := append(os.Environ(), "MNEMO_JOB_LEASE="+lease.String())
	holder := exec.Command(binary(t), "--db", db, "jobs", "run")
	holder.Env = env
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-first:
	case <-time.After(20 * time.Second):
		holder.Process.Kill()
		t.Fatal("the holder never delivered")
	}
	time.Sleep(lease / 2) // a heartbeat or two
	if err := holder.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	holder.Wait()
	killed := time.Now()

	st, err := sqlite.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	jobs, err := st.Jobs(context.Background(), "b", 0)
	if err != nil || len(jobs) != 1 || jobs[0].Status != memory.JobRunning || jobs[0].Attempts != 1 {
		t.Fatalf("after the kill: %+v, %v; want one job running at attempt 1", jobs, err)
	}
	run := func() result {
		cmd := exec.Command(binary(t), "--db", db, "jobs", "run")
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		code := 0
		if err != nil {
			code = -1
		}
		return result{code: code, stdout: string(out)}
	}
	// Within the lease, the dead holder's claim stands.
	if time.Since(killed) < lease/2 {
		if r := run(); r.code != exitOK {
			t.Fatalf("jobs run within the lease: %v", r)
		}
		if j, _ := st.Job(context.Background(), "b", jobs[0].ID); calls.Load() != 1 || (time.Since(killed) < lease/2 && j.Status != memory.JobRunning) {
			t.Fatalf("within the lease: %d deliveries, job %+v; want the claim left alone", calls.Load(), j)
		}
	}
	time.Sleep(lease + lease/2 - time.Since(killed))
	if r := run(); r.code != exitOK {
		t.Fatalf("jobs run after the lease: %v", r)
	}
	j, err := st.Job(context.Background(), "b", jobs[0].ID)
	if err != nil || j.Status != memory.JobDone || j.Attempts != 2 || calls.Load() != 2 {
		t.Fatalf("after the lease: %+v, %v, %d deliveries; want done at attempt 2 after 2 deliveries", j, err, calls.Load())
	}
}
