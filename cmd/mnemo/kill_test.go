package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/retain"
	"github.com/mnemo-ai/mnemo/store/sqlite"
)

// killTrials is how many times TestRetain_KilledMidWrite kills a retain.
const killTrials = 24

// TestRetain_KilledMidWrite kills a `mnemo retain` process (SIGKILL) at a
// random moment, killTrials times, and checks that the database then holds
// either the whole document with all its facts or nothing of it: never a
// partial document. The kill moments are spread over the later 80 % of
// the run, so some fall into extraction, some into the write and some
// after it. The document is one segment long (retain.DefaultSegmentBytes):
// a longer one is resumable instead (TestRetain_KilledMidSegments).
func TestRetain_KilledMidWrite(t *testing.T) {
	bin := binary(t)
	// A long item: many sentences, many facts, a write of noticeable length.
	var b strings.Builder
	for i := 0; b.Len() < retain.DefaultSegmentBytes-100; i++ {
		fmt.Fprintf(&b, "On day %d Mira walked %d kilometres along the river with Theo and counted %d herons. ", i, i%17+1, i%5+2)
	}
	text := b.String()
	ctx := context.Background()

	// A reference run gives the full document's fact count and the run time.
	ref := filepath.Join(t.TempDir(), "ref.db")
	start := time.Now()
	if out, err := retainCmd(bin, ref, text).CombinedOutput(); err != nil {
		t.Fatalf("reference retain: %v\n%s", err, out)
	}
	full := time.Since(start)
	want := counts(t, ctx, ref)
	if want.docs != 1 || want.facts < 1000 {
		t.Fatalf("reference run: %+v, want 1 document with thousands of facts", want)
	}

	rng := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	outcome := map[string]int{}
	for trial := 0; trial < killTrials; trial++ {
		db := filepath.Join(t.TempDir(), fmt.Sprintf("kill-%d.db", trial))
		// Start-up and extraction take the first part of a run; most kills
		// fall in its second half, where the write is.
		delay := time.Duration((0.3 + 0.8*rng.Float64()) * float64(full))
		got, err := killAfter(t, ctx, retainCmd(bin, db, text), db, delay)
		switch {
		case got.docs == 0 && got.facts == 0 && got.chunks == 0:
			outcome["nothing"]++
		case got == want:
			if err == nil {
				outcome["finished before the kill"]++
			} else {
				outcome["whole document"]++
			}
		default:
			t.Errorf("trial %d (killed after %v): %+v, want nothing or all of %+v", trial, delay, got, want)
		}
	}
	t.Logf("%d kills over a %v retain: %v", killTrials, full.Round(time.Millisecond), outcome)
}

// TestRetain_KilledMidSegments kills a `mnemo retain` of a document of
// several segments (retain.DefaultSegmentBytes) at random moments, and
// checks the rule of a document in segments: the database holds nothing
// of it, all of it, or the segments committed before the kill; and the
// same retain run again then ends with exactly what an uninterrupted run
// stores.
func TestRetain_KilledMidSegments(t *testing.T) {
	bin := binary(t)
	var b strings.Builder
	for i := 0; b.Len() < 4*retain.DefaultSegmentBytes; i++ {
		fmt.Fprintf(&b, "On day %d Mira walked %d kilometres along the river with Theo and counted %d herons. ", i, i%17+1, i%5+2)
		if i%40 == 39 {
			b.WriteString("\n\n")
		}
	}
	text := b.String()
	ctx := context.Background()
	ref := filepath.Join(t.TempDir(), "ref.db")
	start := time.Now()
	if out, err := retainAtCmd(bin, ref, text).CombinedOutput(); err != nil {
		t.Fatalf("reference retain: %v\n%s", err, out)
	}
	full := time.Since(start)
	want := counts(t, ctx, ref)
	if want.docs != 1 || want.chunks < 4 {
		t.Fatalf("reference run: %+v, want 1 document of several chunks", want)
	}
	rng := rand.New(rand.NewPCG(11, uint64(time.Now().UnixNano())))
	outcome := map[string]int{}
	for trial := 0; trial < killTrials/2; trial++ {
		db := filepath.Join(t.TempDir(), fmt.Sprintf("kill-%d.db", trial))
		delay := time.Duration((0.2 + 0.8*rng.Float64()) * float64(full))
		got, err := killAfter(t, ctx, retainAtCmd(bin, db, text), db, delay)
		switch {
		case got.docs == 0 && got.facts == 0 && got.chunks == 0:
			outcome["nothing"]++
		case got == want && err == nil:
			outcome["finished before the kill"]++
		case got == want:
			outcome["whole document"]++
		case got.docs == 1 && got.facts < want.facts && got.chunks < want.chunks:
			outcome["some segments"]++
		default:
			t.Errorf("trial %d (killed after %v): %+v, want nothing, some segments or all of %+v", trial, delay, got, want)
		}
		if out, err := retainAtCmd(bin, db, text).CombinedOutput(); err != nil {
			t.Fatalf("trial %d: retain again: %v\n%s", trial, err, out)
		}
		if got := counts(t, ctx, db); got != want {
			t.Errorf("trial %d (killed after %v): after retaining again %+v, want %+v", trial, delay, got, want)
		}
	}
	t.Logf("%d kills over a %v retain: %v", killTrials/2, full.Round(time.Millisecond), outcome)
}

// killAfter starts cmd, kills it (SIGKILL) after delay and returns the
// counts of db as the next process finds them, with cmd's exit error
// (nil when it finished before the kill).
func killAfter(t *testing.T, ctx context.Context, cmd *exec.Cmd, db string, delay time.Duration) (dbCounts, error) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(delay)
	cmd.Process.Kill()
	err := cmd.Wait()
	return counts(t, ctx, db), err
}

// retainAtCmd is retainCmd with the item's time given, so that a retain
// run again is of the same item and content.
func retainAtCmd(bin, db, text string) *exec.Cmd {
	cmd := exec.Command(bin, "--db", db, "retain", "--id", "kill", "--at", "2024-03-04", "-")
	cmd.Stdin = strings.NewReader(text)
	return cmd
}

// retainCmd is `mnemo retain --id kill -` on db, reading text from stdin.
func retainCmd(bin, db, text string) *exec.Cmd {
	cmd := exec.Command(bin, "--db", db, "retain", "--id", "kill", "-")
	cmd.Stdin = strings.NewReader(text)
	return cmd
}

type dbCounts struct{ docs, chunks, facts, entities int }

// counts opens db as a new process would (recovering its WAL) and counts
// the default bank's documents, chunks and facts; no file or no bank
// counts as empty. It also checks the file's integrity.
func counts(t *testing.T, ctx context.Context, db string) dbCounts {
	t.Helper()
	s, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatalf("open after kill: %v", err)
	}
	defer s.Close()
	if err := s.Check(ctx); err != nil {
		t.Fatalf("integrity after kill: %v", err)
	}
	st, err := s.Stats(ctx, memory.DefaultBank)
	if memory.ErrorCode(err) == memory.ENOTFOUND {
		return dbCounts{}
	}
	if err != nil {
		t.Fatal(err)
	}
	return dbCounts{docs: st.Documents, chunks: st.Chunks, facts: st.Facts, entities: st.Entities}
}

// TestImport_KilledMidWrite kills `mnemo import` of many sessions at
// random moments. An import commits its documents in groups, so most kills
// fall between or inside commits: every document found must hold all the
// facts it holds in an uninterrupted run, and the file must check clean.
func TestImport_KilledMidWrite(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "chat.jsonl")
	var b strings.Builder
	for s := 0; s < 1500; s++ {
		for m := 0; m < 3; m++ {
			fmt.Fprintf(&b, `{"session": "s%d", "time": "2024-03-%02dT10:%02d:00Z", "speaker": "P%d", "text": "Session %d message %d: Mira met Theo at the harbour and talked about boats number %d."}`+"\n",
				s, s%28+1, m, m%2, s, m, s*m)
		}
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	importCmd := func(db string) *exec.Cmd { return exec.Command(bin, "--db", db, "import", file) }

	ref := filepath.Join(dir, "ref.db")
	start := time.Now()
	if out, err := importCmd(ref).CombinedOutput(); err != nil {
		t.Fatalf("reference import: %v\n%s", err, out)
	}
	full := time.Since(start)
	want := docFacts(t, ctx, ref)
	if len(want) != 1500 {
		t.Fatalf("reference import: %d documents, want 1500", len(want))
	}

	rng := rand.New(rand.NewPCG(11, uint64(time.Now().UnixNano())))
	partial := 0
	for trial := 0; trial < 20; trial++ {
		db := filepath.Join(dir, fmt.Sprintf("kill-%d.db", trial))
		cmd := importCmd(db)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration((0.2 + 0.8*rng.Float64()) * float64(full)))
		cmd.Process.Kill()
		cmd.Wait()
		got := docFacts(t, ctx, db)
		for item, n := range got {
			if want[item] != n {
				t.Errorf("trial %d: document %s has %d facts, want %d", trial, item, n, want[item])
			}
		}
		if len(got) > 0 && len(got) < len(want) {
			partial++
		}
	}
	t.Logf("20 kills over a %v import: %d stopped it part-way (every document found whole)", full.Round(time.Millisecond), partial)
	if partial == 0 {
		t.Logf("no kill landed part-way through the import this time")
	}
}

// docFacts maps each document's item id to its fact count, after the
// file's integrity check; no file or bank is an empty map.
func docFacts(t *testing.T, ctx context.Context, db string) map[string]int {
	t.Helper()
	s, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatalf("open after kill: %v", err)
	}
	defer s.Close()
	if err := s.Check(ctx); err != nil {
		t.Fatalf("integrity after kill: %v", err)
	}
	out, err := s.DocumentFacts(ctx, memory.DefaultBank)
	if memory.ErrorCode(err) == memory.ENOTFOUND {
		return map[string]int{}
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}
