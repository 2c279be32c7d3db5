package hnsw

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"unsafe"
)

// A graph's binary form, as [Snapshot.WriteTo] writes it and [Read] reads
// it (little-endian):
//
//	graphMagic, M, nodes, seed, entry, top level, copies
//	each node's level, one byte, padded to a multiple of 4
//	layer 0: each node's count then 2·M links (fixed size)
//	layers 1 and up of each node of level ≥ 1: per layer, count then M links
//	the copies: (canonical node, copy) pairs in copy order
//
// Layer 0, the bulk, has the layout the graph keeps in memory, so a read
// is one copy into it rather than a decode of each link. The form holds
// no checksum: whoever stores it checks its bytes.

// graphMagic opens a graph's binary form and names its version.
const graphMagic = "HNSWG001"

// graphHead is the fixed part before the levels.
const graphHead = len(graphMagic) + 4 + 4 + 8 + 4 + 4 + 4

// littleEndian reports whether this machine stores uint32s as the form
// does, so layer 0 can be read into memory as it is.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// errGraph is the error of bytes that are not a graph's binary form.
var errGraph = errors.New("not an HNSW graph")

// A Snapshot is the plan of a graph's binary form: which of its first
// nodes it holds and under which ids. Make it with [Graph.Snapshot].
type Snapshot struct {
	g *Graph
	n int // the graph's first n nodes are planned
	// src is, by new id, the node whose level and links it takes;
	// newID is, by node, its new id (-1: left out).
	src    []uint32
	newID  []int32
	copies []copyPair // by new id
	entry  int32
	top    int
}

// Snapshot plans the binary form of the graph's first n nodes (all of
// them when n exceeds Len), which must have been inserted. keep, when
// not nil, gives each of them its id in the form or -1 to leave it out
// (the ids kept must be 0, 1, 2… in node order): a caller that numbers
// its vectors afresh without some drops their nodes and the links to
// them, and a node left out that others copy hands its level and links
// to its first copy kept. Links to later nodes, which insertions under
// way may be adding, are left out too, so the form read back is the
// graph of the nodes kept alone.
func (g *Graph) Snapshot(n int, keep []int32) (*Snapshot, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	n = min(n, len(g.levels))
	s := &Snapshot{g: g, n: n, newID: make([]int32, n), entry: -1}
	for i := range n {
		id := int32(i)
		if keep != nil {
			if i >= len(keep) {
				return nil, fmt.Errorf("keep has %d ids for %d nodes", len(keep), n)
			}
			id = keep[i]
		}
		if id >= 0 {
			if int(id) != len(s.src) {
				return nil, fmt.Errorf("node %d kept as %d, want %d", i, id, len(s.src))
			}
			s.src = append(s.src, uint32(i))
		}
		s.newID[i] = id
	}
	// A canonical node left out: its first copy kept takes its place.
	for c, cs := range g.copies {
		if int(c) >= n || s.newID[c] >= 0 {
			continue
		}
		for _, d := range cs {
			if int(d) < n && s.newID[d] >= 0 {
				s.src[s.newID[d]] = c
				s.newID[c] = s.newID[d]
				break
			}
		}
	}
	for c, cs := range g.copies {
		if int(c) >= n || s.newID[c] < 0 {
			continue
		}
		for _, d := range cs {
			if int(d) < n && s.newID[d] >= 0 && s.newID[d] != s.newID[c] {
				s.copies = append(s.copies, copyPair{uint32(s.newID[c]), uint32(s.newID[d])})
			}
		}
	}
	slices.SortFunc(s.copies, func(a, b copyPair) int { return int(a.copy) - int(b.copy) })
	g.epMu.Lock()
	entry, top := g.entry, g.maxLevel
	g.epMu.Unlock()
	if entry >= 0 && int(entry) < n && s.newID[entry] >= 0 {
		s.entry, s.top = s.newID[entry], top
	} else {
		// The entry is left out, or a later node became the top while
		// inserting: the first node of the highest level kept.
		for j, i := range s.src {
			if l := g.levels[i]; l != copyLevel && (s.entry < 0 || int(l) > s.top) {
				s.entry, s.top = int32(j), int(l)
			}
		}
	}
	return s, nil
}

// Nodes returns the nodes the form holds.
func (s *Snapshot) Nodes() int { return len(s.src) }

// Len returns the length of the binary form, as WriteTo writes it.
func (s *Snapshot) Len() int64 {
	g, m := s.g, len(s.src)
	g.mu.RLock()
	defer g.mu.RUnlock()
	l := int64(graphHead) + int64(pad4(m)) + int64(m)*int64(g.m0+1)*4 + int64(len(s.copies))*8
	for _, i := range s.src {
		if lvl := g.levels[i]; lvl != copyLevel {
			l += int64(lvl) * int64(g.M+1) * 4
		}
	}
	return l
}

func pad4(n int) int { return (n + 3) &^ 3 }

// WriteTo writes the binary form to w. It may run concurrently with
// Insert and Search; a Grow waits for it (and the searches that come
// after that Grow wait too).
func (s *Snapshot) WriteTo(w io.Writer) (int64, error) {
	g, m := s.g, len(s.src)
	g.mu.RLock()
	defer g.mu.RUnlock()
	cw := &countWriter{w: w}
	b := make([]byte, 0, 64<<10)
	b = append(b, graphMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(g.M))
	b = binary.LittleEndian.AppendUint32(b, uint32(m))
	b = binary.LittleEndian.AppendUint64(b, g.seed)
	b = binary.LittleEndian.AppendUint32(b, uint32(s.entry))
	b = binary.LittleEndian.AppendUint32(b, uint32(s.top))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s.copies)))
	flush := func(force bool) error {
		if len(b) >= 60<<10 || (force && len(b) > 0) {
			_, err := cw.Write(b)
			b = b[:0]
			return err
		}
		return nil
	}
	for _, i := range s.src {
		b = append(b, g.levels[i])
		if err := flush(false); err != nil {
			return cw.n, err
		}
	}
	for range pad4(m) - m {
		b = append(b, 0)
	}
	var list []uint32
	// appendList appends node i's list on a layer, read under its lock,
	// in new ids, without the links to nodes left out.
	appendList := func(i uint32, layer, size int) {
		l := g.links(i, layer)
		g.locks[i].Lock()
		list = append(list[:0], l[1:1+l[0]]...)
		g.locks[i].Unlock()
		at := len(b)
		b = binary.LittleEndian.AppendUint32(b, 0)
		kept := 0
		for _, x := range list {
			if int(x) < s.n && s.newID[x] >= 0 {
				b = binary.LittleEndian.AppendUint32(b, uint32(s.newID[x]))
				kept++
			}
		}
		binary.LittleEndian.PutUint32(b[at:], uint32(kept))
		for range size - kept {
			b = binary.LittleEndian.AppendUint32(b, 0)
		}
	}
	for _, i := range s.src {
		appendList(i, 0, g.m0)
		if err := flush(false); err != nil {
			return cw.n, err
		}
	}
	for _, i := range s.src {
		lvl := g.levels[i]
		if lvl == copyLevel {
			continue
		}
		for l := 1; l <= int(lvl); l++ {
			appendList(i, l, g.M)
		}
		if err := flush(false); err != nil {
			return cw.n, err
		}
	}
	for _, p := range s.copies {
		b = binary.LittleEndian.AppendUint32(b, p.canonical)
		b = binary.LittleEndian.AppendUint32(b, p.copy)
		if err := flush(false); err != nil {
			return cw.n, err
		}
	}
	err := flush(true)
	return cw.n, err
}

// copyPair is a node that is a copy and the node it copies.
type copyPair struct{ canonical, copy uint32 }

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Read reads a graph's binary form from r, size bytes long, as a graph
// over vecs, which must hold at least its nodes; the graph is ready to
// search at once, and grows by [Graph.Grow] and [Graph.Insert] as one
// built in this process. Bytes that are not a whole, consistent graph
// of at most vecs.Len() nodes are an error, never a graph that could
// walk out of its arrays; a graph that is consistent but not the one
// written is the caller's to detect (a checksum).
func Read(r io.Reader, size int64, vecs *Int8Vectors) (*Graph, error) {
	if size < int64(graphHead) || size > 1<<40 {
		return nil, fmt.Errorf("%w: %d bytes", errGraph, size)
	}
	// One 4-byte aligned buffer: layer 0 is searched where it was read.
	buf := make([]uint32, (size+3)/4)
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(buf))), 4*len(buf))[:size]
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return ReadIn(b, vecs)
}

// ReadIn is [Read] from b, the binary form in memory: layer 0, the
// bulk, stays in b rather than being copied, so b (a file mapped into
// memory, copy-on-write) must start 4-byte aligned, stay valid while the
// graph is in use and take writes: an insertion adds links to the lists
// of the nodes it links to, until the first [Graph.Grow] moves layer 0
// into memory of its own. On a big-endian machine layer 0 is copied.
func ReadIn(b []byte, vecs *Int8Vectors) (*Graph, error) {
	fail := func(format string, args ...any) (*Graph, error) {
		return nil, fmt.Errorf("%w: %s", errGraph, fmt.Sprintf(format, args...))
	}
	size := int64(len(b))
	if size < int64(graphHead) {
		return fail("%d bytes", size)
	}
	head := b[:graphHead]
	if string(head[:len(graphMagic)]) != graphMagic {
		return fail("magic")
	}
	h := head[len(graphMagic):]
	m, n := int(binary.LittleEndian.Uint32(h)), int(binary.LittleEndian.Uint32(h[4:]))
	seed := binary.LittleEndian.Uint64(h[8:])
	entry, top := int32(binary.LittleEndian.Uint32(h[16:])), int(binary.LittleEndian.Uint32(h[20:]))
	ncopies := int(binary.LittleEndian.Uint32(h[24:]))
	if m < 2 || m > 1024 || n > vecs.Len() || ncopies > n {
		return fail("M %d, %d nodes over %d vectors, %d copies", m, n, vecs.Len(), ncopies)
	}
	g := New(vecs, seed)
	g.M = m
	g.setM()
	l0 := int64(n) * int64(g.m0+1) * 4
	if int64(graphHead)+int64(pad4(n))+l0 > size {
		return fail("%d nodes in %d bytes", n, size)
	}
	at := int64(graphHead)
	// Of capacity n exactly: Grow reallocates the arrays together, and
	// the locks are sized to the levels' capacity.
	g.levels = make([]uint8, n)
	copy(g.levels, b[at:at+int64(n)])
	at += int64(pad4(n))
	upperLen, copiesSeen := 0, 0
	for _, l := range g.levels {
		switch {
		case l == copyLevel:
			copiesSeen++
		case l > 15:
			return fail("level %d", l)
		default:
			upperLen += int(l) * (m + 1)
		}
	}
	if copiesSeen != ncopies || at+l0+int64(upperLen)*4+int64(ncopies)*8 != size {
		return fail("%d bytes for %d nodes", size, n)
	}
	// Layer 0 where it is, as the array the graph searches.
	g.l0 = uint32sIn(b[at : at+l0])
	at += l0
	if err := checkLayer0(g.l0, g.m0, n); err != nil {
		return fail("%v", err)
	}
	// The upper layers, one array cut in each node's lists.
	upper := make([]uint32, upperLen)
	decodeUint32s(upper, b[at:at+int64(upperLen)*4])
	at += int64(upperLen) * 4
	g.upper = make([][]uint32, n)
	for i, lvl := range g.levels {
		if lvl == 0 || lvl == copyLevel {
			continue
		}
		k := int(lvl) * (m + 1)
		g.upper[i], upper = upper[:k:k], upper[k:]
		for l := 1; l <= int(lvl); l++ {
			list := g.upper[i][(l-1)*(m+1) : l*(m+1)]
			if int(list[0]) > m {
				return fail("node %d has %d links on layer %d", i, list[0], l)
			}
			for _, x := range list[1 : 1+list[0]] {
				// A search on layer l reads the lists of the nodes it
				// reaches there: each must have that layer.
				if int(x) >= n || g.levels[x] == copyLevel || int(g.levels[x]) < l {
					return fail("link of node %d on layer %d to node %d", i, l, x)
				}
			}
		}
	}
	pairs := make([]uint32, 2*ncopies)
	decodeUint32s(pairs, b[at:at+int64(ncopies)*8])
	for j := 0; j < len(pairs); j += 2 {
		c, d := pairs[j], pairs[j+1]
		if c >= d || int(d) >= n || g.levels[d] != copyLevel || g.levels[c] == copyLevel || (j > 0 && d <= pairs[j-1]) {
			return fail("copy %d of node %d", d, c)
		}
		g.copies[c] = append(g.copies[c], d)
	}
	// Every node inserted, the first that is not a copy is an entry.
	if (n == 0) != (entry == -1) || entry >= 0 && (int(entry) >= n || int(g.levels[entry]) != top) {
		return fail("entry %d at level %d of %d nodes", entry, top, n)
	}
	g.entry, g.maxLevel = entry, top
	g.locks = make([]sync.Mutex, n)
	g.linked.Store(int64(n))
	g.dedupStale = n > 0
	return g, nil
}

// checkLayer0 reports the first list of layer 0 (n lists of a count and
// m0 links) whose count exceeds m0 or that links outside the n nodes.
func checkLayer0(l0 []uint32, m0, n int) error {
	for i := 0; i < len(l0); i += m0 + 1 {
		c := int(l0[i])
		if c > m0 {
			return fmt.Errorf("node %d has %d links", i/(m0+1), c)
		}
		for _, x := range l0[i+1 : i+1+c] {
			if int(x) >= n {
				return fmt.Errorf("link to node %d of %d", x, n)
			}
		}
	}
	return nil
}

// uint32sIn returns b's little-endian uint32s: b itself, viewed as them,
// when this machine's order is theirs and b is 4-byte aligned (the
// caller's writes then go into b); a copy otherwise.
func uint32sIn(b []byte) []uint32 {
	n := len(b) / 4
	if n == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%4 == 0 {
		return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), n)
	}
	dst := make([]uint32, n)
	decodeUint32s(dst, b)
	return dst
}

// decodeUint32s fills dst from b's little-endian bytes.
func decodeUint32s(dst []uint32, b []byte) {
	for i := range dst {
		dst[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
}
