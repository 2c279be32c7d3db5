package hnsw

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// clustered returns n unit vectors of dimension dim around 200 random
// centres (real embeddings cluster by topic; uniform random vectors are
// the worst case of every graph index), with a fixed seed.
func clustered(n, dim int, seed uint64) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 7))
	centres := make([][]float32, 200)
	for i := range centres {
		centres[i] = randUnit(r, dim, nil, 0)
	}
	out := make([][]float32, n)
	for i := range out {
		out[i] = randUnit(r, dim, centres[r.IntN(len(centres))], 0.35)
	}
	return out
}

// randUnit returns a unit vector: centre plus noise of the given scale per
// component, or pure noise when centre is nil.
func randUnit(r *rand.Rand, dim int, centre []float32, noise float64) []float32 {
	v := make([]float32, dim)
	var norm float64
	for i := range v {
		x := r.NormFloat64()
		if centre != nil {
			x = float64(centre[i]) + noise*x/math.Sqrt(float64(dim))*3
		}
		v[i] = float32(x)
		norm += x * x
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(norm))
	}
	return v
}

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// build stores data and links every node with workers goroutines.
func build(data [][]float32, workers int, seed uint64) (*Int8Vectors, *Graph) {
	v := NewInt8Vectors(len(data[0]))
	for _, x := range data {
		v.Append(x)
	}
	g := New(v, seed)
	g.Grow(len(data))
	var wg sync.WaitGroup
	next := make(chan int, 256)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				g.Insert(i)
			}
		}()
	}
	for i := range data {
		next <- i
	}
	close(next)
	wg.Wait()
	return v, g
}

// exact returns the ids of the k vectors most similar to q that accept allows.
func exact(data [][]float32, q []float32, k int, accept func(uint32) bool) []uint32 {
	type s struct {
		id  uint32
		sim float32
	}
	var all []s
	for i, x := range data {
		if accept == nil || accept(uint32(i)) {
			all = append(all, s{uint32(i), dot(q, x)})
		}
	}
	slices.SortFunc(all, func(a, b s) int {
		if a.sim != b.sim {
			if a.sim > b.sim {
				return -1
			}
			return 1
		}
		return int(a.id) - int(b.id)
	})
	out := make([]uint32, 0, k)
	for _, x := range all[:min(k, len(all))] {
		out = append(out, x.id)
	}
	return out
}

// recallAt is the share of want found in got.
func recallAt(got []Result, want []uint32) float64 {
	if len(want) == 0 {
		return 1
	}
	n := 0
	for _, w := range want {
		if slices.ContainsFunc(got, func(r Result) bool { return r.ID == w }) {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

func TestInt8Vectors_Dot(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, dim := range []int{3, 16, 17, 384, 1000} {
		v := NewInt8Vectors(dim)
		xs := make([][]float32, 50)
		for i := range xs {
			xs[i] = randUnit(r, dim, nil, 0)
			v.Append(xs[i])
		}
		q := randUnit(r, dim, nil, 0)
		qq := v.Query(q)
		for i, x := range xs {
			got, want := v.Dot(qq, i), dot(q, x)
			// Rounding to 1/254 of the largest component, over dim terms.
			if tol := float32(3 / math.Sqrt(float64(dim)) / 50); math.Abs(float64(got-want)) > float64(tol) {
				t.Fatalf("dim %d vector %d: got %g, want %g ± %g", dim, i, got, want, tol)
			}
			if g, w := dotInt8(qq.q, mustRaw(v, i)), dotInt8Generic(qq.q, mustRaw(v, i)); g != w {
				t.Fatalf("dim %d: SIMD dot %d, generic %d", dim, g, w)
			}
			if g, w := dotInt8x8(mustRaw(v, 0), mustRaw(v, i)), dotInt8x8Generic(mustRaw(v, 0), mustRaw(v, i)); g != w {
				t.Fatalf("dim %d: SIMD int8 dot %d, generic %d", dim, g, w)
			}
		}
	}
}

func mustRaw(v *Int8Vectors, i int) []int8 { c, _ := v.raw(i); return c }

// TestGraph_Recall checks recall@10 against the exact answer; it fails if
// the graph is broken (a random graph or a greedy walk finds far less).
func TestGraph_Recall(t *testing.T) {
	n := 20_000
	if testing.Short() {
		n = 5_000
	}
	data := clustered(n, 128, 1)
	v, g := build(data, 2, 42)
	r := rand.New(rand.NewPCG(9, 9))
	var sum float64
	const queries = 200
	for range queries {
		q := randUnit(r, 128, data[r.IntN(n)], 0.5)
		got, _ := g.Search(v.Query(q), 10, DefaultEfSearch, nil, 0)
		sum += recallAt(got, exact(data, q, 10, nil))
	}
	if got := sum / queries; got < 0.95 {
		t.Errorf("recall@10 = %.3f, want ≥ 0.95", got)
	} else {
		t.Logf("recall@10 = %.3f over %d nodes", got, n)
	}
}

// TestGraph_Filtered checks a filtered search keeps recall when the filter
// passes a good share of the nodes.
func TestGraph_Filtered(t *testing.T) {
	data := clustered(5_000, 64, 2)
	v, g := build(data, 2, 7)
	r := rand.New(rand.NewPCG(3, 3))
	for _, keep := range []int{2, 5} { // half, a fifth
		accept := func(id uint32) bool { return id%uint32(keep) == 0 }
		var sum float64
		for range 100 {
			q := randUnit(r, 64, data[r.IntN(len(data))], 0.5)
			got, _ := g.Search(v.Query(q), 10, 4*DefaultEfSearch, accept, 0)
			for _, h := range got {
				if !accept(h.ID) {
					t.Fatalf("keep 1/%d: got node %d the filter refuses", keep, h.ID)
				}
			}
			sum += recallAt(got, exact(data, q, 10, accept))
		}
		if got := sum / 100; got < 0.95 {
			t.Errorf("keep 1/%d: recall@10 = %.3f, want ≥ 0.95", keep, got)
		}
	}
}

// TestGraph_Duplicates checks that many copies of a few vectors (the
// synthetic banks repeat their small talk) cost no recall: they share one
// node, and a search returns the copies beside it, in id order, with the
// filter applied to each.
func TestGraph_Duplicates(t *testing.T) {
	n := 20_000
	if testing.Short() {
		n = 5_000
	}
	data := clustered(n, 128, 5)
	r := rand.New(rand.NewPCG(11, 11))
	for i := range data {
		if r.IntN(100) < 15 {
			data[i] = data[r.IntN(3)] // a copy of node 0, 1 or 2
		}
	}
	v, g := build(data, 2, 42)
	if c := g.Copies(); c < n/10 {
		t.Fatalf("Copies = %d, want the ~15%% repeated vectors", c)
	}
	for _, tc := range []struct {
		name   string
		accept func(uint32) bool
	}{{"All", nil}, {"Odd", func(id uint32) bool { return id%2 == 1 }}} {
		t.Run(tc.name, func(t *testing.T) {
			var sum float64
			const queries = 200
			for j := range queries {
				centre := data[r.IntN(n)]
				if j%2 == 0 {
					centre = data[j%3] // near a repeated vector
				}
				q := randUnit(r, 128, centre, 0.5)
				got, _ := g.Search(v.Query(q), 10, DefaultEfSearch, tc.accept, 0)
				for _, h := range got {
					if tc.accept != nil && !tc.accept(h.ID) {
						t.Fatalf("got node %d the filter refuses", h.ID)
					}
				}
				sum += recallAt(got, exact(data, q, 10, tc.accept))
			}
			if got := sum / queries; got < 0.95 {
				t.Errorf("recall@10 = %.3f, want ≥ 0.95", got)
			} else {
				t.Logf("recall@10 = %.3f over %d nodes, %d of them copies", got, n, g.Copies())
			}
		})
	}
}

// TestGraph_Deterministic checks one builder and a seed give one graph.
func TestGraph_Deterministic(t *testing.T) {
	data := clustered(2_000, 32, 3)
	v1, g1 := build(data, 1, 5)
	_, g2 := build(data, 1, 5)
	if !slices.Equal(g1.l0, g2.l0) || !slices.Equal(g1.levels, g2.levels) {
		t.Fatal("two single-threaded builds with one seed differ")
	}
	q := v1.Query(data[17])
	a, _ := g1.Search(q, 5, 50, nil, 0)
	b, _ := g2.Search(q, 5, 50, nil, 0)
	if !slices.Equal(a, b) || a[0].ID != 17 {
		t.Fatalf("searches: %v and %v, want equal and led by node 17", a, b)
	}
}

// TestGraph_SearchWhileInserting searches from several goroutines while
// others insert (run with -race).
func TestGraph_SearchWhileInserting(t *testing.T) {
	data := clustered(3_000, 32, 4)
	v := NewInt8Vectors(32)
	for _, x := range data {
		v.Append(x)
	}
	g := New(v, 1)
	g.Grow(len(data))
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(data); i += 2 {
				g.Insert(i)
			}
		}()
	}
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for range 300 {
				res, _ := g.Search(v.Query(data[r.IntN(len(data))]), 10, 40, nil, 0)
				for j := 1; j < len(res); j++ {
					if res[j].Sim > res[j-1].Sim {
						t.Errorf("results out of order: %v", res)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if g.Linked() != len(data) {
		t.Fatalf("linked %d, want %d", g.Linked(), len(data))
	}
}

func BenchmarkGraph(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		data := clustered(n, 384, 1)
		var v *Int8Vectors
		var g *Graph
		b.Run(fmt.Sprintf("Build/%d", n), func(b *testing.B) {
			for range b.N {
				v, g = build(data, 2, 1)
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "nodes/s")
		})
		b.Run(fmt.Sprintf("Search/%d", n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(2, 2))
			qs := make([][]float32, 100)
			var sum float64
			for i := range qs {
				qs[i] = randUnit(r, 384, data[r.IntN(n)], 0.5)
				got, _ := g.Search(v.Query(qs[i]), 10, DefaultEfSearch, nil, 0)
				sum += recallAt(got, exact(data, qs[i], 10, nil))
			}
			b.ResetTimer()
			for i := range b.N {
				g.Search(v.Query(qs[i%len(qs)]), 10, DefaultEfSearch, nil, 0)
			}
			b.ReportMetric(sum/float64(len(qs)), "recall@10")
		})
	}
}

func BenchmarkInt8Vectors_Dot(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	v := NewInt8Vectors(384)
	v.Append(randUnit(r, 384, nil, 0))
	q := v.Query(randUnit(r, 384, nil, 0))
	for range b.N {
		v.Dot(q, 0)
	}
}
