package mnemo_test

import (
	"path/filepath"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
)

func TestEngine_JobCounts(t *testing.T) {
	ctx := t.Context()
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: filepath.Join(t.TempDir(), "m.db"), JobPoll: -1, SessionIdle: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	for _, b := range []string{"a", "b"} {
		if _, err := eng.CreateBank(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []memory.RetainRequest{
		{BankID: "a", Text: "Alice likes tea"}, {BankID: "a", Text: "Alice likes jazz"}, {BankID: "b", Text: "Bob likes rain"},
	} {
		if _, err := eng.RetainAsync(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := eng.JobCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got[memory.JobQueued] != 3 || got[memory.JobDone] != 0 {
		t.Errorf("before running: %v, want 3 queued", got)
	}
	if _, err := eng.RunJobs(ctx); err != nil {
		t.Fatal(err)
	}
	got, err = eng.JobCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got[memory.JobQueued] != 0 || got[memory.JobDone] != 3 {
		t.Errorf("after running: %v, want 3 done", got)
	}
}
