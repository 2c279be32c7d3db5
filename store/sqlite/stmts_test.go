package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// TestInPadded checks the padded lists: a power of two of at least
// minPadded places, the values first and the last one repeated, the lead
// arguments before them, and json_each beyond maxInList.
func TestInPadded(t *testing.T) {
	for _, n := range []int{1, 3, 4, 5, 17, 64, 300, maxInList + 1} {
		values := make([]string, n)
		for i := range values {
			values[i] = fmt.Sprint("v", i)
		}
		list, args := inPadded(values, "lead")
		if args[0] != "lead" {
			t.Fatalf("%d values: first argument %v, want the lead", n, args[0])
		}
		if n > maxInList {
			if list != "(SELECT value FROM json_each(?))" || len(args) != 2 {
				t.Fatalf("%d values: got %s with %d arguments, want json_each", n, list, len(args))
			}
			continue
		}
		places := strings.Count(list, "?")
		if places < minPadded || places&(places-1) != 0 || places < n || places >= 2*max(n, minPadded) {
			t.Fatalf("%d values: %d places", n, places)
		}
		if len(args) != 1+places {
			t.Fatalf("%d values: %d arguments for %d places", n, len(args), places)
		}
		for i, a := range args[1:] {
			if want := values[min(i, n-1)]; a != want {
				t.Fatalf("%d values: argument %d is %v, want %v", n, i, a, want)
			}
		}
	}
	if list, args := inPadded(nil, "lead"); list != "(NULL)" || len(args) != 1 {
		t.Fatalf("no values: got %s, %v", list, args)
	}
}

// TestStmtCache checks that cached reads answer as before from many
// goroutines at once, that the cache keeps one statement per text, and
// that the store's reads fail cleanly once it is closed.
func TestStmtCache(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "mnemo.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateBank(ctx, &memory.Bank{ID: "b"}); err != nil {
		t.Fatal(err)
	}
	var facts []*memory.Fact
	var ids []string
	for i := range 10 {
		id := fmt.Sprint("f", i)
		facts = append(facts, &memory.Fact{ID: id, Text: "fact " + id})
		ids = append(ids, id)
	}
	if _, err := s.Write(ctx, &memory.WriteBatch{BankID: "b", Facts: facts}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			want := ids[:1+g%len(ids)]
			got, err := s.Facts(ctx, "b", want)
			if err == nil && len(got) != len(want) {
				err = fmt.Errorf("%d facts for %d ids", len(got), len(want))
			}
			if err == nil {
				_, err = s.EntitiesByName(ctx, "b", want) // lists of many lengths
			}
			if err == nil {
				if err = s.requireBank(ctx, "nobank"); memory.ErrorCode(err) == memory.ENOTFOUND {
					err = nil
				} else {
					err = fmt.Errorf("an unknown bank: %v, want not found", err)
				}
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s.stmts.mu.Lock()
	n := len(s.stmts.stmts)
	s.stmts.mu.Unlock()
	// factsByPK, the bank's row (the bank check, the mirror's version
	// check, the fact cache's stamp), the alias lookup by padded lists of
	// 4, 8 and 16 names (EntitiesByName finds no entity, so never asks
	// for one).
	if n != 5 {
		t.Fatalf("%d statements cached, want 5", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Facts(ctx, "b", ids); err == nil {
		t.Fatal("Facts after Close: no error")
	}
	if err := s.requireBank(ctx, "b"); !errors.Is(err, errStmtsClosed) {
		t.Fatalf("a read after Close: %v, want %v", err, errStmtsClosed)
	}
}
