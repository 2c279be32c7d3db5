package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// bulkBatches returns docs batches of 20 facts of about size bytes of
// text each, document ids starting with prefix.
func bulkBatches(prefix string, docs, size int) []*memory.WriteBatch {
	var ws []*memory.WriteBatch
	for d := range docs {
		w := &memory.WriteBatch{BankID: "b", Document: &memory.Document{ID: fmt.Sprint(prefix, d), Source: "test", ItemID: fmt.Sprint(prefix, d), ContentHash: "h"}}
		for i := range 20 {
			text := strings.Repeat(fmt.Sprintf("word%d fact%d of %s%d ", i, i, prefix, d), size/20)
			w.Facts = append(w.Facts, &memory.Fact{ID: fmt.Sprintf("f%s%d_%d", prefix, d, i), Text: text, Embedding: []float32{1, 0, 0}})
		}
		ws = append(ws, w)
	}
	return ws
}

// openBulk opens a store with bank "b" at path.
func openBulk(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.CreateBank(context.Background(), &memory.Bank{ID: "b"}); err != nil {
		t.Fatal(err)
	}
	return s
}

// writeMany runs s.WriteMany and fails the test on any error.
func writeMany(t *testing.T, s *Store, ws []*memory.WriteBatch) {
	t.Helper()
	for i, o := range s.WriteMany(context.Background(), ws) {
		if o.Err != nil {
			t.Fatalf("batch %d: %v", i, o.Err)
		}
	}
}

// A bulk write of long text is checkpointed behind it: its pages reach
// the database file while the store is open, not all at Close.
func TestStore_WriteMany_CheckpointsBehind(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	s := openBulk(t, path)
	size := func() int64 {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	before := size()
	writeMany(t, s, bulkBatches("d", 8, 6<<10)) // over 700 KiB of fact text
	for deadline := time.Now().Add(10 * time.Second); size() < before+shrinkAfterText; {
		if time.Now().After(deadline) {
			t.Fatalf("database file %d bytes, %d before the write: the WAL was not checkpointed", size(), before)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
