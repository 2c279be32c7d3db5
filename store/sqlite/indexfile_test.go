package sqlite

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// TestStore_IndexFile checks the search index file through the store: a
// store's Close writes it beside the database (0600 in a 0700 folder),
// the next store answers from it exactly as one without it (the same
// hits and scores, ranked alike), after another process's writes too
// and with the file damaged, and DeleteBank removes it.
func TestStore_IndexFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mnemo.db")
	rng := rand.New(rand.NewPCG(1, 2))
	const dim = 16
	vec := func() []float32 {
		v := make([]float32, dim)
		var n float64
		for i := range v {
			v[i] = float32(rng.NormFloat64())
			n += float64(v[i] * v[i])
		}
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
		return v
	}
	words := []string{"lake", "dog", "adopted", "violin", "Lisbon", "garden", "train", "coffee", "river", "museum"}
	write := func(from, n int) {
		t.Helper()
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if from == 0 {
			if err := s.CreateBank(ctx, &memory.Bank{ID: "b"}); err != nil {
				t.Fatal(err)
			}
		}
		for i := from; i < from+n; i += 10 {
			w := &memory.WriteBatch{BankID: "b", Document: &memory.Document{ID: fmt.Sprint("doc", i/10), BankID: "b", Source: "api", ItemID: fmt.Sprint("item", i), Content: fmt.Sprint("document ", i), ContentHash: fmt.Sprint("h", i)}}
			for j := i; j < i+10; j++ {
				text := fmt.Sprintf("%s %s %s", words[j%10], words[(j*3)%10], words[(j*7+1)%10])
				w.Facts = append(w.Facts, &memory.Fact{ID: fmt.Sprint("f", j), BankID: "b", Text: text, Embedding: vec(),
					DocumentID: fmt.Sprint("doc", i/10)})
			}
			if _, err := s.Write(ctx, w); err != nil {
				t.Fatal(err)
			}
		}
	}
	queries := make([][]float32, 5)
	for i := range queries {
		queries[i] = vec()
	}
	answers := func() []any {
		t.Helper()
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var out []any
		for _, q := range [][]string{{"lake"}, {"dog", "adopted"}, {"violin river"}} {
			hits, err := s.SearchText(ctx, "b", q, 10, memory.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			docs, err := s.SearchDocuments(ctx, "b", q, 5)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, hits, docs)
		}
		for _, q := range queries {
			hits, err := s.SearchVector(ctx, "b", q, 10, memory.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, hits)
		}
		return out
	}
	// without returns the answers of a store with no index file, and
	// leaves none behind.
	without := func() []any {
		t.Helper()
		if err := os.RemoveAll(IndexDir(path)); err != nil {
			t.Fatal(err)
		}
		a := answers() // this Close writes the file again
		if err := os.RemoveAll(IndexDir(path)); err != nil {
			t.Fatal(err)
		}
		return a
	}
	file := func() string {
		t.Helper()
		names, err := filepath.Glob(filepath.Join(IndexDir(path), "*.idx"))
		if err != nil || len(names) != 1 {
			t.Fatalf("index files %v (%v), want one", names, err)
		}
		return names[0]
	}

	write(0, 300)
	want := without()
	answers() // loads from the rows, writes the file on Close
	name := file()
	if st, err := os.Stat(name); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("index file mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
	if st, err := os.Stat(IndexDir(path)); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("index folder mode %v (%v), want 0700", st.Mode().Perm(), err)
	}
	if got := answers(); !reflect.DeepEqual(got, want) {
		t.Fatalf("answers from the index file:\n got %v\nwant %v", got, want)
	}

	write(300, 40) // another process: the file is behind
	if got, want := answers(), without(); !reflect.DeepEqual(got, want) {
		t.Fatalf("answers from an index file behind the database:\n got %v\nwant %v", got, want)
	}

	answers() // writes the file again
	b, err := os.ReadFile(file())
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{len(b) / 3, len(b) / 2, len(b) - 20} {
		bad := append([]byte(nil), b...)
		bad[at] ^= 0xff
		if err := os.WriteFile(file(), bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if got, want := answers(), without(); !reflect.DeepEqual(got, want) {
			t.Fatalf("answers with a byte flipped at %d of %d:\n got %v\nwant %v", at, len(b), got, want)
		}
		answers()
	}
	if err := os.Truncate(file(), int64(len(b)/2)); err != nil {
		t.Fatal(err)
	}
	if got, want := answers(), without(); !reflect.DeepEqual(got, want) {
		t.Fatalf("answers with the file truncated:\n got %v\nwant %v", got, want)
	}

	answers()
	name = file()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.DeleteBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Fatalf("index file after DeleteBank: %v, want none", err)
	}
}
