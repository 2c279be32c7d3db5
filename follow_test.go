package mnemo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
)

// appendFile appends text to the file dir/name, creating it.
func appendFile(t *testing.T, dir, name, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func chatLine(speaker, text string) string {
	return fmt.Sprintf(`{"speaker": %q, "text": %q, "time": "2025-03-14T09:00:00Z"}`+"\n", speaker, text)
}

// followOnce runs one Follow pass and returns the events, as
// "file@offset ok|dup|skip".
func followOnce(t *testing.T, e *Engine, dir string) []string {
	t.Helper()
	var evs []string
	err := e.Follow(context.Background(), FollowOptions{Dir: dir, Poll: -1, OnLine: func(ev FollowEvent) {
		what := "ok"
		switch {
		case ev.Err != nil:
			what = "skip"
		case ev.Result.Duplicate:
			what = "dup"
		case ev.Result.Facts == 0:
			what = "no facts"
		}
		evs = append(evs, fmt.Sprintf("%s@%d %s", ev.File, ev.Offset, what))
	}})
	if err != nil {
		t.Fatalf("Follow: %v", err)
	}
	return evs
}

func checkEvents(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: events\n got %q\nwant %q", what, got, want)
	}
}

func watermark(t *testing.T, e *Engine, file string) *memory.Watermark {
	t.Helper()
	wm, err := e.store.Watermark(context.Background(), memory.DefaultBank, FollowSourcePrefix+file)
	if err != nil {
		t.Fatalf("Watermark(%s): %v", file, err)
	}
	return wm
}

func documents(t *testing.T, e *Engine) int {
	t.Helper()
	st, err := e.Stats(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return st.Documents
}

// Follow takes in complete lines only, and after a restart resumes where
// it stopped without retaining a line twice.
func TestEngine_Follow_Resume(t *testing.T) {
	dir := t.TempDir()
	path, clock := newDBPath(t), testutil.NewClock(t0)
	l1, l2 := chatLine("Caroline", "I moved to Lisbon in May."), chatLine("Melanie", "How do you like it?")
	partial := chatLine("Caroline", "I love the light here.")
	appendFile(t, dir, "a.jsonl", l1+l2+partial[:20])
	appendFile(t, dir, "b.jsonl", chatLine("Melanie", "I ran a marathon."))
	appendFile(t, dir, "notes.txt", "not followed\n")
	appendFile(t, dir, ".hidden.jsonl", chatLine("x", "hidden"))

	e := openAt(t, path, clock, noWorkers)
	off2 := len(l1)
	checkEvents(t, "first pass", followOnce(t, e, dir), "a.jsonl@0 ok", fmt.Sprintf("a.jsonl@%d ok", off2), "b.jsonl@0 ok")
	if wm := watermark(t, e, "a.jsonl"); wm.LastItem != strconv.Itoa(len(l1+l2)) || wm.LastError != "" || !wm.UpdatedAt.Equal(t0) {
		t.Errorf("watermark of a.jsonl: %+v, want the offset after line 2 (%d)", wm, len(l1+l2))
	}
	d, err := e.store.DocumentByItem(context.Background(), memory.DefaultBank, memory.SourceChat, fmt.Sprintf("a.jsonl@%d", off2))
	if err != nil || d.Metadata["file"] != "a.jsonl" || !d.OccurredAt.Equal(t0) {
		t.Errorf("document of line 2: %+v, %v", d, err)
	}
	checkEvents(t, "nothing new", followOnce(t, e, dir))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	// The partial line gets its newline and a line follows it; a new
	// engine takes in only those.
	appendFile(t, dir, "a.jsonl", partial[20:]+chatLine("Melanie", "Sounds wonderful."))
	clock.Advance(time.Hour)
	e = openAt(t, path, clock, noWorkers)
	off3 := len(l1 + l2)
	checkEvents(t, "after restart", followOnce(t, e, dir), fmt.Sprintf("a.jsonl@%d ok", off3), fmt.Sprintf("a.jsonl@%d ok", off3+len(partial)))
	if n := documents(t, e); n != 5 {
		t.Errorf("documents: %d, want 5 (one per line, none twice)", n)
	}
	rec, err := e.Recall(context.Background(), memory.Query{Text: "What does Caroline love about Lisbon?"})
	if err != nil || len(rec.Results) == 0 {
		t.Errorf("Recall: %v, %v", rec, err)
	}
}

// A malformed line is skipped and recorded; the lines after it go in, and
// it is not reported again after a restart.
func TestEngine_Follow_Malformed(t *testing.T) {
	dir := t.TempDir()
	path, clock := newDBPath(t), testutil.NewClock(t0)
	good := chatLine("Caroline", "I adopted a dog.")
	bad := `{"speaker": "Caroline", "text": ` + "\n"
	noText := `{"speaker": "Melanie", "text": ""}` + "\n"
	badTime := `{"speaker": "Melanie", "text": "hi", "time": "yesterday-ish"}` + "\n"
	blank := "  \r\n"
	appendFile(t, dir, "s.jsonl", good+bad+noText+blank+badTime+chatLine("Melanie", "What is its name?"))
	e := openAt(t, path, clock, noWorkers)
	o := []int{0, len(good), len(good + bad), len(good + bad + noText + blank), len(good + bad + noText + blank + badTime)}
	checkEvents(t, "pass", followOnce(t, e, dir),
		"s.jsonl@0 ok", fmt.Sprintf("s.jsonl@%d skip", o[1]), fmt.Sprintf("s.jsonl@%d skip", o[2]),
		fmt.Sprintf("s.jsonl@%d skip", o[3]), fmt.Sprintf("s.jsonl@%d ok", o[4]))
	wm := watermark(t, e, "s.jsonl")
	wantErr := fmt.Sprintf("s.jsonl at byte %d: cannot read time", o[3])
	if !strings.HasPrefix(wm.LastError, wantErr) {
		t.Errorf("watermark LastError %q, want it to start %q", wm.LastError, wantErr)
	}
	if n := documents(t, e); n != 2 {
		t.Errorf("documents: %d, want 2", n)
	}
	e.Close()

	e = openAt(t, path, clock, noWorkers)
	checkEvents(t, "after restart", followOnce(t, e, dir))
	appendFile(t, dir, "s.jsonl", chatLine("Caroline", "Her name is Pepper."))
	followOnce(t, e, dir)
	// The last error stays until another line is skipped.
	if wm := watermark(t, e, "s.jsonl"); !strings.HasPrefix(wm.LastError, wantErr) {
		t.Errorf("LastError after a good line: %q, want it kept", wm.LastError)
	}
}

// A line too long to retain is skipped whole; the next line goes in.
func TestEngine_Follow_LongLine(t *testing.T) {
	dir := t.TempDir()
	e := openAt(t, newDBPath(t), testutil.NewClock(t0), noWorkers)
	long := `{"speaker": "x", "text": "` + strings.Repeat("a", maxFollowLine) + `"}` + "\n"
	appendFile(t, dir, "l.jsonl", long+chatLine("Caroline", "Short and sweet."))
	checkEvents(t, "pass", followOnce(t, e, dir), "l.jsonl@0 skip", fmt.Sprintf("l.jsonl@%d ok", len(long)))
}

// A file rewritten shorter is followed again from its start; unchanged
// lines are known (duplicates).
func TestEngine_Follow_Rewritten(t *testing.T) {
	dir := t.TempDir()
	e := openAt(t, newDBPath(t), testutil.NewClock(t0), noWorkers)
	l1 := chatLine("Caroline", "I moved to Lisbon.")
	appendFile(t, dir, "r.jsonl", l1+chatLine("Melanie", "A long line about many many many different things."))
	followOnce(t, e, dir)
	if err := os.WriteFile(filepath.Join(dir, "r.jsonl"), []byte(l1), 0o644); err != nil {
		t.Fatal(err)
	}
	checkEvents(t, "after the rewrite", followOnce(t, e, dir), "r.jsonl@0 dup")
	if wm := watermark(t, e, "r.jsonl"); wm.LastItem != strconv.Itoa(len(l1)) {
		t.Errorf("watermark after the rewrite: %q, want %d", wm.LastItem, len(l1))
	}
	appendFile(t, dir, "r.jsonl", chatLine("Melanie", "Congratulations!"))
	checkEvents(t, "then", followOnce(t, e, dir), fmt.Sprintf("r.jsonl@%d ok", len(l1)))
}

// Follow polls until its context ends, then returns nil.
func TestEngine_Follow_Polls(t *testing.T) {
	dir := t.TempDir()
	e := openAt(t, newDBPath(t), testutil.NewClock(t0), noWorkers)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := make(chan FollowEvent, 10)
	done := make(chan error, 1)
	go func() {
		done <- e.Follow(ctx, FollowOptions{Dir: dir, Poll: 5 * time.Millisecond, OnLine: func(ev FollowEvent) { events <- ev }})
	}()
	next := func() FollowEvent {
		t.Helper()
		select {
		case ev := <-events:
			return ev
		case <-time.After(10 * time.Second):
			t.Fatal("no line taken in")
		}
		return FollowEvent{}
	}
	appendFile(t, dir, "live.jsonl", chatLine("Caroline", "First."))
	if ev := next(); ev.File != "live.jsonl" || ev.Offset != 0 || ev.Err != nil {
		t.Errorf("first event: %+v", ev)
	}
	appendFile(t, dir, "live.jsonl", chatLine("Melanie", "Second."))
	if ev := next(); ev.Offset == 0 || ev.Err != nil {
		t.Errorf("second event: %+v", ev)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Follow after cancel: %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Follow did not return after cancel")
	}
}

func TestEngine_Follow_Err(t *testing.T) {
	ctx := context.Background()
	e := openAt(t, newDBPath(t), testutil.NewClock(t0), noWorkers)
	dir := t.TempDir()
	file := filepath.Join(dir, "f.jsonl")
	appendFile(t, dir, "f.jsonl", chatLine("x", "y"))
	for name, opts := range map[string]FollowOptions{
		"missing folder": {Dir: filepath.Join(dir, "nope"), Poll: -1},
		"a file":         {Dir: file, Poll: -1},
		"bad bank":       {Dir: dir, Bank: "a/b", Poll: -1},
	} {
		wantCode(t, "Follow("+name+")", e.Follow(ctx, opts), memory.EINVALID)
	}
	wantCode(t, "Follow(unknown bank)", e.Follow(ctx, FollowOptions{Dir: dir, Bank: "nope", Poll: -1}), memory.ENOTFOUND)

	// Stopped before it began (mnemo import --watch stopped between its
	// first pass and the watch): a clean stop, nothing taken in.
	if _, err := e.CreateBank(ctx, memory.DefaultBank); err != nil {
		t.Fatal(err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if err := e.Follow(done, FollowOptions{Dir: dir, Poll: -1}); err != nil {
		t.Errorf("Follow with an ended context: %v, want nil", err)
	}
	if st, err := e.Stats(ctx, memory.DefaultBank); err != nil || st.Documents != 0 {
		t.Errorf("after a Follow that never began: %+v, %v", st, err)
	}
}
