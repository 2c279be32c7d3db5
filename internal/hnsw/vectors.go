package hnsw

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"
)

// blockSize is the number of vectors per block of an [Int8Vectors]:
// vectors never move once appended, so readers need no lock.
const blockSize = 4096

// Int8Vectors holds unit vectors quantized to int8, one scale each
// (v[i] ≈ scale·q[i], scale = max|v[i]|/127): a quarter of float32's
// memory. Dot products are taken against a [Query] quantized to int16, so
// the error is the data's rounding alone (about 1e-4 on a cosine at
// dimension 384), small enough to rank by before an exact rescoring.
//
// Append must not be called concurrently with itself; Dot, Len and Vector
// may be called concurrently with Append and each other.
type Int8Vectors struct {
	dim    int
	mu     sync.Mutex // serialises Append's block allocation
	blocks atomic.Pointer[[]*vecBlock]
	n      atomic.Int64
	// check, when not nil, has groups of the first vectors checked
	// before they are first read (SetCheck).
	check *checker
}

// CheckGroup is the vectors one call of a check set by
// [Int8Vectors.SetCheck] covers.
const CheckGroup = 16

// checker calls fn once for each group of CheckGroup vectors among the
// first n, before any of them is read.
type checker struct {
	n    int
	fn   func(group int)
	done []atomic.Uint64 // a bit a group: checked
	mu   sync.Mutex      // serialises fn
}

// SetCheck has fn called once for each group of [CheckGroup] vectors
// among the first n (group g: vectors g·CheckGroup up to the next
// group's), before any of them is first read — by a search, an
// insertion, a write, whatever reads it. fn may replace them with
// [Int8Vectors.SetQuantized]; the calls are serialised. A store kept in
// a file's mapped bytes ([Int8VectorsIn]) checks them against their
// checksums this way as a search reaches them, rather than all of them
// up front. SetCheck must be called before the store is shared.
func (v *Int8Vectors) SetCheck(n int, fn func(group int)) {
	groups := (n + CheckGroup - 1) / CheckGroup
	v.check = &checker{n: n, fn: fn, done: make([]atomic.Uint64, (groups+63)/64)}
}

// ensure has vector i's group checked, if not yet done.
func (c *checker) ensure(i int) {
	g := i / CheckGroup
	w, bit := g>>6, uint64(1)<<(g&63)
	if c.done[w].Load()&bit != 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done[w].Load()&bit != 0 {
		return
	}
	c.fn(g)
	c.done[w].Or(bit)
}

// SetQuantized replaces vector i, which must have been stored, with q
// (of length Dim) and its scale, as [Int8Vectors.AppendQuantized] takes
// them. It is for a check (SetCheck) repairing vectors before they are
// read: a vector must not be replaced while it may be read.
func (v *Int8Vectors) SetQuantized(i int, q []int8, scale float32) {
	b := (*v.blocks.Load())[i/blockSize]
	o := (i % blockSize) * v.dim
	copy(b.data[o:o+v.dim], q)
	b.scales[i%blockSize] = scale
}

type vecBlock struct {
	data   []int8    // blockSize*dim
	scales []float32 // blockSize
}

// NewInt8Vectors returns an empty store for vectors of dimension dim.
func NewInt8Vectors(dim int) *Int8Vectors {
	v := &Int8Vectors{dim: dim}
	v.blocks.Store(new([]*vecBlock))
	return v
}

// Dim returns the dimension.
func (v *Int8Vectors) Dim() int { return v.dim }

// Len returns the number of vectors appended.
func (v *Int8Vectors) Len() int { return int(v.n.Load()) }

// Bytes returns the memory the vectors hold.
func (v *Int8Vectors) Bytes() int64 {
	return int64(len(*v.blocks.Load())) * blockSize * int64(v.dim+4)
}

// Append quantizes x (zeros when nil) and stores it as the next vector.
// Its length must be Dim.
func (v *Int8Vectors) Append(x []float32) {
	b, o, i := v.next()
	if x != nil {
		b.scales[i%blockSize] = quantize8(b.data[o:o+v.dim:o+v.dim], x)
	}
	v.n.Store(int64(i + 1))
}

// AppendQuantized stores q, a vector quantized by [Quantize], with its
// scale as the next vector; q's length must be Dim. It lets callers
// quantize in parallel and append in order.
func (v *Int8Vectors) AppendQuantized(q []int8, scale float32) {
	b, o, i := v.next()
	copy(b.data[o:o+v.dim], q)
	b.scales[i%blockSize] = scale
	v.n.Store(int64(i + 1))
}

// Quantize writes x quantized to int8 into dst (of x's length) and
// returns its scale, as [Int8Vectors.Append] stores it.
func Quantize(dst []int8, x []float32) float32 { return quantize8(dst[:len(x):len(x)], x) }

// next returns the block and offset of the next vector, and its index.
func (v *Int8Vectors) next() (*vecBlock, int, int) {
	i := int(v.n.Load())
	bs := *v.blocks.Load()
	if i/blockSize == len(bs) {
		v.mu.Lock()
		grown := make([]*vecBlock, len(bs)+1)
		copy(grown, bs)
		grown[len(bs)] = &vecBlock{data: make([]int8, blockSize*v.dim), scales: make([]float32, blockSize)}
		v.blocks.Store(&grown)
		v.mu.Unlock()
		bs = grown
	}
	return bs[i/blockSize], (i % blockSize) * v.dim, i
}

// quantize8 writes x scaled to int8 into dst and returns the scale.
func quantize8(dst []int8, x []float32) float32 {
	var m float32
	for _, f := range x {
		m = max(m, abs32(f))
	}
	if m == 0 {
		clear(dst)
		return 0
	}
	s := m / 127
	inv := 1 / s
	for i, f := range x {
		dst[i] = int8(math.Round(float64(f * inv)))
	}
	return s
}

func abs32(f float32) float32 {
	if f < 0 {
		return -f
	}
	return f
}

// Quantized returns vector i's int8 components, which the caller must
// not modify, and its scale: what [Int8Vectors.AppendQuantized] takes.
func (v *Int8Vectors) Quantized(i int) ([]int8, float32) { return v.raw(i) }

// raw returns vector i's int8 components and scale, checked first if a
// check is set and has not covered it yet.
func (v *Int8Vectors) raw(i int) ([]int8, float32) {
	if c := v.check; c != nil && i < c.n {
		c.ensure(i)
	}
	b := (*v.blocks.Load())[i/blockSize]
	o := (i % blockSize) * v.dim
	return b.data[o : o+v.dim : o+v.dim], b.scales[i%blockSize]
}

// Vector returns vector i dequantized into dst (grown as needed).
func (v *Int8Vectors) Vector(i int, dst []float32) []float32 {
	q, s := v.raw(i)
	dst = dst[:0]
	for _, c := range q {
		dst = append(dst, float32(c)*s)
	}
	return dst
}

// Query is a query vector quantized to int16, for [Int8Vectors.Dot].
// The zero value is unusable; build it with [Int8Vectors.Query].
type Query struct {
	q     []int16
	scale float32
}

// queryMax bounds a query component: 13 bits keep the int32 sums of
// int16·int8 products from overflowing up to dimension 16,384.
const queryMax = 8191

// Query quantizes x (of length Dim) for Dot.
func (v *Int8Vectors) Query(x []float32) *Query {
	q := &Query{q: make([]int16, len(x))}
	q.set(x)
	return q
}

func (q *Query) set(x []float32) {
	var m float32
	for _, f := range x {
		m = max(m, abs32(f))
	}
	if cap(q.q) < len(x) {
		q.q = make([]int16, len(x))
	}
	q.q = q.q[:len(x)]
	if m == 0 {
		clear(q.q)
		q.scale = 0
		return
	}
	q.scale = m / queryMax
	inv := 1 / q.scale
	for i, f := range x {
		q.q[i] = int16(math.Round(float64(f * inv)))
	}
}

// nodeQuery sets q to vector i, for comparisons between stored vectors.
func (v *Int8Vectors) nodeQuery(i int, q *Query) {
	c, s := v.raw(i)
	if cap(q.q) < len(c) {
		q.q = make([]int16, len(c))
	}
	q.q = q.q[:len(c)]
	// Exact: int8 components widen to int16 with the same scale.
	for j, x := range c {
		q.q[j] = int16(x)
	}
	q.scale = s
}

// dotNodes returns the approximate dot product of vectors i and j.
func (v *Int8Vectors) dotNodes(i, j int) float32 {
	a, sa := v.raw(i)
	b, sb := v.raw(j)
	return float32(dotInt8x8(a, b)) * sa * sb
}

// Dot returns the approximate dot product of q and vector i.
func (v *Int8Vectors) Dot(q *Query, i int) float32 {
	c, s := v.raw(i)
	return float32(dotInt8(q.q, c)) * q.scale * s
}

// ReadInt8Vectors returns a store of the n vectors of dimension dim that
// r holds as [Int8Vectors.WriteTo] writes them: every scale as a
// little-endian float32, then every vector's int8 components. They are
// read straight into the store's blocks, without a copy in between.
func ReadInt8Vectors(r io.Reader, dim, n int) (*Int8Vectors, error) {
	v := NewInt8Vectors(dim)
	bs := make([]*vecBlock, (n+blockSize-1)/blockSize)
	for b := range bs {
		bs[b] = &vecBlock{data: make([]int8, blockSize*dim), scales: make([]float32, blockSize)}
	}
	for b := range bs {
		k := min(blockSize, n-b*blockSize)
		sc := bs[b].scales[:k]
		if littleEndian {
			if _, err := io.ReadFull(r, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(sc))), 4*k)); err != nil {
				return nil, err
			}
			continue
		}
		p := make([]byte, 4*k)
		if _, err := io.ReadFull(r, p); err != nil {
			return nil, err
		}
		for i := range sc {
			sc[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
		}
	}
	for b := range bs {
		k := min(blockSize, n-b*blockSize)
		data := bs[b].data[:k*dim]
		if _, err := io.ReadFull(r, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(data))), len(data))); err != nil {
			return nil, err
		}
	}
	v.blocks.Store(&bs)
	v.n.Store(int64(n))
	return v, nil
}

// Int8VectorsLen returns the length of the form of n vectors of
// dimension dim, as [Int8Vectors.WriteTo] writes them.
func Int8VectorsLen(dim, n int) int64 { return int64(n) * int64(dim+4) }

// Int8VectorsIn returns a store of the n vectors of dimension dim that b
// holds in the form [Int8Vectors.WriteTo] writes, kept in b rather than
// copied: b (a file mapped into memory) must start 4-byte aligned, stay
// valid while the store and any graph over it are in use, and hold
// nothing a writer must not change (the store never writes into it: the
// last block, when not full, is copied, so appends go to memory of its
// own). On a big-endian machine the vectors are copied.
func Int8VectorsIn(b []byte, dim, n int) (*Int8Vectors, error) {
	if int64(len(b)) != Int8VectorsLen(dim, n) {
		return nil, fmt.Errorf("int8 vectors: %d bytes for %d vectors of dimension %d", len(b), n, dim)
	}
	if !littleEndian || (n > 0 && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%4 != 0) {
		return ReadInt8Vectors(bytes.NewReader(b), dim, n)
	}
	v := NewInt8Vectors(dim)
	var scales []float32
	var comps []int8
	if n > 0 {
		scales = unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), n)
	}
	if n > 0 && dim > 0 {
		comps = unsafe.Slice((*int8)(unsafe.Pointer(&b[4*n])), n*dim)
	}
	bs := make([]*vecBlock, (n+blockSize-1)/blockSize)
	for i := range bs {
		lo, hi := i*blockSize, min(n, (i+1)*blockSize)
		if hi-lo == blockSize {
			bs[i] = &vecBlock{data: comps[lo*dim : hi*dim : hi*dim], scales: scales[lo:hi:hi]}
			continue
		}
		blk := &vecBlock{data: make([]int8, blockSize*dim), scales: make([]float32, blockSize)}
		copy(blk.data, comps[lo*dim:hi*dim])
		copy(blk.scales, scales[lo:hi])
		bs[i] = blk
	}
	v.blocks.Store(&bs)
	v.n.Store(int64(n))
	return v, nil
}

// WriteTo writes the vectors at the given indexes to w, in that order,
// as ReadInt8Vectors reads them — their scales first, so that a form
// starting 4-byte aligned has them aligned ([Int8VectorsIn]), then their
// components — and returns the bytes written.
func (v *Int8Vectors) WriteTo(w io.Writer, indexes []int) (int64, error) {
	var n int64
	b := make([]byte, 0, 256<<10)
	flush := func() error {
		m, err := w.Write(b)
		n += int64(m)
		b = b[:0]
		return err
	}
	for _, i := range indexes {
		_, s := v.raw(i)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(s))
		if len(b) > cap(b)-4 {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	for _, i := range indexes {
		q, _ := v.raw(i)
		b = append(b, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(q))), len(q))...)
		if len(b) > cap(b)-v.dim {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	return n, flush()
}
