package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// cacheTestStore opens a store with one bank, "k", holding facts f0…f(n-1)
// of one document.
func cacheTestStore(t *testing.T, n int) *Store {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "cache.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.CreateBank(ctx, &memory.Bank{ID: "k"}); err != nil {
		t.Fatal(err)
	}
	w := &memory.WriteBatch{BankID: "k", Document: &memory.Document{ID: "d", Source: "s", ItemID: "d", ContentHash: "d"}}
	for i := range n {
		w.Facts = append(w.Facts, &memory.Fact{ID: fmt.Sprintf("f%d", i), Text: fmt.Sprintf("fact number %d about the harbour", i), Tags: []string{"t"}})
	}
	if _, err := s.Write(ctx, w); err != nil {
		t.Fatal(err)
	}
	return s
}

// checkFacts fails the test unless Facts answers ids exactly as a read of
// the rows does.
func checkFacts(t *testing.T, s *Store, ids []string, what string) {
	t.Helper()
	ctx := context.Background()
	got, err := s.Facts(ctx, "k", ids)
	if err != nil {
		t.Fatal(err)
	}
	read, err := s.readFacts(ctx, "k", ids)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*memory.Fact{}
	for _, f := range read {
		want[f.ID] = f
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d facts, the rows hold %d", what, len(got), len(want))
	}
	for _, f := range got {
		if !reflect.DeepEqual(f, want[f.ID]) {
			t.Fatalf("%s: Facts gave\n%+v\nthe row holds\n%+v", what, f, want[f.ID])
		}
	}
}

// TestFactCache_EveryColumn changes each column Facts reads with a
// statement the store's Go code does not know about, after the fact was
// cached, and checks that Facts answers what the row holds: the triggers
// of migration 030 must cover every column.
func TestFactCache_EveryColumn(t *testing.T) {
	ctx := context.Background()
	s := cacheTestStore(t, 3)
	ids := []string{"f0", "f1", "f2"}
	sets := map[string]string{
		"seq": "seq + 100", "document_id": "'other'", "chunk_id": "'c9'", "source_ref": "'ref9'", "text": "'changed text'",
		"kind": "'experience'", "category": "'event'", "confidence": "0.25", "importance": "0.75", "sensitivity": "'sensitive'",
		"speaker": "'Ann'", "evidence": "'seen'", "tags": `'["x","y"]'`, "occurred_start": "1000", "occurred_end": "2000",
		"mentioned_at": "3000", "valid_from": "4000", "valid_to": "5000", "created_at": "6000", "expired_at": "7000",
		"access_count": "access_count + 1", "last_accessed": "8000", "reinforcement_count": "reinforcement_count + 3",
		"decay_score": "0.5", "status": "'archived'", "superseded_by": "'f2'", "consolidated_at": "9000", "expires_at": "10000",
	}
	cols := strings.Fields(strings.ReplaceAll(factColumns, ",", " "))
	for _, col := range cols {
		if col == "id" {
			continue // a changed id is another fact: covered by the delete below
		}
		set, ok := sets[col]
		if !ok {
			t.Fatalf("column %s has no change in this test: add one", col)
		}
		checkFacts(t, s, ids, "before "+col) // cached now
		if col == "access_count" || col == "last_accessed" {
			// Accesses move access_version, as every access write does.
			if _, err := s.wdb.ExecContext(ctx, `UPDATE banks SET access_version = access_version + 1 WHERE id = 'k'`); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.wdb.ExecContext(ctx, `UPDATE facts SET `+col+` = `+set+` WHERE bank_id = 'k' AND id = 'f1'`); err != nil {
			t.Fatalf("%s: %v", col, err)
		}
		checkFacts(t, s, ids, "after "+col)
	}
	checkFacts(t, s, ids, "before delete")
	if _, err := s.wdb.ExecContext(ctx, `DELETE FROM facts WHERE bank_id = 'k' AND id = 'f0'`); err != nil {
		t.Fatal(err)
	}
	got, err := s.Facts(ctx, "k", ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range got {
		if f.ID == "f0" {
			t.Fatalf("a deleted fact is still answered")
		}
	}
}

// TestFactCache_Copies checks that a caller changing what Facts returned
// changes nothing the next caller gets.
func TestFactCache_Copies(t *testing.T) {
	ctx := context.Background()
	s := cacheTestStore(t, 1)
	for range 2 {
		fs, err := s.Facts(ctx, "k", []string{"f0"})
		if err != nil || len(fs) != 1 {
			t.Fatalf("%v %d", err, len(fs))
		}
		if fs[0].Text != "fact number 0 about the harbour" || fs[0].Tags[0] != "t" {
			t.Fatalf("got %q %v: an earlier caller's change leaked", fs[0].Text, fs[0].Tags)
		}
		fs[0].Text, fs[0].Tags[0] = "scribbled", "scribbled"
	}
}

// TestFactCache_Accesses checks that accesses recorded by this store are
// applied to the cache exactly (a repeated id counts once, as in the
// rows), and that the cache keeps serving after them.
func TestFactCache_Accesses(t *testing.T) {
	ctx := context.Background()
	s := cacheTestStore(t, 4)
	ids := []string{"f0", "f1", "f2", "f3"}
	at := time.Date(2025, 3, 4, 5, 6, 7, 891011000, time.UTC)
	for i := range 5 {
		checkFacts(t, s, ids, "before access")
		if err := s.RecordAccess(ctx, "k", []string{"f1", "f2", "f1", "nope"}, at.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
		checkFacts(t, s, ids, "after access")
	}
	fs, _ := s.Facts(ctx, "k", []string{"f1"})
	if fs[0].AccessCount != 5 {
		t.Fatalf("access count %d, want 5", fs[0].AccessCount)
	}
	s.facts.mu.Lock()
	g := s.facts.gens["k"]
	s.facts.mu.Unlock()
	if g == nil || g.stamp.access != 5 {
		t.Fatalf("the cache's generation did not follow this store's accesses: %+v", g)
	}
}

// TestFactCache_Budget checks that a small budget bounds what the cache
// holds and the answers stay right.
func TestFactCache_Budget(t *testing.T) {
	s := cacheTestStore(t, 200)
	s.facts = newFactCache(8 << 10)
	var ids []string
	for i := range 200 {
		ids = append(ids, fmt.Sprintf("f%d", i))
	}
	for i := 0; i < 200; i += 20 {
		checkFacts(t, s, ids[i:i+20], "window")
		checkFacts(t, s, ids[:10], "head")
	}
	s.facts.mu.Lock()
	defer s.facts.mu.Unlock()
	if total := s.facts.entries.Bytes(); total > 8<<10 {
		t.Fatalf("the cache holds %d bytes, over its budget of %d", total, 8<<10)
	}
	if s.facts.entries.Len() == 0 {
		t.Fatalf("the cache holds nothing")
	}
}

// TestFactCache_Concurrent reads facts while accesses and other changes
// are written, then checks that the cache agrees with the rows (run it
// with -race too).
func TestFactCache_Concurrent(t *testing.T) {
	ctx := context.Background()
	s := cacheTestStore(t, 50)
	var ids []string
	for i := range 50 {
		ids = append(ids, fmt.Sprintf("f%d", i))
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for r := range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := s.Facts(ctx, "k", ids[r*10:r*10+20]); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 60 {
		if err := s.RecordAccess(ctx, "k", ids[i%40:i%40+10], at.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
		if i%10 == 9 {
			if _, err := s.wdb.ExecContext(ctx, `UPDATE facts SET decay_score = decay_score / 2 WHERE bank_id = 'k' AND id = ?`, ids[i%50]); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(stop)
	wg.Wait()
	checkFacts(t, s, ids, "after the writes")
}
