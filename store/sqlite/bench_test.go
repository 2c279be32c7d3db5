package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// benchWords is the vocabulary of the benchmark facts: a Zipf-like draw
// over it gives realistic posting-list lengths.
var benchWords = func() []string {
	w := make([]string, 2000)
	for i := range w {
		w[i] = fmt.Sprintf("w%dx", i)
	}
	return w
}()

// fillBench writes n facts of 12 words and a dim-384 unit vector each, in
// documents of 20 facts, with a fixed seed.
func fillBench(b *testing.B, n int) (*Store, *rand.Rand) {
	b.Helper()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if err := s.CreateBank(ctx, &memory.Bank{ID: "bench"}); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(benchWords)-1))
	for d := 0; d*20 < n; d++ {
		w := &memory.WriteBatch{BankID: "bench", Document: &memory.Document{ID: fmt.Sprint("d", d), Source: "bench", ItemID: fmt.Sprint(d), ContentHash: "h"}}
		for i := 0; i < 20 && d*20+i < n; i++ {
			text := ""
			for j := 0; j < 12; j++ {
				text += benchWords[zipf.Uint64()] + " "
			}
			w.Facts = append(w.Facts, &memory.Fact{ID: fmt.Sprintf("f%d_%d", d, i), Text: text, Embedding: unitVector(rng, 384)})
		}
		if _, err := s.Write(ctx, w); err != nil {
			b.Fatal(err)
		}
	}
	return s, rng
}

func unitVector(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	var norm float64
	for i := range v {
		x := rng.NormFloat64()
		v[i] = float32(x)
		norm += x * x
	}
	for i := range v {
		v[i] /= float32(sqrt(norm))
	}
	return v
}

func sqrt(x float64) float64 {
	z := x / 2
	for i := 0; i < 30; i++ {
		z = (z + x/z) / 2
	}
	return z
}

func BenchmarkStore_SearchText(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s, rng := fillBench(b, n)
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				terms := []string{benchWords[rng.IntN(50)], benchWords[rng.IntN(500)], benchWords[rng.IntN(2000)]}
				if _, err := s.SearchText(ctx, "bench", terms, 100, memory.Filter{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStore_SearchVector times SearchVector (k 100) once the graph
// is linked, and reports its recall@10 against SearchVectorExact, the
// p50/p99 of one search and the live Go heap of the store.
func BenchmarkStore_SearchVector(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s, rng := fillBench(b, n)
			ctx := context.Background()
			if err := s.WaitIndexed(ctx, "bench"); err != nil {
				b.Fatal(err)
			}
			qs := make([][]float32, 64)
			var recall float64
			for i := range qs {
				qs[i] = unitVector(rng, 384)
				got, err := s.SearchVector(ctx, "bench", qs[i], 10, memory.Filter{})
				if err != nil {
					b.Fatal(err)
				}
				want, err := s.SearchVectorExact(ctx, "bench", qs[i], 10, memory.Filter{})
				if err != nil {
					b.Fatal(err)
				}
				recall += recallOf(got, want)
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t := time.Now()
				if _, err := s.SearchVector(ctx, "bench", qs[i%len(qs)], 100, memory.Filter{}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(recall/float64(len(qs)), "recall@10")
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MB")
		})
	}
}

// recallOf is the share of want's ids found in got.
func recallOf(got, want []memory.Hit) float64 {
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

func BenchmarkStore_Write(b *testing.B) {
	s, rng := fillBench(b, 0)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := &memory.WriteBatch{BankID: "bench", Document: &memory.Document{ID: fmt.Sprint("w", i), Source: "bench", ItemID: fmt.Sprint("w", i), ContentHash: "h"}}
		for j := 0; j < 20; j++ {
			w.Facts = append(w.Facts, &memory.Fact{ID: fmt.Sprintf("w%d_%d", i, j), Text: benchWords[rng.IntN(2000)] + " " + benchWords[rng.IntN(2000)], Embedding: unitVector(rng, 384)})
		}
		if _, err := s.Write(ctx, w); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(20*b.N)/b.Elapsed().Seconds(), "facts/s")
}

// BenchmarkStore_Facts reads 160 facts by id out of 10,000 (32 windows
// of 5 neighbours, as recall's context strategy hydrates its
// candidates), from a warm index: from the fact cache (cached), and
// from the rows (rows, the cache turned off).
func BenchmarkStore_Facts(b *testing.B) {
	s, rng := fillBench(b, 10_000)
	ctx := context.Background()
	var ids []string
	for range 32 {
		d, i := rng.IntN(500), rng.IntN(16)
		for j := range 5 {
			ids = append(ids, fmt.Sprintf("f%d_%d", d, i+j))
		}
	}
	if got, err := s.Facts(ctx, "bench", ids); err != nil || len(got) != len(ids) {
		b.Fatalf("got %d facts, %v; want %d", len(got), err, len(ids))
	}
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Facts(ctx, "bench", ids); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The rows, as every read paid before the fact cache, and as a
	// read pays after a write to the bank's facts.
	b.Run("rows", func(b *testing.B) {
		s.facts = newFactCache(0)
		for b.Loop() {
			if _, err := s.Facts(ctx, "bench", ids); err != nil {
				b.Fatal(err)
			}
		}
	})
}
