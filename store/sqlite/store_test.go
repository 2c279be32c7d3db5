package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// TestStore_WriterIdle checks the writer's cache is released once it has
// been idle, that writes go on after it, and that Close stops a pending
// release.
func TestStore_WriterIdle(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "mnemo.db"))
	if err != nil {
		t.Fatal(err)
	}
	s.WriterIdle = 20 * time.Millisecond
	if err := s.CreateBank(ctx, &memory.Bank{ID: "b"}); err != nil {
		t.Fatal(err)
	}
	write := func(id string) {
		t.Helper()
		w := &memory.WriteBatch{BankID: "b", Facts: []*memory.Fact{{ID: id, Text: "hello " + id}}}
		if _, err := s.Write(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	write("f1")
	pending := func() bool {
		s.idleMu.Lock()
		defer s.idleMu.Unlock()
		return s.idleTimer != nil
	}
	if !pending() {
		t.Fatal("no release scheduled after a write")
	}
	for deadline := time.Now().Add(5 * time.Second); pending(); {
		if time.Now().After(deadline) {
			t.Fatal("the release never ran")
		}
		time.Sleep(5 * time.Millisecond)
	}
	write("f2")
	got, err := s.Facts(ctx, "b", []string{"f1", "f2"})
	if err != nil || len(got) != 2 {
		t.Fatalf("facts after release: got %d, %v", len(got), err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
