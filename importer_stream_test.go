package mnemo_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/importer"
)

// An import read a window at a time (Importer) reports what one import
// of the whole file reports, and stores the same: items, facts,
// duplicates on a second run, and the failures of bad items.
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
		if last != len(reqs) || calls < 5 {
			t.Errorf("run %d: progress reached %d in %d calls, want %d in several windows", run, last, calls, len(reqs))
		}
	}
	a, _ := whole.Stats(ctx, "default")
	b, _ := windowed.Stats(ctx, "default")
	if a == nil || b == nil || *a != *b {
		t.Errorf("stats after windows: %+v, want %+v", b, a)
	}
}
