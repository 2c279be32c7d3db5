package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// bulkBatches returns docs batches of 20 facts of size bytes of text or
// a little less each, ids starting with prefix.
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
func openBulk(t *testing.T, path string) *Store { return openBank(t, path, "b") }

// openBank opens a store at path, closed when the test ends, with bank.
func openBank(t *testing.T, path, bank string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.CreateBank(context.Background(), &memory.Bank{ID: bank}); err != nil {
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

// The multi-row statements a WriteMany prepares are kept for the next
// transactions: a later transaction takes them from the store instead of
// preparing them again, and they still write.
func TestStore_WriteMany_KeepsStatements(t *testing.T) {
	ctx := context.Background()
	s := openBulk(t, filepath.Join(t.TempDir(), "m.db"))
	writeMany(t, s, bulkBatches("a", 3, 64))
	s.bulk.mu.Lock()
	var kept []string
	for q := range s.bulk.stmts {
		kept = append(kept, q)
	}
	s.bulk.mu.Unlock()
	if len(kept) == 0 {
		t.Fatal("no statement kept after a WriteMany")
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		ctx := withBulkStatements(ctx, tx, true, s.bulk)
		c := bulkCache(ctx)
		for _, q := range kept {
			if st := preparedBulk(ctx, tx, q, 1); st == nil {
				t.Errorf("no statement for %q", q)
			}
		}
		if len(c.fresh) != 0 {
			t.Errorf("%d kept statements prepared again", len(c.fresh))
		}
		fresh := `INSERT INTO write_marks (token) VALUES (?)`
		if st := preparedBulk(ctx, tx, fresh, 1); st == nil || !slices.Equal(c.fresh, []string{fresh}) {
			t.Errorf("a new statement: %v, fresh %q", st, c.fresh)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Same shapes again: through the kept statements.
	writeMany(t, s, bulkBatches("b", 3, 64))
	got, err := s.Facts(ctx, "b", []string{"fb2_19", "fa0_0"})
	if err != nil || len(got) != 2 {
		t.Fatalf("facts written through kept statements: %d, %v", len(got), err)
	}
}

// A WriteMany of more facts than one multi-row statement holds finds
// them all, first to last.
func TestStore_WriteMany_ManyFacts(t *testing.T) {
	ctx := context.Background()
	s := openBulk(t, filepath.Join(t.TempDir(), "m.db"))
	w := &memory.WriteBatch{BankID: "b", Document: &memory.Document{ID: "d", Source: "test", ItemID: "d", ContentHash: "h"}}
	n := 4*bulkRows + 5 // more than the largest statement's bulkRows rows
	for i := range n {
		w.Facts = append(w.Facts, &memory.Fact{ID: fmt.Sprint("f", i), Text: fmt.Sprintf("fact number%d", i), Embedding: []float32{1, 0, 0}})
	}
	writeMany(t, s, []*memory.WriteBatch{w})
	for _, i := range []int{0, bulkRows - 1, bulkRows, n - 1} {
		hits, err := s.SearchText(ctx, "b", []string{fmt.Sprint("number", i)}, 10, memory.Filter{})
		if err != nil || len(hits) != 1 {
			t.Errorf("search for fact %d: %v, %v", i, hits, err)
		}
	}
}
