package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// annStore opens a store whose banks build a graph from 500 vectors and
// fills bank "a" with n facts: unit vectors around 40 centres, kinds,
// tags, sensitivities and event times spread so filters pass known
// shares, with a fixed seed. It waits for the graph.
func annStore(t *testing.T, n int) (*Store, [][]float32) {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "ann.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.ANNThreshold = 500
	if err := s.CreateBank(ctx, &memory.Bank{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Facts(ctx, "a", nil); err != nil { // load the index, so writes follow it
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	centres := make([][]float32, 40)
	for i := range centres {
		centres[i] = unitVector(rng, 64)
	}
	var vecs [][]float32
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for d := 0; d*50 < n; d++ {
		w := &memory.WriteBatch{BankID: "a", Document: &memory.Document{ID: fmt.Sprint("d", d), Source: "t", ItemID: fmt.Sprint(d), ContentHash: "h"}}
		for i := 0; i < 50 && d*50+i < n; i++ {
			j := d*50 + i
			v := near(rng, centres[rng.IntN(len(centres))])
			vecs = append(vecs, v)
			f := &memory.Fact{ID: fmt.Sprint("f", j), DocumentID: fmt.Sprint("d", d), Text: fmt.Sprint("fact number ", j), Embedding: v,
				OccurredStart: base.Add(time.Duration(j) * time.Hour), CreatedAt: base}
			if j%3 == 0 {
				f.Kind = memory.KindExperience
			}
			if j%50 == 0 {
				f.Tags = []string{"rare"}
			}
			if j%10 == 0 {
				f.Sensitivity = memory.SensitivitySensitive
			}
			w.Facts = append(w.Facts, f)
		}
		if _, err := s.Write(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.WaitIndexed(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.IndexStats(ctx, "a"); st.Linked != n {
		t.Fatalf("graph linked %d slots, want %d", st.Linked, n)
	}
	return s, vecs
}

// near returns a unit vector close to c.
func near(rng *rand.Rand, c []float32) []float32 {
	v := unitVector(rng, len(c))
	for i := range v {
		v[i] = c[i] + 0.6*v[i]
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	for i := range v {
		v[i] /= float32(sqrt(n))
	}
	return v
}

func ids(hs []memory.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}

func overlap(got, want []memory.Hit) float64 {
	if len(want) == 0 {
		return 1
	}
	n := 0
	for _, w := range want {
		if slices.ContainsFunc(got, func(h memory.Hit) bool { return h.ID == w.ID }) {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

// TestStore_SearchVectorANN checks the graph path against the exact scan
// on a fixed seed: selective filters (tags, a narrow time range, as-of
// before most facts) give exactly the exact answer, unselective ones
// (none, kinds, sensitive included) a recall@10 of at least 0.95, and
// every score is the exact cosine.
func TestStore_SearchVectorANN(t *testing.T) {
	s, vecs := annStore(t, 3000)
	ctx := context.Background()
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(5, 6))
	selective := map[string]memory.Filter{
		"tag":        {Tags: []string{"rare"}},
		"time range": {From: base.Add(100 * time.Hour), To: base.Add(220 * time.Hour)},
		"kind+time":  {Kinds: []memory.FactKind{memory.KindExperience}, From: base, To: base.Add(600 * time.Hour)},
	}
	broad := map[string]memory.Filter{
		"none":      {},
		"kind":      {Kinds: []memory.FactKind{memory.KindExperience}},
		"sensitive": {Sensitive: true},
		"as of":     {AsOf: base.Add(time.Hour)},
	}
	for name, f := range selective {
		for q := range 20 {
			v := near(rng, vecs[rng.IntN(len(vecs))])
			got, err := s.SearchVector(ctx, "a", v, 10, f)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := s.SearchVectorExact(ctx, "a", v, 10, f)
			if !slices.Equal(ids(got), ids(want)) {
				t.Fatalf("%s, query %d: ANN %v, exact %v", name, q, ids(got), ids(want))
			}
		}
	}
	for name, f := range broad {
		var sum float64
		for range 50 {
			v := near(rng, vecs[rng.IntN(len(vecs))])
			got, err := s.SearchVector(ctx, "a", v, 10, f)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := s.SearchVectorExact(ctx, "a", v, 10, f)
			sum += overlap(got, want)
			for i, h := range got {
				if j := slices.IndexFunc(want, func(w memory.Hit) bool { return w.ID == h.ID }); j >= 0 && want[j].Score != h.Score {
					t.Fatalf("%s: hit %d %s scored %g, exact %g", name, i, h.ID, h.Score, want[j].Score)
				}
			}
		}
		if r := sum / 50; r < 0.95 {
			t.Errorf("%s: recall@10 %.3f, want ≥ 0.95", name, r)
		}
	}
}

// TestStore_SearchVectorANNDeletes checks that deleted (re-imported) and
// superseded facts leave the graph's answers, including after the
// compaction that renumbers the slots and rebuilds the graph.
func TestStore_SearchVectorANNDeletes(t *testing.T) {
	s, vecs := annStore(t, 1500)
	ctx := context.Background()
	// Supersede f7.
	if _, err := s.Write(ctx, &memory.WriteBatch{BankID: "a", Supersede: []memory.Supersession{{FactID: "f7", SupersededBy: "f8"}}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.SearchVector(ctx, "a", vecs[7], 5, memory.Filter{}); slices.Contains(ids(got), "f7") {
		t.Fatalf("superseded f7 still found: %v", ids(got))
	}
	// Re-import the first 10 documents (500 facts) with other contents:
	// their old facts go, a third of the bank, which compacts.
	for d := range 10 {
		w := &memory.WriteBatch{BankID: "a", Document: &memory.Document{ID: fmt.Sprint("d", d, "v2"), Source: "t", ItemID: fmt.Sprint(d), ContentHash: "h2"}}
		w.Facts = []*memory.Fact{{ID: fmt.Sprint("new", d), Text: "replacement", Embedding: vecs[1499-d]}}
		if _, err := s.Write(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.WaitIndexed(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 500; i += 37 {
		got, err := s.SearchVector(ctx, "a", vecs[i], 10, memory.Filter{Sensitive: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids(got) {
			var n int
			if _, err := fmt.Sscanf(id, "f%d", &n); err == nil && n < 500 {
				t.Fatalf("deleted fact %s found for query %d", id, i)
			}
		}
		want, _ := s.SearchVectorExact(ctx, "a", vecs[i], 10, memory.Filter{Sensitive: true})
		if overlap(got, want) < 0.8 {
			t.Errorf("query %d after deletes: ANN %v, exact %v", i, ids(got), ids(want))
		}
	}
}

// TestStore_SearchVectorANNConcurrent searches from several goroutines
// while facts are written and the graph links them (run with -race).
func TestStore_SearchVectorANNConcurrent(t *testing.T) {
	s, vecs := annStore(t, 800)
	ctx := context.Background()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		rng := rand.New(rand.NewPCG(1, 1))
		for d := range 20 {
			w := &memory.WriteBatch{BankID: "a", Document: &memory.Document{ID: fmt.Sprint("c", d), Source: "c", ItemID: fmt.Sprint(d), ContentHash: "h"}}
			for i := range 50 {
				w.Facts = append(w.Facts, &memory.Fact{ID: fmt.Sprint("c", d, "_", i), Text: "more", Embedding: near(rng, vecs[rng.IntN(len(vecs))])})
			}
			if _, err := s.Write(ctx, w); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 2))
			for range 100 {
				hits, err := s.SearchVector(ctx, "a", vecs[rng.IntN(len(vecs))], 10, memory.Filter{})
				if err != nil {
					t.Error(err)
					return
				}
				for i := 1; i < len(hits); i++ {
					if hits[i].Score > hits[i-1].Score {
						t.Errorf("hits out of order: %v", hits)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if err := s.WaitIndexed(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.IndexStats(ctx, "a"); st.Linked != 1800 || st.Live != 1800 {
		t.Fatalf("index stats %+v, want 1800 live and linked", st)
	}
}

// TestStore_CloseReleasesMirror checks that Close releases the search
// mirror's memory while the Store value itself is still referenced: the
// live heap drops by at least the int8 vectors (before the mirror was
// the Store's own, a closed Store kept them), and a search after Close
// fails.
func TestStore_CloseReleasesMirror(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "close.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateBank(ctx, &memory.Bank{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for d := range 40 {
		w := &memory.WriteBatch{BankID: "a", Document: &memory.Document{ID: fmt.Sprint("d", d), Source: "t", ItemID: fmt.Sprint(d), ContentHash: "h"}}
		for i := range 50 {
			w.Facts = append(w.Facts, &memory.Fact{ID: fmt.Sprint("f", d, "_", i), Text: fmt.Sprint("fact ", i, " of document ", d), Embedding: unitVector(rng, 256)})
		}
		if _, err := s.Write(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Neighbours(ctx, "a", []string{"f0_0"}, 1); err != nil { // loads both mirrors
		t.Fatal(err)
	}
	st, err := s.IndexStats(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if st.Live != 2000 || st.VectorBytes < 2000*256 {
		t.Fatalf("index stats %+v, want 2000 live facts of 256 int8 dimensions", st)
	}
	before := liveHeap()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	after := liveHeap()
	if freed := int64(before) - int64(after); freed < st.VectorBytes {
		t.Errorf("Close freed %d bytes of heap, want at least the %d of the int8 vectors", freed, st.VectorBytes)
	}
	if _, err := s.SearchText(ctx, "a", []string{"fact"}, 5, memory.Filter{}); err == nil {
		t.Error("search after Close: no error")
	}
	runtime.KeepAlive(s)
}

// liveHeap returns the live heap after a full collection.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC() // a second cycle empties the pools' victim caches too
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
