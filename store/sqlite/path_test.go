package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// TestOpen_PathIsAPath checks that a path with the characters a URI
// reads otherwise (?, #, %) opens exactly that file, and that two such
// paths are two databases.
func TestOpen_PathIsAPath(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	names := []string{"we?ird.db", "we#ird.db", "we%3Fird.db", "we%ird.db", "a b&c=d.db"}
	bank := func(i int) string { return fmt.Sprintf("b%d", i) }
	for i, name := range names {
		s, err := Open(ctx, filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("Open(%q): %v", name, err)
		}
		if err := s.CreateBank(ctx, &memory.Bank{ID: bank(i)}); err != nil {
			t.Fatalf("CreateBank in %q: %v", name, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	for i, name := range names {
		if !slices.Contains(got, name) {
			t.Errorf("no file %q in %v", name, got)
		}
		s, err := Open(ctx, filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		banks, err := s.Banks(ctx)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(banks) != 1 || banks[0].ID != bank(i) {
			t.Errorf("%q holds %d banks, want only %q", name, len(banks), bank(i))
		}
	}
	if slices.Contains(got, "we") {
		t.Errorf("stray database %q in %v", "we", got)
	}
}
