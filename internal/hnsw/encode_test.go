package hnsw

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// encoded returns g's binary form of its first n nodes, checking its
// length against EncodedLen.
func encoded(t *testing.T, g *Graph, n int) []byte {
	t.Helper()
	return encodedKeep(t, g, n, nil)
}

// encodedKeep returns g's binary form of its first n nodes, renumbered
// by keep.
func encodedKeep(t *testing.T, g *Graph, n int, keep []int32) []byte {
	t.Helper()
	snap, err := g.Snapshot(n, keep)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := snap.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if want := snap.Len(); w != want || int64(buf.Len()) != want {
		t.Fatalf("WriteTo wrote %d bytes (buffer %d), Len says %d", w, buf.Len(), want)
	}
	return buf.Bytes()
}

// TestRead_SameGraph checks a graph read back from its binary form is
// the graph written: the same arrays, entry and copies, so the same
// answers; and that it grows as a graph built in one go would, copies
// included.
func TestRead_SameGraph(t *testing.T) {
	n := 6_000
	data := clustered(n, 64, 21)
	r := rand.New(rand.NewPCG(5, 5))
	for i := range data {
		if r.IntN(100) < 10 {
			data[i] = data[r.IntN(3)]
		}
	}
	half := n / 2
	v, g := build(data[:half], 2, 9)
	b := encoded(t, g, half)
	got, err := Read(bytes.NewReader(b), int64(len(b)), v)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.levels, g.levels) || !slices.Equal(got.l0, g.l0) || got.entry != g.entry || got.maxLevel != g.maxLevel || got.Copies() != g.Copies() || got.Linked() != half {
		t.Fatalf("read graph differs: entry %d/%d, top %d/%d, copies %d/%d, linked %d", got.entry, g.entry, got.maxLevel, g.maxLevel, got.Copies(), g.Copies(), got.Linked())
	}
	for i := range g.upper {
		if !slices.Equal(got.upper[i], g.upper[i]) {
			t.Fatalf("node %d's upper layers differ", i)
		}
	}
	for j := range 50 {
		q := v.Query(randUnit(r, 64, data[r.IntN(half)], 0.5))
		a, _ := g.Search(q, 10, 64, nil, 0)
		c, _ := got.Search(q, 10, 64, nil, 0)
		if !slices.Equal(a, c) {
			t.Fatalf("query %d: read graph %v, built %v", j, c, a)
		}
	}
	// The rest of the vectors, inserted into the read graph: copies of
	// the read nodes are found (the table made on the first Grow).
	for _, x := range data[half:] {
		v.Append(x)
	}
	got.Grow(n)
	for i := half; i < n; i++ {
		got.Insert(i)
	}
	_, whole := build(data, 1, 9)
	if got.Copies() != whole.Copies() {
		t.Fatalf("grown graph has %d copies, one built whole %d", got.Copies(), whole.Copies())
	}
	var sum float64
	for range 200 {
		q := randUnit(r, 64, data[r.IntN(n)], 0.5)
		res, _ := got.Search(v.Query(q), 10, DefaultEfSearch, nil, 0)
		sum += recallAt(res, exact(data, q, 10, nil))
	}
	if rc := sum / 200; rc < 0.95 {
		t.Errorf("recall@10 of the grown graph = %.3f, want ≥ 0.95", rc)
	}
}

// TestRead_Prefix checks the form of a graph's first nodes holds no link
// to the later ones, and reads as a graph of those alone.
func TestRead_Prefix(t *testing.T) {
	data := clustered(3_000, 32, 22)
	v, g := build(data, 2, 3)
	const n = 1_000
	b := encoded(t, g, n)
	got, err := Read(bytes.NewReader(b), int64(len(b)), v)
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != n || int(got.entry) >= n {
		t.Fatalf("Len %d, entry %d; want %d nodes and an entry among them", got.Len(), got.entry, n)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		res, _ := got.Search(v.Query(data[r.IntN(n)]), 10, 64, nil, 0)
		for _, h := range res {
			if h.ID >= n {
				t.Fatalf("result %d beyond the %d nodes read", h.ID, n)
			}
		}
	}
}

// TestRead_Bad checks bytes that are not a whole graph are refused:
// every truncation, a wrong size, a link out of range, too few vectors.
func TestRead_Bad(t *testing.T) {
	data := clustered(500, 16, 23)
	v, g := build(data, 1, 4)
	b := encoded(t, g, len(data))
	for _, cut := range []int{0, 10, graphHead, graphHead + 100, len(b) / 2, len(b) - 4, len(b) - 1} {
		if _, err := Read(bytes.NewReader(b[:cut]), int64(cut), v); err == nil {
			t.Errorf("cut at %d of %d bytes: read", cut, len(b))
		}
		if _, err := Read(bytes.NewReader(b[:cut]), int64(len(b)), v); err == nil {
			t.Errorf("cut at %d of %d bytes, size claimed whole: read", cut, len(b))
		}
	}
	// A layer-0 link of node 0 pointing past the nodes.
	bad := slices.Clone(b)
	at := graphHead + pad4(len(data))
	bad[at] = 1
	bad[at+4], bad[at+5], bad[at+6], bad[at+7] = 0xff, 0xff, 0, 0
	if _, err := Read(bytes.NewReader(bad), int64(len(bad)), v); err == nil {
		t.Error("a link out of range: read")
	}
	short := NewInt8Vectors(16)
	for _, x := range data[:100] {
		short.Append(x)
	}
	if _, err := Read(bytes.NewReader(b), int64(len(b)), short); err == nil {
		t.Error("a graph of more nodes than vectors: read")
	}
}

// TestReadInt8Vectors checks vectors written at chosen indexes read back
// as the same components and scales, across blocks, and that a short
// read is an error.
func TestReadInt8Vectors(t *testing.T) {
	data := clustered(2*blockSize+17, 8, 24)
	v := NewInt8Vectors(8)
	for _, x := range data {
		v.Append(x)
	}
	var idx []int
	for i := range data {
		if i%3 != 1 {
			idx = append(idx, i)
		}
	}
	var buf bytes.Buffer
	n, err := v.WriteTo(&buf, idx)
	if err != nil || n != int64(buf.Len()) || n != int64(len(idx))*(8+4) {
		t.Fatalf("WriteTo: %d bytes (buffer %d), %v", n, buf.Len(), err)
	}
	got, err := ReadInt8Vectors(bytes.NewReader(buf.Bytes()), 8, len(idx))
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != len(idx) {
		t.Fatalf("Len %d, want %d", got.Len(), len(idx))
	}
	for j, i := range idx {
		q, s := got.Quantized(j)
		wq, ws := v.Quantized(i)
		if !slices.Equal(q, wq) || s != ws {
			t.Fatalf("vector %d (was %d) differs", j, i)
		}
	}
	if _, err := ReadInt8Vectors(bytes.NewReader(buf.Bytes()[:buf.Len()-1]), 8, len(idx)); err == nil {
		t.Error("a short read: no error")
	}
}

// TestRead_Renumbered checks the form of a graph without some of its
// nodes (every fifth, and canonical nodes whose copies stay) reads as a
// graph of the nodes kept under their new ids, copies included, that
// finds what an exact search over them finds.
func TestRead_Renumbered(t *testing.T) {
	n := 6_000
	data := clustered(n, 48, 25)
	r := rand.New(rand.NewPCG(8, 8))
	for i := range data {
		if i > 10 && r.IntN(100) < 10 {
			data[i] = data[r.IntN(3)] // copies of nodes 0, 1 and 2
		}
	}
	_, g := build(data, 2, 6)
	keep := make([]int32, n)
	var kept [][]float32
	for i := range keep {
		keep[i] = -1
		if i%5 != 4 && i != 0 && i != 1 { // nodes 0 and 1 go, their copies stay
			keep[i] = int32(len(kept))
			kept = append(kept, data[i])
		}
	}
	b := encodedKeep(t, g, n, keep)
	v := NewInt8Vectors(48)
	for _, x := range kept {
		v.Append(x)
	}
	got, err := Read(bytes.NewReader(b), int64(len(b)), v)
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != len(kept) || got.Copies() == 0 {
		t.Fatalf("read %d nodes with %d copies, want %d and the copies kept", got.Len(), got.Copies(), len(kept))
	}
	var sum float64
	for range 200 {
		q := randUnit(r, 48, data[r.IntN(n)], 0.5)
		if r.IntN(4) == 0 {
			q = randUnit(r, 48, data[r.IntN(2)], 0.5) // near a copied node left out
		}
		res, _ := got.Search(v.Query(q), 10, DefaultEfSearch, nil, 0)
		sum += recallAt(res, exact(kept, q, 10, nil))
	}
	if rc := sum / 200; rc < 0.9 {
		t.Errorf("recall@10 of the renumbered graph = %.3f, want ≥ 0.9", rc)
	} else {
		t.Logf("recall@10 = %.3f over %d of %d nodes", rc, len(kept), n)
	}
	if _, err := g.Snapshot(n, make([]int32, n)); err == nil {
		t.Error("keep numbering every node 0: no error")
	}
}

// TestInt8VectorsIn checks vectors kept in their binary form read as
// the vectors written, and that appending to them never writes into
// that form: its last block, not full, is the store's own copy.
func TestInt8VectorsIn(t *testing.T) {
	data := clustered(2*blockSize+33, 8, 26)
	v := NewInt8Vectors(8)
	for _, x := range data {
		v.Append(x)
	}
	idx := make([]int, len(data))
	for i := range idx {
		idx[i] = i
	}
	var buf bytes.Buffer
	if _, err := v.WriteTo(&buf, idx); err != nil {
		t.Fatal(err)
	}
	// 4-byte aligned, as a mapped file's section is.
	words := make([]uint32, (buf.Len()+3)/4)
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), 4*len(words))[:buf.Len()]
	copy(b, buf.Bytes())
	if _, err := Int8VectorsIn(b[:len(b)-1], 8, len(data)); err == nil {
		t.Fatal("a form one byte short: no error")
	}
	got, err := Int8VectorsIn(b, 8, len(data))
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		q, s := got.Quantized(i)
		wq, ws := v.Quantized(i)
		if !slices.Equal(q, wq) || s != ws {
			t.Fatalf("vector %d differs", i)
		}
	}
	before := slices.Clone(b)
	for _, x := range clustered(blockSize, 8, 27) {
		got.Append(x)
	}
	if !slices.Equal(b, before) {
		t.Fatal("appending wrote into the form")
	}
	if got.Len() != len(data)+blockSize {
		t.Fatalf("Len %d", got.Len())
	}
}

// TestReadIn_InPlace checks a graph read in place searches as the graph
// written, grows out of its form (layer 0 copied on the first Grow, so
// insertions never write into it) and answers as one read by Read.
func TestReadIn_InPlace(t *testing.T) {
	n := 3_000
	data := clustered(n, 32, 28)
	half := n / 2
	v, g := build(data[:half], 2, 10)
	enc := encoded(t, g, half)
	words := make([]uint32, (len(enc)+3)/4)
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), 4*len(words))[:len(enc)]
	copy(b, enc)
	got, err := ReadIn(b, v)
	if err != nil {
		t.Fatal(err)
	}
	if &got.l0[0] != (*uint32)(unsafe.Pointer(&b[graphHead+pad4(half)])) {
		t.Error("layer 0 was copied")
	}
	r := rand.New(rand.NewPCG(6, 6))
	for j := range 30 {
		q := v.Query(randUnit(r, 32, data[r.IntN(half)], 0.5))
		a, _ := g.Search(q, 10, 64, nil, 0)
		c, _ := got.Search(q, 10, 64, nil, 0)
		if !slices.Equal(a, c) {
			t.Fatalf("query %d: read in place %v, built %v", j, c, a)
		}
	}
	for _, x := range data[half:] {
		v.Append(x)
	}
	// One node first: within the capacity a copy of the levels might
	// have had, so Grow must find every array sized alike.
	got.Grow(half + 1)
	got.Insert(half)
	got.Grow(n)
	for i := half + 1; i < n; i++ {
		got.Insert(i)
	}
	if !slices.Equal(b, enc) {
		t.Fatal("growing the graph wrote into its form")
	}
	bad := slices.Clone(b)
	binary.LittleEndian.PutUint32(bad[graphHead+pad4(half)+4:], uint32(half)) // a link out of range
	if _, err := ReadIn(bad, v); err == nil {
		t.Error("a link out of range: no error")
	}
}

// TestInt8Vectors_Check checks a check set on a store runs once for each
// group of vectors before any of them is read, for those read alone, and
// that what it replaces is what is read.
func TestInt8Vectors_Check(t *testing.T) {
	data := clustered(10*CheckGroup+3, 8, 29)
	v := NewInt8Vectors(8)
	for _, x := range data {
		v.Append(x)
	}
	var calls []int
	v.SetCheck(len(data)-CheckGroup, func(g int) {
		calls = append(calls, g)
		if g == 2 {
			q := make([]int8, 8)
			q[0] = 100
			for i := g * CheckGroup; i < (g+1)*CheckGroup; i++ {
				v.SetQuantized(i, q, 0.5)
			}
		}
	})
	for _, i := range []int{5, 2*CheckGroup + 1, 3, 2 * CheckGroup, 10*CheckGroup + 1} {
		v.Quantized(i)
	}
	if !slices.Equal(calls, []int{0, 2}) {
		t.Fatalf("checked groups %v, want [0 2] (the last group is past the checked vectors)", calls)
	}
	q, s := v.Quantized(2*CheckGroup + 7)
	if q[0] != 100 || s != 0.5 {
		t.Fatalf("a replaced vector reads %v × %v", q, s)
	}
	var buf bytes.Buffer
	if _, err := v.WriteTo(&buf, []int{0, 50, 80}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(calls, []int{0, 2, 3, 5}) {
		t.Fatalf("checked groups %v after a write, want [0 2 3 5]", calls)
	}
}
