package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
)

// TestServe runs `mnemo serve` through run on a free loopback port,
// drives it over HTTP (its background worker runs a queued retain), stops
// it as SIGTERM would, and finds what was retained in the file.
func TestServe(t *testing.T) {
	db := newDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"--db", db, "--json", "serve", "--addr", "127.0.0.1:0", "--insecure-local"}, strings.NewReader(""), &stdout, &stderr)
	}()
	waitFor(t, "serve address", &stdout, "\n", 1)
	var started struct{ Addr string }
	if err := json.Unmarshal([]byte(stdout.String()), &started); err != nil || started.Addr == "" {
		t.Fatalf("serve printed %q: %v", stdout.String(), err)
	}
	base := "http://" + started.Addr
	post := func(path, body string, want int) []byte {
		t.Helper()
		res, err := http.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != want {
			t.Fatalf("POST %s: %d, want %d: %s", path, res.StatusCode, want, b)
		}
		return b
	}
	post("/v1/banks", `{"name":"alice"}`, http.StatusCreated)
	var job wire.Job
	if err := json.Unmarshal(post("/v1/banks/alice/memories", `{"text":"Alice moved to Lisbon.","async":true}`, http.StatusAccepted), &job); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for job.Status != memory.JobDone {
		if time.Now().After(deadline) {
			t.Fatalf("the background worker did not run job %s: %+v", job.ID, job)
		}
		time.Sleep(20 * time.Millisecond)
		res, err := http.Get(base + "/v1/banks/alice/jobs/" + job.ID)
		if err != nil {
			t.Fatal(err)
		}
		json.NewDecoder(res.Body).Decode(&job)
		res.Body.Close()
	}
	// A request in flight when the signal comes: its body is half sent.
	pr, pw := io.Pipe()
	inflight := make(chan int, 1)
	go func() {
		res, err := http.Post(base+"/v1/banks/alice/memories", "application/json", pr)
		if err != nil {
			t.Errorf("in-flight request: %v", err)
			inflight <- 0
			return
		}
		res.Body.Close()
		inflight <- res.StatusCode
	}()
	io.WriteString(pw, `{"text":"Alice adopted a cat`)
	time.Sleep(100 * time.Millisecond) // the server has the first bytes
	cancel()                           // what SIGINT/SIGTERM do through main's signal context
	time.Sleep(100 * time.Millisecond) // shutdown has begun
	io.WriteString(pw, ` named Miso."}`)
	pw.Close()
	if got := <-inflight; got != http.StatusOK {
		t.Errorf("in-flight retain during shutdown: status %d, want 200", got)
	}
	select {
	case c := <-code:
		if c != exitOK {
			t.Fatalf("serve exited %d: %s", c, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	if !strings.Contains(stderr.String(), `"route":"POST /v1/banks/{bank}/memories"`) {
		t.Errorf("no access log line for retain in:\n%s", stderr.String())
	}
	if st := stats(t, db, "alice"); st.Documents != 2 || st.Facts == 0 {
		t.Errorf("after serve: %+v, want both retained documents", st)
	}
}

// TestServe_InsecureNeedsLoopback refuses --insecure-local on an address
// other hosts can reach.
func TestServe_InsecureNeedsLoopback(t *testing.T) {
	r := mnemoRun(t, newDB(t), "serve", "--addr", "0.0.0.0:0", "--insecure-local")
	wantFailure(t, r, exitInvalid, "loopback")
}
