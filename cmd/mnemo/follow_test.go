package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe to write from one goroutine while
// another reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until buf holds n occurrences of sub.
func waitFor(t *testing.T, what string, buf *syncBuffer, sub string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(buf.String(), sub) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%s: waited for %d × %q, got:\n%s", what, n, sub, buf.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// watching is a `mnemo import --watch` running through run.
type watching struct {
	stdout, stderr syncBuffer
	cancel         context.CancelFunc
	code           chan int
}

func startWatch(t *testing.T, db string, args ...string) *watching {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &watching{cancel: cancel, code: make(chan int, 1)}
	go func() {
		w.code <- run(ctx, append([]string{"--db", db}, args...), strings.NewReader(""), &w.stdout, &w.stderr)
	}()
	t.Cleanup(cancel)
	return w
}

// stop stops the watch as SIGINT does and returns its exit code.
func (w *watching) stop(t *testing.T) int {
	t.Helper()
	w.cancel()
	select {
	case code := <-w.code:
		return code
	case <-time.After(20 * time.Second):
		t.Fatal("the watch did not stop")
	}
	return -1
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

func TestImport_Watch(t *testing.T) {
	db, dir := newDB(t), t.TempDir()
	seg := filepath.Join(dir, "seg-001.jsonl")
	l1 := chatLine("", "Caroline", "I moved to Lisbon in May.") + "\n"
	partial := chatLine("", "Melanie", "Lisbon has great light for painting.") + "\n"
	appendTo(t, seg, l1+"{not json\n"+partial[:15])

	w := startWatch(t, db, "import", "--watch", dir, "--poll", "10ms")
	waitFor(t, "first line", &w.stdout, "remembered", 1)
	waitFor(t, "malformed line", &w.stderr, "skipped", 1)
	appendTo(t, filepath.Join(dir, "seg-002.jsonl"), chatLine("", "Melanie", "I ran a charity race.")+"\n")
	waitFor(t, "a new file", &w.stdout, "remembered", 2)
	if code := w.stop(t); code != exitOK {
		t.Fatalf("watch stopped with exit %d, want 0\nstdout: %s\nstderr: %s", code, w.stdout.String(), w.stderr.String())
	}
	if got := w.stdout.String(); !strings.Contains(got, "seg-001.jsonl@0: remembered") || strings.Contains(got, "Melanie") {
		t.Errorf("stdout:\n%s", got)
	}
	if got := w.stderr.String(); !strings.Contains(got, "seg-001.jsonl@"+itoa(len(l1))+": skipped: ") {
		t.Errorf("stderr:\n%s", got)
	}
	if st := stats(t, db, "default"); st.Documents != 2 {
		t.Fatalf("documents after the first watch: %d, want 2", st.Documents)
	}

	// The partial line is completed while nothing watches; a new watch
	// takes in only it, with --json.
	appendTo(t, seg, partial[15:])
	w = startWatch(t, db, "--json", "import", "--watch", dir, "--poll", "10ms")
	waitFor(t, "the completed line", &w.stdout, "\n", 1)
	if code := w.stop(t); code != exitOK {
		t.Fatalf("second watch: exit %d\n%s", code, w.stderr.String())
	}
	var ev struct {
		File   string `json:"file"`
		Offset int64  `json:"offset"`
		Result struct {
			DocumentID string          `json:"document_id"`
			Duplicate  bool            `json:"duplicate"`
			Facts      int             `json:"facts"`
			Entities   int             `json:"entities"`
			Links      int             `json:"links"`
			Outcomes   json.RawMessage `json:"outcomes"`
		} `json:"result"`
	}
	lines := strings.Split(strings.TrimSpace(w.stdout.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("second watch printed %d events, want 1 (nothing twice):\n%s", len(lines), w.stdout.String())
	}
	decodeStrict(t, lines[0], &ev)
	if ev.File != "seg-001.jsonl" || ev.Offset != int64(len(l1)+len("{not json\n")) || ev.Result.Duplicate || ev.Result.Facts == 0 {
		t.Errorf("event: %+v", ev)
	}
	if st := stats(t, db, "default"); st.Documents != 3 {
		t.Errorf("documents after the second watch: %d, want 3", st.Documents)
	}
	if got := mustRun(t, db, "recall", "What is Lisbon good for?"); !strings.Contains(got, "painting") {
		t.Errorf("recall: %q", got)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestImport_WatchBadInput(t *testing.T) {
	db, dir := newDB(t), t.TempDir()
	wantFailure(t, mnemoRun(t, db, "import", "--watch", filepath.Join(dir, "nope")), exitInvalid, "nope")
	wantFailure(t, mnemoRun(t, db, "import", "--watch", "--format", "locomo", dir), exitInvalid, "--watch")
	wantFailure(t, mnemoRun(t, db, "import", "--watch", "--poll", "0s", dir), exitInvalid, "--poll")
	wantFailure(t, mnemoRun(t, db, "import", "--poll", "1s", filepath.Join(dir, "x.jsonl")), exitInvalid, "--poll needs --watch")
	wantFailure(t, mnemoRun(t, db, "--bank", "nope", "import", "--watch", dir), exitNotFound, "nope")
}

// The real binary stops cleanly on SIGINT.
func TestImport_WatchSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send")
	}
	db, dir := newDB(t), t.TempDir()
	cmd := exec.Command(binary(t), "--db", db, "import", "--watch", dir, "--poll", "10ms")
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitFor(t, "start", &stderr, "watching", 1)
	appendTo(t, filepath.Join(dir, "a.jsonl"), chatLine("", "Caroline", "I adopted a dog named Pepper.")+"\n")
	waitFor(t, "line", &stdout, "remembered", 1)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after SIGINT: %v\nstderr: %s", err, stderr.String())
	}
	if st := stats(t, db, "default"); st.Documents != 1 {
		t.Errorf("documents: %d, want 1", st.Documents)
	}
}
