package mnemo_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/importer"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/retain"
)

// An import read as it is imported (Importer), with a read-ahead of
// 100 bytes, reports what one import of the whole file reports, and
// stores the same: items, facts, duplicates on a second run, and the
// failures of bad items.
func TestImporter_Windows(t *testing.T) {
	var lines strings.Builder
	for i := range 40 {
		fmt.Fprintf(&lines, `{"speaker": "Ann", "text": "Ann met Bo in Lisbon on day %d.", "session": "s%d"}`+"\n", i, i/2)
	}
	reqs, _, err := importer.ChatJSONL(strings.NewReader(lines.String()), "chat.jsonl", "")
	if err != nil || len(reqs) != 20 {
		t.Fatalf("ChatJSONL: %d requests, %v", len(reqs), err)
	}
	for i := range reqs[7].Messages {
		reqs[7].Messages[i].Text = " " // an item that fails: nothing to remember
	}
	ctx := context.Background()
	open := func(name string) *mnemo.Engine {
		eng, err := mnemo.Open(ctx, mnemo.Config{DB: filepath.Join(t.TempDir(), name), JobPoll: -1, SessionIdle: -1, AccessFlush: -1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { eng.Close() })
		return eng
	}
	whole := open("whole.db")
	want, err := whole.Import(ctx, append(reqs[:0:0], reqs...), mnemo.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want.Retained != 19 || len(want.Failed) != 1 {
		t.Fatalf("whole import: %+v, want 19 retained and one failure", want)
	}
	windowed := open("windowed.db")
	for run, wantDup := range []int{0, 19} {
		var calls, last int
		w := windowed.NewImporter(ctx, mnemo.ImportOptions{WindowBytes: 100,
			Progress: func(done, total int) {
				if done < last {
					t.Errorf("run %d: progress went back from %d to %d", run, last, done)
				}
				last = done
				calls++
			}})
		for _, r := range reqs {
			if err := w.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		got, err := w.Finish(nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.Items != want.Items || got.Duplicates != wantDup || got.Retained != want.Retained-wantDup || len(got.Failed) != 1 || got.Failed[0] != want.Failed[0] {
			t.Errorf("run %d, windows of 100 bytes: got %+v, want %+v with %d duplicates", run, got, want, wantDup)
		}
		if run == 0 && got.Facts != want.Facts {
			t.Errorf("windows of 100 bytes: %d facts, want %d", got.Facts, want.Facts)
		}
		if last != len(reqs) || calls == 0 {
			t.Errorf("run %d: progress reached %d in %d calls, want %d", run, last, calls, len(reqs))
		}
	}
	a, _ := whole.Stats(ctx, "default")
	b, _ := windowed.Stats(ctx, "default")
	if a == nil || b == nil || *a != *b {
		t.Errorf("stats after windows: %+v, want %+v", b, a)
	}
}

// An Importer checks each bank as its first request comes: an unknown
// bank ends the import there with ENOTFOUND, the requests before it
// imported, and Add says so to the reader.
func TestImporter_UnknownBank(t *testing.T) {
	ctx := context.Background()
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: filepath.Join(t.TempDir(), "x.db"), JobPoll: -1, SessionIdle: -1, AccessFlush: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	w := eng.NewImporter(ctx, mnemo.ImportOptions{})
	var addErr error
	for i := range 30 {
		bank := "default"
		if i >= 10 {
			bank = "nobank"
		}
		r := memory.RetainRequest{BankID: bank, ItemID: fmt.Sprint("i", i), Text: fmt.Sprintf("Ann met Bo in Lisbon on day %d.", i)}
		if addErr = w.Add(r); addErr != nil {
			break
		}
	}
	rep, err := w.Finish(addErr)
	if memory.ErrorCode(err) != memory.ENOTFOUND || !w.Failed() {
		t.Fatalf("Finish: %v (failed %v), want ENOTFOUND from the import", err, w.Failed())
	}
	if rep.Retained != 10 {
		t.Errorf("report %+v: want the 10 requests before the unknown bank retained", rep)
	}
	if st, err := eng.Stats(ctx, "default"); err != nil || st.Documents != 10 {
		t.Errorf("stats %+v, %v: want 10 documents", st, err)
	}
}

// An import whose ctx ends stops reading: Add returns ctx's error, the
// report counts what landed, and the same import again adds the rest,
// ending with what one uninterrupted import stores.
func TestImporter_Canceled(t *testing.T) {
	// More than the import reads ahead: a group of retain.DefaultGroup
	// written, as many prepared, and 512 bytes queued.
	var reqs []memory.RetainRequest
	for i := range 3 * retain.DefaultGroup {
		reqs = append(reqs, memory.RetainRequest{ItemID: fmt.Sprint("i", i), Text: fmt.Sprintf("Ann met Bo in Lisbon on day %d. They talked about the garden for hours.", i)})
	}
	open := func(name string) *mnemo.Engine {
		eng, err := mnemo.Open(context.Background(), mnemo.Config{DB: filepath.Join(t.TempDir(), name), JobPoll: -1, SessionIdle: -1, AccessFlush: -1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { eng.Close() })
		return eng
	}
	whole := open("whole.db")
	if _, err := whole.Import(context.Background(), append(reqs[:0:0], reqs...), mnemo.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	eng := open("x.db")
	ctx, cancel := context.WithCancel(context.Background())
	w := eng.NewImporter(ctx, mnemo.ImportOptions{WindowBytes: 512, Progress: func(done, _ int) {
		if done > 0 {
			cancel()
		}
	}})
	var addErr error
	added := 0
	for _, r := range reqs {
		if addErr = w.Add(r); addErr != nil {
			break
		}
		added++
	}
	rep, err := w.Finish(addErr)
	if err == nil || ctx.Err() == nil {
		t.Fatalf("Finish: %v after %d of %d added, want the import canceled", err, added, len(reqs))
	}
	if added == len(reqs) || rep.Retained == 0 || rep.Retained > added {
		t.Errorf("added %d, report %+v: want the reading stopped early and some retained", added, rep)
	}
	again, err := eng.Import(context.Background(), append(reqs[:0:0], reqs...), mnemo.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Duplicates != rep.Retained || again.Retained != len(reqs)-rep.Retained {
		t.Errorf("import again: %+v, want %d duplicates and the rest retained", again, rep.Retained)
	}
	a, _ := whole.Stats(context.Background(), "default")
	b, _ := eng.Stats(context.Background(), "default")
	if a == nil || b == nil || *a != *b {
		t.Errorf("stats after the interrupted import and the rest: %+v, want %+v", b, a)
	}
}
