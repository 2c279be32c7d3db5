package sqlite

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemo-ai/mnemo/internal/hnsw"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/viterin/vek/vek32"
)

// Defaults of the vector search.
const (
	// DefaultANNThreshold is the vectors a bank must hold before its
	// search index builds an HNSW graph: below it an exact int8 SIMD scan
	// answers within about a millisecond (20k × 384 dimensions measured
	// at 0.5 ms), and no graph costs memory or build time.
	DefaultANNThreshold = 20_000
	// DefaultExactSelectivity is the share of a bank's facts a filter must
	// pass for a search to walk the graph: a filter that passes fewer is
	// answered by the exact scan, which costs little more than the walk
	// would (the walk scores ~1/selectivity nodes per result) and never
	// misses a fact.
	DefaultExactSelectivity = 0.1
	// annBatch bounds the nodes the builder links before it publishes
	// them to searches.
	annBatch = 16_384
	// spillChunk is the vectors written to the spill file at once.
	spillChunk = 256
	// selectivitySample is the slots sampled to estimate a filter's
	// selectivity.
	selectivitySample = 2048
)

// SearchVector implements memory.Store. The candidates come from the int8
// vectors — an exact scan, or in a bank of ANNThreshold vectors or more an
// HNSW walk over the slots the graph has linked plus an exact scan of the
// rest — and the best k + a margin are rescored with the float32
// originals, so scores are exact cosines and, below the threshold (or
// under a selective filter), the hits are the exact answer.
func (s *Store) SearchVector(ctx context.Context, bankID string, vec []float32, k int, f memory.Filter) ([]memory.Hit, error) {
	return s.searchVector(ctx, bankID, vec, k, f, false)
}

// SearchVectorExact is SearchVector without the graph: an exact scan of
// every vector, whatever the bank's size. Benchmarks measure the graph's
// recall against it.
func (s *Store) SearchVectorExact(ctx context.Context, bankID string, vec []float32, k int, f memory.Filter) ([]memory.Hit, error) {
	return s.searchVector(ctx, bankID, vec, k, f, true)
}

func (s *Store) searchVector(ctx context.Context, bankID string, vec []float32, k int, f memory.Filter, exact bool) ([]memory.Hit, error) {
	x, err := s.index(ctx, bankID)
	if err != nil {
		return nil, err
	}
	if k <= 0 {
		return nil, nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.dim == 0 {
		return nil, nil
	}
	if len(vec) != x.dim {
		return nil, memory.Errorf(memory.EINVALID, "query vector has dimension %d, bank %q holds dimension %d", len(vec), bankID, x.dim)
	}
	m := newMatcher(f)
	q := x.vecs.Query(vec)
	kk := k + max(16, k/2) // rescored: int8 ranks within ~1e-4 of exact
	h := make(hitHeap, 0, kk+1)
	from := 0
	if a := x.ann; a != nil && !exact {
		if done := int(a.done.Load()); done > 0 && x.searchANN(a, q, kk, &m, done, &h) {
			from = done
		}
	}
	x.scan(q, kk, &m, from, len(x.state), &h)
	return x.rescore(vec, &h, k), nil
}

// accepts reports whether slot i holds a vector the filter passes.
func (x *bankIndex) accepts(m *matcher, i int) bool {
	st := x.state[i]
	if m.simple {
		return st&(stOpen|stSensitive) == stOpen
	}
	return st&(stLive|stVec) == stLive|stVec && m.match(&x.meta[i])
}

// scan offers the slots [from, to) the filter passes to h by int8 score.
func (x *bankIndex) scan(q *hnsw.Query, kk int, m *matcher, from, to int, h *hitHeap) {
	for i := from; i < to; i++ {
		st := x.state[i]
		if m.simple {
			if st&(stOpen|stSensitive) != stOpen {
				continue
			}
		} else if st&(stLive|stVec) != stLive|stVec || !m.match(&x.meta[i]) {
			continue
		}
		h.offer(kk, scored{i, float64(x.vecs.Dot(q, i))})
	}
}

// searchANN offers h the best kk slots of [0, done) by a walk of the graph
// and reports true, or reports false, leaving h alone, when the filter is
// too selective for the walk (the caller then scans every slot).
func (x *bankIndex) searchANN(a *annIndex, q *hnsw.Query, kk int, m *matcher, done int, h *hitHeap) bool {
	sel := x.selectivity(m, done)
	if sel < DefaultExactSelectivity {
		return false
	}
	ef := max(x.efSearch, kk)
	if !m.simple {
		// About ef accepted nodes need ef/sel visited ones.
		ef = min(int(float64(ef)/sel), 8*max(x.efSearch, kk))
	}
	accept := func(id uint32) bool { return int(id) < done && x.accepts(m, int(id)) }
	res, capped := a.g.Search(q, kk, ef, accept, done/2)
	if capped || (len(res) < kk && float64(kk) <= sel*float64(done)) {
		return false // the walk could not find enough: scan
	}
	for _, r := range res {
		h.offer(kk, scored{int(r.ID), float64(r.Sim)})
	}
	return true
}

// selectivity estimates the share of slots [0, done) the filter passes:
// counted for the zero filter, sampled at a fixed stride otherwise.
func (x *bankIndex) selectivity(m *matcher, done int) float64 {
	if m.simple {
		return float64(x.open) / float64(len(x.state))
	}
	step := max(1, done/selectivitySample)
	n, hit := 0, 0
	for i := 0; i < done; i += step {
		n++
		if x.accepts(m, i) {
			hit++
		}
	}
	return float64(hit) / float64(n)
}

// rescore empties h (int8 candidates), scores each with its float32
// vector and returns the best k, best first; equal scores go to the
// earlier slot.
func (x *bankIndex) rescore(vec []float32, h *hitHeap, k int) []memory.Hit {
	out := make(hitHeap, 0, k+1)
	var buf []float32
	var raw []byte
	for _, c := range *h {
		var err error
		buf, raw, err = x.exact.read(c.slot, buf, raw)
		sc := c.score
		if err == nil {
			sc = float64(vek32.Dot(vec, buf))
		}
		out.offer(k, scored{c.slot, sc})
	}
	*h = (*h)[:0]
	return out.hits(x)
}

// exactVectors keeps the float32 vectors of an index for rescoring: in a
// spill file (an unlinked temporary file next to the database, so the
// process's memory holds only the int8 copies and the page cache the
// rest) or, with Store.FloatVectors or when no file can be made, in
// memory. It is appended to under the index's write lock and read under
// its read lock.
type exactVectors struct {
	dim    int
	f      *os.File
	name   string // to remove at close where an open file cannot be unlinked
	inFile int    // vectors written to f
	// pending holds the vectors from inFile on while they go to the file,
	// little-endian as the file (and the facts table) stores them.
	pending []byte
	// mem holds the vectors from inFile on when there is no file, or a
	// write failed, in blocks of vecBlock.
	mem    [][]float32
	failed bool // a write failed: keep the rest in memory
}

// vecBlock is the vectors per block of exactVectors.mem.
const vecBlock = 4096

func newExactVectors(dim int, inMemory bool, dir string) *exactVectors {
	e := &exactVectors{dim: dim}
	if inMemory {
		return e
	}
	f, err := os.CreateTemp(dir, "mnemo-vectors-*")
	if err != nil {
		return e // memory it is
	}
	e.f = f
	if os.Remove(f.Name()) != nil {
		e.name = f.Name()
	}
	return e
}

// spilling reports whether new vectors go to the file.
func (e *exactVectors) spilling() bool { return e.f != nil && !e.failed }

func (e *exactVectors) memLen() int {
	if len(e.mem) == 0 {
		return 0
	}
	return (len(e.mem)-1)*vecBlock + len(e.mem[len(e.mem)-1])/e.dim
}

// append adds v (zeros when nil) as the next vector.
func (e *exactVectors) append(v []float32) {
	if e.spilling() {
		if v == nil {
			e.pending = append(e.pending, make([]byte, 4*e.dim)...)
		} else {
			for _, x := range v {
				e.pending = binary.LittleEndian.AppendUint32(e.pending, math.Float32bits(x))
			}
		}
		e.flushFull()
		return
	}
	n := e.memLen()
	if n%vecBlock == 0 {
		e.mem = append(e.mem, make([]float32, 0, min(vecBlock, spillChunk*max(1, len(e.mem)*4))*e.dim))
	}
	b := &e.mem[len(e.mem)-1]
	if v == nil {
		*b = append(*b, make([]float32, e.dim)...)
	} else {
		*b = append(*b, v...)
	}
}

// appendEncoded adds the vector b, encoded as encodeVector does (4·dim
// bytes), as the next vector: a loaded row's blob goes to the file as it
// is.
func (e *exactVectors) appendEncoded(b []byte) {
	if !e.spilling() {
		e.append(decodeVector(make([]float32, 0, e.dim), b))
		return
	}
	e.pending = append(e.pending, b...)
	e.flushFull()
}

// flushFull writes the pending vectors once there are spillChunk of them.
func (e *exactVectors) flushFull() {
	if e.pending == nil {
		return
	}
	if len(e.pending) >= spillChunk*4*e.dim {
		e.flush()
	}
}

// flush writes the pending vectors to the file; if that fails, they and
// all later vectors stay in memory.
func (e *exactVectors) flush() {
	n := len(e.pending) / (4 * e.dim)
	if _, err := e.f.WriteAt(e.pending, int64(e.inFile)*int64(e.dim)*4); err != nil {
		e.failed = true
		pending := e.pending
		e.pending = nil
		for i := range n {
			e.append(decodeVector(make([]float32, 0, e.dim), pending[i*4*e.dim:(i+1)*4*e.dim]))
		}
		return
	}
	e.inFile += n
	e.pending = e.pending[:0]
}

// read returns vector i in dst, using raw as scratch space.
func (e *exactVectors) read(i int, dst []float32, raw []byte) ([]float32, []byte, error) {
	dst = dst[:0]
	if i >= e.inFile {
		j := i - e.inFile
		if e.spilling() {
			return decodeVector(dst, e.pending[j*4*e.dim:(j+1)*4*e.dim]), raw, nil
		}
		o := (j % vecBlock) * e.dim
		return append(dst, e.mem[j/vecBlock][o:o+e.dim]...), raw, nil
	}
	if cap(raw) < 4*e.dim {
		raw = make([]byte, 4*e.dim)
	}
	raw = raw[:4*e.dim]
	if _, err := e.f.ReadAt(raw, int64(i)*int64(e.dim)*4); err != nil {
		return dst, raw, err
	}
	return decodeVector(dst, raw), raw, nil
}

func (e *exactVectors) close() {
	if e.f != nil {
		e.f.Close()
		if e.name != "" {
			os.Remove(e.name)
		}
	}
}

// annIndex is a bank's HNSW graph and the builder linking it.
type annIndex struct {
	g    *hnsw.Graph
	vecs *hnsw.Int8Vectors
	done atomic.Int64 // slots [0, done) are linked
	wake chan struct{}
	stop chan struct{}
	// stopped is closed when the builder has returned.
	stopped chan struct{}
	halt    atomic.Bool
}

// maybeBuild starts the graph of a bank that reached the threshold, or
// wakes its builder to link new slots. The caller holds x.mu.
func (s *Store) maybeBuild(x *bankIndex) {
	if x.ann != nil {
		select {
		case x.ann.wake <- struct{}{}:
		default:
		}
		return
	}
	if x.vecs == nil || x.annThreshold <= 0 || x.live < x.annThreshold || s.closing == nil {
		return
	}
	a := &annIndex{g: hnsw.New(x.vecs, uint64(x.created)), vecs: x.vecs, wake: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	x.ann = a
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(a.stopped)
		a.build(s.closing, max(1, s.IndexWorkers))
	}()
}

// resetANN drops the graph (its node ids were slots compaction renumbered);
// maybeBuild starts another. The caller holds x.mu.
func (x *bankIndex) resetANN() {
	if x.ann != nil {
		x.ann.halt.Store(true)
		close(x.ann.stop)
		x.ann = nil
	}
}

// close stops the index's builder and releases its spill file. The caller
// holds x.mu, or is the index's last user.
func (x *bankIndex) close() {
	x.resetANN()
	if x.exact != nil {
		x.exact.close()
	}
}

// build links the vectors into the graph as they arrive, in batches of at
// most annBatch linked by workers goroutines, until stop or closing.
func (a *annIndex) build(closing <-chan struct{}, workers int) {
	for {
		n, done := a.vecs.Len(), int(a.done.Load())
		if n > done {
			n = min(n, done+annBatch)
			a.g.Grow(n)
			var next atomic.Int64
			next.Store(int64(done))
			var wg sync.WaitGroup
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for !a.halt.Load() {
						i := int(next.Add(1) - 1)
						if i >= n {
							return
						}
						a.g.Insert(i)
					}
				}()
			}
			wg.Wait()
			if a.halt.Load() {
				return
			}
			a.done.Store(int64(n))
			continue
		}
		select {
		case <-a.wake:
		case <-a.stop:
			return
		case <-closing:
			a.halt.Store(true)
			return
		}
	}
}

// WaitIndexed loads the bank's search index and waits until its graph, if
// the bank has one, has linked every vector; benchmarks call it to time
// searches in the steady state. It returns ctx's error if ctx ends first.
func (s *Store) WaitIndexed(ctx context.Context, bankID string) error {
	x, err := s.index(ctx, bankID)
	if err != nil {
		return err
	}
	for {
		x.mu.RLock()
		a, n := x.ann, len(x.state)
		x.mu.RUnlock()
		if a == nil || int(a.done.Load()) >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// IndexStats describes a bank's in-process search index.
type IndexStats struct {
	Slots, Live int
	// VectorBytes is the memory of the int8 vectors; GraphBytes of the
	// HNSW links (0 without a graph); Linked the slots the graph covers.
	VectorBytes, GraphBytes int64
	Linked                  int
}

// IndexStats returns the state of a bank's search index, loading it.
func (s *Store) IndexStats(ctx context.Context, bankID string) (IndexStats, error) {
	x, err := s.index(ctx, bankID)
	if err != nil {
		return IndexStats{}, err
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	st := IndexStats{Slots: len(x.state), Live: x.live}
	if x.vecs != nil {
		st.VectorBytes = x.vecs.Bytes()
	}
	if x.ann != nil {
		st.GraphBytes = x.ann.g.Bytes()
		st.Linked = int(x.ann.done.Load())
	}
	return st, nil
}
