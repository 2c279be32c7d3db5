package mirror

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"slices"
	"sync/atomic"
)

// spillChunk is the vectors written to the spill file at once.
const spillChunk = 256

// vecBlock is the vectors per block of exactVectors.mem.
const vecBlock = 4096

// exactVectors keeps the float32 vectors of an index for rescoring: in a
// spill file (an unlinked temporary file in Settings.SpillDir, so the
// process's memory holds only the int8 copies and the page cache the
// rest) or, with Settings.FloatVectors or when no file can be made, in
// memory. It is appended to under the index's write lock and read under
// its read lock.
//
// An index loaded from its bank's index file starts with that file's
// vectors (base: the file stays open, and a later file replaces it by
// rename, never in place); vectors appended after them go to the spill
// file or memory as above.
type exactVectors struct {
	dim int
	// base holds the first baseN vectors, little-endian, in runs of
	// consecutive slots (the whole file's, then each appended block's),
	// baseSums their CRC-32Cs. A vector that fails its checksum is read
	// with refetch instead (from the database), and bad is set.
	base     *os.File
	baseRuns []baseRun
	baseN    int
	baseSums []uint32
	refetch  func(i int) ([]float32, error)
	bad      atomic.Bool
	f        *os.File
	name     string // to remove at close where an open file cannot be unlinked
	inFile   int    // vectors written to f
	// pending holds the vectors from inFile on while they go to the file,
	// little-endian as the file (and Row.Embedding) stores them.
	pending []byte
	// mem holds the vectors from inFile on when there is no file, or a
	// write failed, in blocks of vecBlock.
	mem    [][]float32
	failed bool // a write failed: keep the rest in memory
}

// baseRun is a run of base vectors: from slot first on, at off.
type baseRun struct {
	first int
	off   int64
}

// setBase makes f's n vectors at off, whose CRC-32Cs sums holds, the
// first vectors; the store must be empty.
func (e *exactVectors) setBase(f *os.File, off int64, n int, sums []uint32) {
	e.base, e.baseRuns, e.baseN, e.baseSums = f, []baseRun{{0, off}}, n, sums
}

// addBase adds the base's file's vectors at off, whose CRC-32Cs sums
// holds, after the base's (an appended block's): no vector may have
// been appended after the base yet.
func (e *exactVectors) addBase(off int64, sums []uint32) {
	e.baseRuns = append(e.baseRuns, baseRun{e.baseN, off})
	e.baseN += len(sums)
	e.baseSums = append(e.baseSums, sums...)
}

// baseAt returns where base vector i lies in the base's file and the
// end of its run.
func (e *exactVectors) baseAt(i int) (int64, int) {
	r := len(e.baseRuns) - 1
	for e.baseRuns[r].first > i {
		r--
	}
	end := e.baseN
	if r+1 < len(e.baseRuns) {
		end = e.baseRuns[r+1].first
	}
	return e.baseRuns[r].off + int64(i-e.baseRuns[r].first)*int64(4*e.dim), end
}

// newExactVectors returns an empty store of vectors of dim dimensions,
// in memory or in a spill file made in dir.
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

// memLen returns the vectors held in memory.
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

// appendEncoded adds the vector b, little-endian float32s (4·dim bytes),
// as the next vector: a loaded row's blob goes to the file as it is.
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

// readRaw appends to dst vectors [i, i+n) as little-endian float32s,
// reading a run of the spill file or the base with one call.
func (e *exactVectors) readRaw(i, n int, dst []byte) ([]byte, error) {
	size := 4 * e.dim
	for n > 0 {
		var f *os.File
		var off int64
		run := 1
		switch {
		case i < e.baseN:
			var end int
			off, end = e.baseAt(i)
			f, run = e.base, min(n, end-i)
		case i-e.baseN < e.inFile:
			f, off, run = e.f, int64(i-e.baseN)*int64(size), min(n, e.baseN+e.inFile-i)
		}
		if f != nil {
			at := len(dst)
			dst = slices.Grow(dst, run*size)[:at+run*size]
			if _, err := f.ReadAt(dst[at:], off); err != nil {
				return dst[:at], err
			}
			if f == e.base {
				// Checked as read does; a failing vector is refetched.
				for j := range run {
					if crc32.Checksum(dst[at+j*size:at+(j+1)*size], castagnoli()) != e.baseSums[i+j] {
						v, _, err := e.read(i+j, nil, nil)
						if err != nil {
							return dst[:at], err
						}
						b := dst[at+j*size : at+j*size]
						for _, x := range v {
							b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
						}
					}
				}
			}
		} else {
			v, _, err := e.read(i, nil, nil)
			if err != nil {
				return dst, err
			}
			for _, x := range v {
				dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(x))
			}
		}
		i, n = i+run, n-run
	}
	return dst, nil
}

// read returns vector i in dst, using raw as scratch space.
func (e *exactVectors) read(i int, dst []float32, raw []byte) ([]float32, []byte, error) {
	dst = dst[:0]
	if cap(raw) < 4*e.dim {
		raw = make([]byte, 4*e.dim)
	}
	raw = raw[:4*e.dim]
	if i < e.baseN {
		off, _ := e.baseAt(i)
		_, err := e.base.ReadAt(raw, off)
		if err == nil && crc32.Checksum(raw, castagnoli()) == e.baseSums[i] {
			return decodeVector(dst, raw), raw, nil
		}
		// The index file changed under us or its disk failed: never
		// trust it, take the vector from the database.
		e.bad.Store(true)
		if e.refetch == nil {
			return dst, raw, fmt.Errorf("vector %d of the index file: bad checksum", i)
		}
		v, err := e.refetch(i)
		if err != nil {
			return dst, raw, err
		}
		if v == nil {
			v = make([]float32, e.dim) // a slot without a vector holds zeros
		}
		if len(v) != e.dim {
			return dst, raw, fmt.Errorf("vector %d from the database has %d dimensions, want %d", i, len(v), e.dim)
		}
		raw = raw[:0]
		for _, f := range v {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(f))
		}
		return append(dst, v...), raw, nil
	}
	i -= e.baseN
	if i >= e.inFile {
		j := i - e.inFile
		if e.spilling() {
			return decodeVector(dst, e.pending[j*4*e.dim:(j+1)*4*e.dim]), raw, nil
		}
		o := (j % vecBlock) * e.dim
		return append(dst, e.mem[j/vecBlock][o:o+e.dim]...), raw, nil
	}
	if _, err := e.f.ReadAt(raw, int64(i)*int64(e.dim)*4); err != nil {
		return dst, raw, err
	}
	return decodeVector(dst, raw), raw, nil
}

// close closes and removes the spill file, and closes the base.
func (e *exactVectors) close() {
	if e.base != nil {
		e.base.Close()
	}
	if e.f != nil {
		e.f.Close()
		if e.name != "" {
			os.Remove(e.name)
		}
	}
}
