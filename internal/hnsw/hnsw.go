// Package hnsw is an in-memory approximate nearest-neighbour index: a
// Hierarchical Navigable Small World graph (Malkov & Yashunin 2016) over
// unit vectors quantized to int8 ([Int8Vectors]), ranked by dot product
// (cosine, for unit vectors). It knows nothing of facts, banks or files:
// node ids are the positions of vectors in the store, and what a search
// may return is the caller's filter.
//
// A Graph is built in batches: [Graph.Grow] admits the next vectors of the
// store as nodes (their levels drawn from the seed), then [Graph.Insert]
// links each one, from any number of goroutines at once. Searches may run
// concurrently with both. A graph's binary form ([Graph.Snapshot], [Read])
// lets a caller keep it, and read it back ready to search, without
// relinking a node; where it is kept, and its checksum, are the caller's.
package hnsw

import (
	"hash/maphash"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Defaults of a Graph.
const (
	// DefaultM is the links a node keeps per upper layer (twice as many on
	// layer 0): 16 is the paper's and hnswlib's default for dimension ~100–800.
	DefaultM = 16
	// DefaultEfConstruction is the candidate list of an insertion.
	DefaultEfConstruction = 128
	// DefaultEfSearch is the candidate list of a search; a search for k
	// results uses at least k. Measured on the synthetic bank's hashing
	// embeddings at 100k facts (recall@10 against exact / ms a search):
	// ef 96 0.913 / 0.49, 128 0.958 / 0.63, 200 0.972 / 0.68, 300 0.983 / 0.96.
	DefaultEfSearch = 200
)

// Graph is an HNSW graph over the vectors of an [Int8Vectors]. Create it
// with [New]. Grow must not run concurrently with Insert or Search; Insert
// and Search are safe for concurrent use.
type Graph struct {
	// M is the links per node on upper layers; layer 0 keeps 2·M.
	M int
	// EfConstruction is the candidate list size while inserting.
	EfConstruction int

	vecs   *Int8Vectors
	mL     float64 // level multiplier, 1/ln(M)
	m0     int
	seed   uint64
	mu     sync.RWMutex // held by Search and Insert (read), Grow (write)
	levels []uint8
	// l0 holds layer 0: node i's count at l0[i*(m0+1)], then its links.
	l0    []uint32
	upper [][]uint32 // node i's layers 1..level, each count then M links
	locks []sync.Mutex
	// entry is the top node and its level, guarded by epMu.
	epMu     sync.Mutex
	entry    int32
	maxLevel int
	linked   atomic.Int64 // nodes whose Insert finished

	// Nodes whose vectors are identical (int8 components and scale) share
	// one node of the graph, the first of them; the others are its
	// copies: never linked (their level is copyLevel), found through it.
	// Thousands of copies of one vector linked to each other fill each
	// other's lists and wall themselves off from the rest of the graph:
	// the synthetic banks' repeated small talk took recall@10 at 1M facts
	// down to 0.69. Grow finds them with an open-addressing table of
	// canonical node + 1 (0: empty), under mu.
	dedup     []uint32
	dedupN    int
	dedupSeed maphash.Seed
	// dedupStale: the table is not yet made for the nodes a graph
	// read from its binary form ([Read]) holds; the first Grow makes
	// it (its seed is this process's, so it cannot be stored).
	dedupStale bool
	copies     map[uint32][]uint32 // canonical → its copies, in id order

	pool sync.Pool // *searcher
}

// copyLevel marks a node that is a copy of an earlier one.
const copyLevel = math.MaxUint8

// New returns an empty graph over vecs with the default parameters; seed
// draws the nodes' levels, so a graph built by one goroutine is the same
// for the same seed and vectors.
func New(vecs *Int8Vectors, seed uint64) *Graph {
	g := &Graph{M: DefaultM, EfConstruction: DefaultEfConstruction, vecs: vecs, seed: seed, entry: -1,
		dedupSeed: maphash.MakeSeed(), copies: map[uint32][]uint32{}}
	g.setM()
	return g
}

func (g *Graph) setM() {
	g.m0 = 2 * g.M
	g.mL = 1 / math.Log(float64(g.M))
}

// Len returns the nodes admitted by Grow.
func (g *Graph) Len() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.levels)
}

// Linked returns how many Inserts have finished.
func (g *Graph) Linked() int { return int(g.linked.Load()) }

// Bytes returns the memory the links take.
func (g *Graph) Bytes() int64 {
	g.mu.RLock()
	defer g.mu.RUnlock()
	b := int64(cap(g.l0))*4 + int64(cap(g.levels)) + int64(cap(g.locks))*8 + int64(cap(g.upper))*24
	for _, u := range g.upper {
		b += int64(cap(u)) * 4
	}
	b += int64(cap(g.dedup)) * 4
	for _, c := range g.copies {
		b += int64(cap(c))*4 + 32
	}
	return b
}

// Copies returns the nodes admitted so far that are copies of an earlier
// node's vector, linked through it.
func (g *Graph) Copies() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	n := 0
	for _, c := range g.copies {
		n += len(c)
	}
	return n
}

// Grow admits nodes up to n (exclusive), which must not exceed the
// vectors stored; they become searchable once inserted. Grow must not be
// called from two goroutines at once.
func (g *Graph) Grow(n int) {
	if g.dedupStale && n > len(g.levels) {
		// Outside mu: only Grow changes levels, and hashing every node
		// of a large graph must not hold up the searches.
		t, tn := g.dedupTable()
		g.mu.Lock()
		g.dedup, g.dedupN, g.dedupStale = t, tn, false
		g.mu.Unlock()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m0 != 2*g.M {
		g.setM()
	}
	old := len(g.levels)
	if n <= old {
		return
	}
	if cap(g.levels) < n {
		c := max(n, old+old/4)
		g.levels = append(make([]uint8, 0, c), g.levels...)
		g.l0 = append(make([]uint32, 0, c*(g.m0+1)), g.l0...)
		g.upper = append(make([][]uint32, 0, c), g.upper...)
		locks := make([]sync.Mutex, old, c) // mutexes must not be copied while held: none is (Grow holds mu)
		g.locks = locks
	}
	g.locks = g.locks[:n]
	for i := old; i < n; i++ {
		g.l0 = append(g.l0, make([]uint32, g.m0+1)...)
		if c, ok := g.canonical(i); ok {
			g.levels = append(g.levels, copyLevel)
			g.upper = append(g.upper, nil)
			g.copies[c] = append(g.copies[c], uint32(i))
			continue
		}
		// The level of node i depends on the seed and i alone.
		r := rand.New(rand.NewPCG(g.seed, uint64(i)))
		lvl := int(math.Floor(-math.Log(1-r.Float64()) * g.mL))
		lvl = min(lvl, 15)
		g.levels = append(g.levels, uint8(lvl))
		var up []uint32
		if lvl > 0 {
			up = make([]uint32, lvl*(g.M+1))
		}
		g.upper = append(g.upper, up)
	}
}

// canonical returns the earlier node whose vector is identical to node
// i's, or records node i as the first of its vector. A zero vector (a
// slot without one) is never a copy. The caller holds mu for writing.
func (g *Graph) canonical(i int) (uint32, bool) {
	q, s := g.vecs.raw(i)
	if s == 0 {
		return 0, false
	}
	if 2*(g.dedupN+1) > len(g.dedup) {
		old := g.dedup
		g.dedup = make([]uint32, max(1024, 2*len(old)))
		for _, e := range old {
			if e != 0 {
				g.dedupPut(e-1, g.vecHash(int(e-1)))
			}
		}
	}
	h := g.vecHash(i)
	mask := uint64(len(g.dedup) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		e := g.dedup[j]
		if e == 0 {
			g.dedup[j] = uint32(i) + 1
			g.dedupN++
			return 0, false
		}
		if c, cs := g.vecs.raw(int(e - 1)); cs == s && slices.Equal(c, q) {
			return e - 1, true
		}
	}
}

// dedupPut places canonical node c, of hash h, in the table.
func (g *Graph) dedupPut(c uint32, h uint64) { putDedup(g.dedup, c, h) }

// putDedup places canonical node c, of hash h, in table t.
func putDedup(t []uint32, c uint32, h uint64) {
	mask := uint64(len(t) - 1)
	j := h & mask
	for t[j] != 0 {
		j = (j + 1) & mask
	}
	t[j] = c + 1
}

// dedupTable returns the table of the graph's canonical nodes and their
// number, as Grow would have made it admitting them.
func (g *Graph) dedupTable() ([]uint32, int) {
	n := 0
	for i, l := range g.levels {
		if _, s := g.vecs.raw(i); l != copyLevel && s != 0 {
			n++
		}
	}
	size := 1024
	for 2*(n+1) > size {
		size *= 2
	}
	t := make([]uint32, size)
	for i, l := range g.levels {
		if _, s := g.vecs.raw(i); l != copyLevel && s != 0 {
			putDedup(t, uint32(i), g.vecHash(i))
		}
	}
	return t, n
}

// vecHash hashes node i's int8 components and scale.
func (g *Graph) vecHash(i int) uint64 {
	q, s := g.vecs.raw(i)
	var h maphash.Hash
	h.SetSeed(g.dedupSeed)
	h.Write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(q))), len(q)))
	return h.Sum64() ^ uint64(math.Float32bits(s))*0x9e3779b97f4a7c15
}

// accepted reports whether accept (nil: all) allows node id or one of its
// copies.
func (g *Graph) accepted(accept func(uint32) bool, id uint32) bool {
	if accept == nil || accept(id) {
		return true
	}
	for _, c := range g.copies[id] {
		if accept(c) {
			return true
		}
	}
	return false
}

// links returns node i's link list on a layer: count slot first.
func (g *Graph) links(i uint32, layer int) []uint32 {
	if layer == 0 {
		o := int(i) * (g.m0 + 1)
		return g.l0[o : o+g.m0+1 : o+g.m0+1]
	}
	o := (layer - 1) * (g.M + 1)
	return g.upper[i][o : o+g.M+1 : o+g.M+1]
}

// neighbours copies node i's links on a layer into dst.
func (g *Graph) neighbours(i uint32, layer int, dst []uint32) []uint32 {
	l := g.links(i, layer)
	g.locks[i].Lock()
	dst = append(dst[:0], l[1:1+l[0]]...)
	g.locks[i].Unlock()
	return dst
}

// Insert links node i, admitted by Grow, into the graph. Each node must
// be inserted once.
func (g *Graph) Insert(i int) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	defer g.linked.Add(1)
	s := g.getSearcher()
	defer g.pool.Put(s)
	g.vecs.nodeQuery(i, &s.q)
	q := &s.q
	id := uint32(i)
	level := int(g.levels[i])
	if level == copyLevel {
		return // reached through its canonical node
	}

	g.epMu.Lock()
	ep, top := g.entry, g.maxLevel
	if ep < 0 {
		g.entry, g.maxLevel = int32(i), level
		g.epMu.Unlock()
		return
	}
	if level > top {
		// Hold the entry lock while a new top node links, so no other
		// insertion starts from a top it is not yet connected to.
		defer g.epMu.Unlock()
	} else {
		g.epMu.Unlock()
	}
	cur := uint32(ep)
	curSim := g.vecs.Dot(q, int(cur))
	for l := top; l > level; l-- {
		cur, curSim = g.greedy(s, q, cur, curSim, l)
	}
	eps := []candidate{{cur, curSim}}
	for l := min(level, top); l >= 0; l-- {
		cands := g.searchLayer(s, q, eps, g.EfConstruction, l, nil, 0)
		m := g.M
		if l == 0 {
			m = g.m0
		}
		sel := g.selectNeighbours(s, cands, g.M)
		own := g.links(id, l)
		g.locks[id].Lock()
		own[0] = uint32(len(sel))
		for j, c := range sel {
			own[1+j] = c.id
		}
		g.locks[id].Unlock()
		for _, c := range sel {
			g.link(s, c.id, id, c.sim, l, m)
		}
		eps = append(eps[:0], cands...)
	}
	if level > top {
		g.entry, g.maxLevel = int32(i), level
	}
}

// link adds a link from a to b (similarity sim) on a layer whose lists
// hold m, pruning a's list with the heuristic when it overflows.
func (g *Graph) link(s *searcher, a, b uint32, sim float32, layer, m int) {
	l := g.links(a, layer)
	g.locks[a].Lock()
	defer g.locks[a].Unlock()
	n := int(l[0])
	for _, x := range l[1 : 1+n] {
		if x == b {
			return
		}
	}
	if n < m {
		l[1+n] = b
		l[0]++
		return
	}
	// Full: keep the best m of the old links and b by the heuristic.
	cands := make([]candidate, 0, n+1)
	cands = append(cands, candidate{b, sim})
	for _, x := range l[1 : 1+n] {
		cands = append(cands, candidate{x, g.vecs.dotNodes(int(a), int(x))})
	}
	sortCandidates(cands)
	sel := g.selectNeighbours(s, cands, m)
	l[0] = uint32(len(sel))
	for j, c := range sel {
		l[1+j] = c.id
	}
}

// selectNeighbours is the paper's heuristic (algorithm 4) on candidates
// sorted best first: a candidate is kept unless it is closer to one kept
// already than to the base, so links spread in all directions; the rest
// fill up to m (keepPrunedConnections).
func (g *Graph) selectNeighbours(s *searcher, cands []candidate, m int) []candidate {
	if len(cands) <= m {
		return cands
	}
	sel := make([]candidate, 0, m)
	var rest []candidate
	for _, c := range cands {
		if len(sel) >= m {
			break
		}
		ok := true
		for _, k := range sel {
			if g.vecs.dotNodes(int(c.id), int(k.id)) > c.sim {
				ok = false
				break
			}
		}
		if ok {
			sel = append(sel, c)
		} else {
			rest = append(rest, c)
		}
	}
	for _, c := range rest {
		if len(sel) >= m {
			break
		}
		sel = append(sel, c)
	}
	return sel
}

// greedy walks a layer from cur to a local best.
func (g *Graph) greedy(s *searcher, q *Query, cur uint32, curSim float32, layer int) (uint32, float32) {
	for changed := true; changed; {
		changed = false
		s.nb = g.neighbours(cur, layer, s.nb)
		for _, x := range s.nb {
			if sim := g.vecs.Dot(q, int(x)); sim > curSim {
				cur, curSim, changed = x, sim, true
			}
		}
	}
	return cur, curSim
}

// Result is one search hit: a node and its approximate similarity.
type Result struct {
	ID  uint32
	Sim float32
}

// Search returns up to k nodes most similar to q, best first, among those
// accept allows (all when accept is nil), exploring a candidate list of
// max(ef, k). Nodes that accept refuses are still walked through, so a
// filter costs recall only when it refuses most nodes; maxVisit (0: no
// bound) caps the nodes a search may score, for filters that refuse so
// much the walk would cover the graph — a search that hits the cap says so
// with exhausted, and its results are the best it saw.
func (g *Graph) Search(q *Query, k, ef int, accept func(id uint32) bool, maxVisit int) (res []Result, exhausted bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	g.epMu.Lock()
	ep, top := g.entry, g.maxLevel
	g.epMu.Unlock()
	if ep < 0 || k <= 0 {
		return nil, false
	}
	s := g.getSearcher()
	defer g.pool.Put(s)
	cur := uint32(ep)
	curSim := g.vecs.Dot(q, int(cur))
	for l := top; l > 0; l-- {
		cur, curSim = g.greedy(s, q, cur, curSim, l)
	}
	s.maxVisit, s.capped = maxVisit, false
	found := g.searchLayer(s, q, []candidate{{cur, curSim}}, max(ef, k), 0, accept, maxVisit)
	res = make([]Result, 0, min(k, len(found)))
	// A node stands for its copies too: each with the node's similarity,
	// after it, in id order (the order of equal similarities).
	add := func(id uint32, sim float32) {
		if accept == nil || accept(id) {
			res = append(res, Result{id, sim})
		}
	}
	for _, c := range found {
		if len(res) >= k {
			break
		}
		add(c.id, c.sim)
		for _, d := range g.copies[c.id] {
			if len(res) >= k {
				break
			}
			add(d, c.sim)
		}
	}
	return res, s.capped
}

// searchLayer is the paper's algorithm 2 with a filter: the best ef
// accepted nodes reachable from eps, best first.
func (g *Graph) searchLayer(s *searcher, q *Query, eps []candidate, ef, layer int, accept func(uint32) bool, maxVisit int) []candidate {
	s.reset(len(g.levels))
	s.cand = s.cand[:0]
	s.res = s.res[:0]
	visits := 0
	for _, e := range eps {
		if !s.visit(e.id) {
			continue
		}
		s.cand.push(e)
		if g.accepted(accept, e.id) {
			s.res.push(e)
		}
	}
	for len(s.cand) > 0 {
		c := s.cand.popMax()
		if len(s.res) >= ef && c.sim < s.res.min().sim {
			break
		}
		if maxVisit > 0 && visits >= maxVisit {
			s.capped = true
			break
		}
		s.nb = g.neighbours(c.id, layer, s.nb)
		for _, x := range s.nb {
			if !s.visit(x) {
				continue
			}
			visits++
			sim := g.vecs.Dot(q, int(x))
			if len(s.res) < ef || sim > s.res.min().sim {
				s.cand.push(candidate{x, sim})
				if g.accepted(accept, x) {
					s.res.push(candidate{x, sim})
					if len(s.res) > ef {
						s.res.popMin()
					}
				}
			}
		}
	}
	out := make([]candidate, len(s.res))
	copy(out, s.res)
	sortCandidates(out)
	return out
}

func (g *Graph) getSearcher() *searcher {
	if s, ok := g.pool.Get().(*searcher); ok {
		return s
	}
	return &searcher{}
}
