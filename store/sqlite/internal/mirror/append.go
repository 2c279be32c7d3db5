package mirror

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
	"unsafe"

	"github.com/mnemo-ai/mnemo/internal/hnsw"
	"github.com/mnemo-ai/mnemo/memory"
)

// An index file grows by blocks appended after its end mark: when the
// index is ahead of its file only by rows added, statuses changed and
// rows deleted since, a write appends what they change rather than
// rewrite the whole file (2.37 GB at 1M facts). A block is a header
// (blockMagic, or blockMagic1 for a block of the first form, its
// sequence number, the CRC-32C of the header before it — the file's, or
// the previous block's — so a block belongs to one file and one place in
// it, its own offset, the version, last rows and last fact id it brings
// the file to, the slots the file held before it, and a table of its
// sections with their offsets, lengths and CRC-32Cs; its own CRC-32C
// last), then its sections, each at a multiple of sectionAlign, then
// fileEnd:
//
//   - the record (checked whole on load): each added fact's entry and
//     words counted (term and frequency, as a load from the rows counts
//     them), its document id when the block carries the document mirror,
//     then every added fact's int8 vector with its scale, the statuses
//     changed since (row, status, expiry), the rows deleted since of
//     the facts the file (with the blocks before) holds, in order (not
//     in a block of the first form, which has none), and each added
//     vector's float32 CRC-32C;
//   - the float32 vectors of the added facts, one a slot, checked as a
//     search reads them, as the whole file's;
//   - a graph (hnsw's form, numbered as the file's slots) replacing the
//     file's, or nothing.
//
// A load reads the whole file as before, then walks the blocks after it
// and takes each that is whole (its header, layout, end mark and
// checksums hold, its chain to the one before, a version no newer than
// the database's); the first that is not ends the walk, and what follows
// is ignored: a block a crash tore, or bytes someone appended, never
// reach the index, and the rows it lacks are read from the database as
// for any file behind it. A block's deletions are applied first, as a
// stale index applies them (bankIndex.remove: the slot dead, out of the
// BM25 statistics, its vector never returned), then its statuses, then
// its facts, added to the loaded index as a load adds rows
// (bankIndex.add, the document mirror's addCounted), so the answers are
// those of a load from the rows. The document mirror takes the deletions
// when a load from the rows would make it what removing them makes it
// (docIndex.removeFacts: whole documents, as a document replaced
// deletes them); otherwise it stays as the last block it took left it,
// and loads from the rows on its first read, as a mirror behind the
// database does. A deletion of a row the loaded index does not hold is
// a block that does not apply, as a status of such a row: the file is
// not used.
//
// A block is written in place, after the file's end, only by a process
// that knows that end (it loaded or wrote the file, and the file's size
// is still that end: nobody appended, tore or replaced it since), under
// an exclusive lock of the file; bytes a process has checked are never
// written again. Anything else — compaction (it renumbers the slots, so
// every deletion it drops goes with it), a Forgot (no file may keep the
// forgotten facts' bytes), more than 65,536 deletions or statuses logged
// since the last write, a vector repaired, too many blocks or bytes
// appended — makes the next write a whole file, renamed into place as
// before.

// Names and numbers of appended blocks.
const (
	// blockMagic opens a block whose record ends with the rows deleted
	// since; blockMagic1 a block of the first form, without them, which
	// a load still takes. A build that knows only blockMagic1 ends its
	// walk at a block of blockMagic (and reads the rows it adds, and
	// finds the deletions, from the database), so it never misreads one.
	blockMagic  = "MNEMOAP2"
	blockMagic1 = "MNEMOAPP"
	// blockFixed is a block header before its last fact id and CRC.
	blockFixed = len(blockMagic) + 4 + 4 + 4 + 4 + 8 + 8*3 + 4 + 4 + blockSections*sectionEntry + 4
	// The sections of a block.
	blkRecord     = 0
	blkFloat      = 1
	blkGraph      = 2
	blockSections = 3
	// maxBlocks bounds the blocks a file takes before it is written
	// whole again: each costs its load a little.
	maxBlocks = 64
)

// appendShare is the share of a file's whole length its appended blocks
// may reach before the next write is whole again (a load adds their facts
// one at a time, as from the rows, and a block's graph leaves the one
// before it dead weight). A variable for tests.
var appendShare = 0.5

// blockHeader is what an appended block says of itself.
type blockHeader struct {
	seq, flags, prev, dim uint32
	start                 uint64
	version, maxPK        int64
	lastPK                int64
	slots, added          uint32
	sec                   [blockSections]section
	lastID                string
	// dels: the block's record lists the rows deleted since (not a
	// block of the first form, blockMagic1).
	dels bool
	// crc is the header's own CRC-32C; end the offset after the block's
	// end mark.
	crc uint32
	end uint64
}

// appendBlockHeader appends h's encoding to b, its CRC-32C last, and
// returns it with that CRC.
func appendBlockHeader(b []byte, h *blockHeader) ([]byte, uint32) {
	at := len(b)
	if h.dels {
		b = append(b, blockMagic...)
	} else {
		b = append(b, blockMagic1...)
	}
	for _, v := range []uint32{h.seq, h.flags, h.prev, h.dim} {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	b = binary.LittleEndian.AppendUint64(b, h.start)
	for _, v := range []int64{h.version, h.maxPK, h.lastPK} {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	b = binary.LittleEndian.AppendUint32(b, h.slots)
	b = binary.LittleEndian.AppendUint32(b, h.added)
	for _, s := range h.sec {
		b = binary.LittleEndian.AppendUint64(b, s.off)
		b = binary.LittleEndian.AppendUint64(b, s.len)
		b = binary.LittleEndian.AppendUint32(b, s.crc)
		b = binary.LittleEndian.AppendUint32(b, 0)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(h.lastID)))
	b = append(b, h.lastID...)
	crc := crc32.Checksum(b[at:], castagnoli())
	return binary.LittleEndian.AppendUint32(b, crc), crc
}

// layoutBlock places h's sections after its header, which starts at
// h.start, each at the next multiple of sectionAlign, and sets h.end.
func (h *blockHeader) layoutBlock() {
	at := h.start + uint64(blockFixed+len(h.lastID)+4)
	for i := range h.sec {
		at = alignUp(at)
		h.sec[i].off = at
		at += h.sec[i].len
	}
	h.end = at + uint64(trailerLen)
}

// readBlock reads the block header at start in mem (a file mapped
// whole) that follows the header of CRC prev as block seq, and checks
// its layout, end mark and the checksums of its record and graph; an
// error means the block is not whole, and neither is anything after it.
func readBlock(mem []byte, start uint64, seq, prev uint32) (blockHeader, error) {
	var h blockHeader
	if start > uint64(len(mem)) || uint64(len(mem))-start < uint64(blockFixed+4) {
		return h, errors.New("no block header")
	}
	d := decoder{b: mem[start:]}
	switch string(d.bytes(len(blockMagic))) {
	case blockMagic:
		h.dels = true
	case blockMagic1:
	default:
		return h, errors.New("no block magic")
	}
	h.seq, h.flags, h.prev, h.dim = d.u32(), d.u32(), d.u32(), d.u32()
	h.start = d.u64()
	h.version, h.maxPK, h.lastPK = d.i64(), d.i64(), d.i64()
	h.slots, h.added = d.u32(), d.u32()
	for i := range h.sec {
		h.sec[i] = section{off: d.u64(), len: d.u64(), crc: d.u32()}
		d.u32()
	}
	n := int(d.u32())
	if n > 1<<16 {
		return h, errors.New("block's last id too long")
	}
	h.lastID = string(d.bytes(n))
	body := d.off
	crc := d.u32()
	if d.err != nil {
		return h, d.err
	}
	if crc32.Checksum(mem[start:start+uint64(body)], castagnoli()) != crc {
		return h, errors.New("block header's checksum")
	}
	h.crc = crc
	if h.seq != seq || h.prev != prev || h.start != start {
		return h, fmt.Errorf("block %d of another place (seq %d, after %08x, at %d)", seq, h.seq, h.prev, h.start)
	}
	want := h
	want.layoutBlock()
	for i := range h.sec {
		if h.sec[i].off != want.sec[i].off || h.sec[i].len > uint64(len(mem)) {
			return h, fmt.Errorf("block section %d at %d, want %d", i, h.sec[i].off, want.sec[i].off)
		}
	}
	h.end = want.end
	if h.end > uint64(len(mem)) || string(mem[h.end-uint64(trailerLen):h.end]) != fileEnd {
		return h, errors.New("block torn: no end mark")
	}
	if h.sec[blkFloat].crc != 0 {
		return h, errors.New("a checksum of a whole float section")
	}
	for _, i := range []int{blkRecord, blkGraph} {
		s := h.sec[i]
		if crc32.Checksum(mem[s.off:s.off+s.len], castagnoli()) != s.crc {
			return h, fmt.Errorf("block section %d's checksum", i)
		}
	}
	return h, nil
}

// blockEntryMin is the least bytes a fact's entry takes in a block's
// record: its row, four string lengths, three times, its length, flags,
// and the counts of its tags and words.
const blockEntryMin = 8 + 4*4 + 8*3 + 4 + 1 + 4 + 4

// block is an appended block read and decoded, ready to apply.
type block struct {
	h       blockHeader
	entries []newEntry
	docs    []string // each entry's document id (flagDocs)
	status  []statusRow
	dels    []int64  // the rows deleted, in order
	sums    []uint32 // each entry's float32 CRC-32C
	floats  []byte   // the float32 vectors (mapped)
	graph   []byte   // the graph section (mapped; nil: none)
}

// statusRow is a status changed since the file, as a block records it.
type statusRow struct {
	pk        int64
	status    memory.Status
	expiredAt int64
}

// decodeBlock decodes the record of h from mem, the dimension of its
// vectors that of the blocks before it (dim; 0: none yet).
func decodeBlock(mem []byte, h blockHeader, dim int) (*block, error) {
	s := h.sec[blkRecord]
	d := &decoder{b: mem[s.off : s.off+s.len]}
	b := &block{h: h}
	bd := int(h.dim)
	if dim > 0 && bd != dim || bd > 1<<16 {
		return nil, fmt.Errorf("block of dimension %d after blocks of %d", bd, dim)
	}
	n := int(h.added)
	if n > len(d.b)/blockEntryMin {
		return nil, fmt.Errorf("block of %d facts in %d bytes", n, len(d.b))
	}
	str := func() string { return string(d.bytes(int(d.u32()))) }
	b.entries = make([]newEntry, n)
	for i := range b.entries {
		e := &b.entries[i]
		e.pk, e.id = d.i64(), str()
		e.kind, e.category = internKind(memory.FactKind(str())), internCategory(memory.Category(str()))
		e.status = internStatus(memory.Status(str()))
		e.eventTime, e.createdAt, e.expiredAt = d.i64(), d.i64(), d.i64()
		e.length = int32(d.u32())
		fl := d.u8()
		e.hasVec, e.sensitive = fl&1 != 0, fl&2 != 0
		if e.hasVec && bd == 0 {
			return nil, errors.New("a vector in a block without vectors")
		}
		tn := d.count(4)
		for range tn {
			e.tags = append(e.tags, str())
		}
		wn := d.count(6)
		e.words = make([]termCount, wn)
		for j := range e.words {
			e.words[j] = termCount{term: str(), tf: d.u16()}
		}
		if h.flags&flagDocs != 0 {
			b.docs = append(b.docs, str())
		}
		if d.err != nil {
			return nil, d.err
		}
		if i > 0 && e.pk <= b.entries[i-1].pk {
			return nil, fmt.Errorf("block rows out of order at %d", i)
		}
	}
	if bd > 0 {
		for i := range b.entries {
			e := &b.entries[i]
			sc := math.Float32frombits(d.u32())
			raw := d.bytes(bd)
			if e.hasVec && d.err == nil {
				e.q, e.scale = slices.Clone(unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(raw))), bd)), sc
			}
		}
	}
	ns := d.count(16)
	b.status = make([]statusRow, ns)
	for i := range b.status {
		b.status[i] = statusRow{pk: d.i64(), status: internStatus(memory.Status(str())), expiredAt: d.i64()}
	}
	if h.dels {
		b.dels = make([]int64, d.count(8))
		for i := range b.dels {
			b.dels[i] = d.i64()
			if d.err == nil && i > 0 && b.dels[i] <= b.dels[i-1] {
				return nil, fmt.Errorf("block deletions out of order at %d", i)
			}
		}
	}
	if bd > 0 {
		b.sums = make([]uint32, n)
		for i := range b.sums {
			b.sums[i] = d.u32()
		}
		f := h.sec[blkFloat]
		if f.len != uint64(n)*uint64(bd)*4 {
			return nil, fmt.Errorf("block float section of %d bytes for %d vectors", f.len, n)
		}
		b.floats = mem[f.off : f.off+f.len : f.off+f.len]
	} else if h.sec[blkFloat].len != 0 {
		return nil, errors.New("block float section without vectors")
	}
	if d.err != nil {
		return nil, d.err
	}
	if d.off != len(d.b) {
		return nil, fmt.Errorf("%d bytes left after the block record", len(d.b)-d.off)
	}
	if g := h.sec[blkGraph]; g.len > 0 {
		b.graph = mem[g.off : g.off+g.len : g.off+g.len]
	}
	return b, nil
}

// readBlocks walks the blocks appended after the whole file, which ends
// at end and whose header's CRC-32C is crc, in mem; it returns those that
// are whole, decoded, up to the first that is not or that is newer than
// version, and where the last taken ends (end when none). Their
// dimension is checked against the file's as they are applied.
func readBlocks(mem []byte, end uint64, crc uint32, version int64) ([]*block, uint64) {
	var out []*block
	dim := 0
	for seq := uint32(1); alignUp(end) < uint64(len(mem)); seq++ {
		h, err := readBlock(mem, alignUp(end), seq, crc)
		if err != nil || h.version > version {
			break
		}
		b, err := decodeBlock(mem, h, dim)
		if err != nil {
			break
		}
		if dim == 0 {
			dim = int(h.dim)
		}
		out = append(out, b)
		end, crc = h.end, h.crc
	}
	return out, end
}

// applyBlocks applies the blocks' deletions, statuses and facts to l's
// index (and document mirror, while every block carries it and it can
// take their deletions), as a stale index applies them and a load adds
// rows: the float32 vectors stay in the file (f) where the index reads
// its base, unless x keeps them in memory, or the base had none. The
// slots a block's deletion leaves dead are the file's (l.file.held). It
// returns the last graph a block holds (nil: none).
func (l *loaded) applyBlocks(blocks []*block, f *os.File) ([]byte, error) {
	x := l.x
	var graph []byte
	docs := l.d != nil
	for _, b := range blocks {
		if int(b.h.slots) != len(x.meta) {
			return nil, fmt.Errorf("block %d after %d slots, the file holds %d", b.h.seq, b.h.slots, len(x.meta))
		}
		docs = docs && b.h.flags&flagDocs != 0
		if len(b.dels) > 0 {
			ids := make([]string, len(b.dels))
			for j, pk := range b.dels {
				i, ok := x.slotOfPK(pk)
				if !ok {
					return nil, fmt.Errorf("block %d: deletion of row %d the file lacks", b.h.seq, pk)
				}
				ids[j] = x.meta[i].id
				x.remove(pk)
				l.file.held = append(l.file.held, int32(i))
			}
			// The mirror that cannot take them exactly stays as it is,
			// behind: it loads from the rows when first read.
			docs = docs && l.d.removeFacts(ids)
		}
		for _, s := range b.status {
			i, ok := x.slotOfPK(s.pk)
			if !ok {
				return nil, fmt.Errorf("block %d: status of row %d the file lacks", b.h.seq, s.pk)
			}
			x.meta[i].status, x.meta[i].expiredAt = s.status, s.expiredAt
			x.setState(i)
		}
		bd := int(b.h.dim)
		if x.dim > 0 && bd != x.dim {
			return nil, fmt.Errorf("block %d of dimension %d in an index of %d", b.h.seq, bd, x.dim)
		}
		based := bd > 0 && x.exact != nil && x.exact.base == f && f != nil
		if based {
			x.exact.addBase(int64(b.h.sec[blkFloat].off), b.sums)
		}
		for i := range b.entries {
			e := &b.entries[i]
			if bd > 0 && !based && e.hasVec {
				v := b.floats[i*4*bd : (i+1)*4*bd]
				if crc32.Checksum(v, castagnoli()) != b.sums[i] {
					return nil, fmt.Errorf("block %d: vector %d's checksum", b.h.seq, i)
				}
				e.blob = v
			}
			e.based = based
			if e.pk <= x.maxPK {
				return nil, fmt.Errorf("block %d: row %d not after the file's %d", b.h.seq, e.pk, x.maxPK)
			}
			x.add(e)
			if docs {
				var words []termCount
				if b.docs[i] != "" {
					words = e.words
				}
				l.d.addCounted(e.pk, e.id, b.docs[i], words, e.length)
			}
		}
		x.maxPK = b.h.maxPK
		if n := len(x.meta); n > 0 && x.meta[n-1].pk > x.maxPK {
			return nil, fmt.Errorf("block %d: row %d after its last %d", b.h.seq, x.meta[n-1].pk, x.maxPK)
		}
		x.version = b.h.version
		if docs {
			l.d.version = b.h.version
		}
		l.h.version, l.h.maxPK, l.h.lastPK, l.h.lastID = b.h.version, b.h.maxPK, b.h.lastPK, b.h.lastID
		if b.graph != nil {
			graph = b.graph
		}
	}
	return graph, nil
}

// fileState is what an index knows of its bank's index file on disk, to
// append to it: set when the index loads or writes the whole file and
// after each block it appends.
type fileState struct {
	// info identifies the file (os.SameFile); end is where its last
	// block (or the whole file) ends, base where the whole file ends,
	// crc the CRC-32C of its last header, blocks how many it has.
	info   os.FileInfo
	end    uint64
	base   uint64
	crc    uint32
	blocks uint32
	// slots is the index's slots the file holds (dead ones included),
	// n the file's own (live) slots, added those its blocks add; dirty
	// the index's dirty count when the file was made (an append needs
	// it unchanged).
	slots, n, added int
	dirty           uint64
	// held are the index's dead slots the file holds: facts deleted
	// since it was written whole, whose deletions its blocks carry (its
	// numbering of the slots counts them, and a load leaves them dead).
	held []int32
}

// canAppend reports whether x's next write may append a block to its
// file rather than write it whole: the file is known, nothing but rows
// added and statuses changed since, and the blocks are few and small.
// The caller holds x.mu.
func (x *bankIndex) canAppend() bool {
	fs := &x.file
	switch {
	case fs.info == nil || x.fileVersion < 0 || fs.dirty != x.dirty || len(x.meta) < fs.slots:
		return false
	case x.exact != nil && x.exact.bad.Load():
		return false
	case fs.blocks >= maxBlocks || float64(fs.end-fs.base) > appendShare*float64(fs.base):
		return false
	case fs.added+len(x.meta)-fs.slots > maxAppended(x.live):
		return false
	}
	return true
}

// maxAppended is the facts the blocks of a file of a bank of live facts
// may add before it is written whole again: a load adds each as it adds
// a row (BenchmarkIndexFileAppend at 1M: 31,250 facts cost the load
// 0.16 s more, 125,000 facts 0.71 s), and the first recall at 1M must
// stay within 1 s. So one write's worth (saveAfter, and the facts that
// came while it waited): every other write is whole. appendedSaves is a
// variable for tests and the benchmark.
func maxAppended(live int) int { return int(appendedSaves * float64(saveAfter(live))) }

// appendedSaves is how many saveAfter's worth of facts blocks may add.
var appendedSaves = 1.5

// logStatus records that the status of the fact in row pk changed, for
// the next block to carry; a log grown past its bound makes the next
// write whole instead. The caller holds x.mu.
func (x *bankIndex) logStatus(pk int64) {
	if x.indexDir == "" || x.indexReadOnly {
		return
	}
	if len(x.statusLog) >= 1<<16 {
		x.statusLog = nil
		x.dirty++
		return
	}
	x.statusLog = append(x.statusLog, pk)
}

// logDelete records that the fact in slot i was removed, for the next
// block to carry when the file holds it; a log grown past its bound
// makes the next write whole instead. Slots, not rows: a removed slot's
// row is no longer found by it, and compaction, which renumbers the
// slots, drops the log (and makes the next write whole). The caller
// holds x.mu.
func (x *bankIndex) logDelete(i int) {
	if x.indexDir == "" || x.indexReadOnly {
		return
	}
	if len(x.delLog) >= 1<<16 {
		x.delLog = nil
		x.dirty++
		return
	}
	x.delLog = append(x.delLog, int32(i))
}

// appendPlan is a block to append: its header and record, and how to
// write its other sections from the index.
type appendPlan struct {
	h      blockHeader
	record []byte
	// slots are the index's slots whose facts the block adds (the live
	// ones after the file's), to the index's slot to (the file's slots
	// once it is written).
	slots []int
	to    int
	// dels are the file's slots whose deletions the block carries.
	dels   []int32
	graph  *hnsw.Snapshot
	graphN int
	logN   int // the status log entries it carries
	delN   int // the deletion log entries it takes
}

// planAppend returns the block that brings x's file to x's state (and d's
// document mirror, when not nil and at x's version). The caller holds
// x.mu (and d.mu) for reading.
func planAppend(x *bankIndex, d *docIndex) *appendPlan {
	fs := &x.file
	p := &appendPlan{to: len(x.meta), logN: len(x.statusLog), delN: len(x.delLog)}
	for i := fs.slots; i < len(x.meta); i++ {
		// A fact added and removed since the file: neither goes.
		if !x.meta[i].dead {
			p.slots = append(p.slots, i)
		}
	}
	for _, i := range x.delLog {
		// Slots after the file's were facts it never held.
		if int(i) < fs.slots {
			p.dels = append(p.dels, i)
		}
	}
	h := &p.h
	h.dels = true
	h.seq, h.prev, h.start = fs.blocks+1, fs.crc, alignUp(fs.end)
	h.version, h.maxPK = x.version, x.maxPK
	h.slots, h.added = uint32(fs.n), uint32(len(p.slots))
	if x.dim > 0 {
		h.dim = uint32(x.dim)
	}
	if d != nil {
		h.flags |= flagDocs
	}
	// The last live fact, which a load checks the database holds: the
	// file's may be deleted since (a whole file names its last live one
	// too).
	h.lastPK, h.lastID = 0, ""
	for i := len(x.meta) - 1; i >= 0; i-- {
		if !x.meta[i].dead {
			h.lastPK, h.lastID = x.meta[i].pk, x.meta[i].id
			break
		}
	}
	names := make([]string, len(x.postings))
	for t, id := range x.termID {
		names[id] = t
	}
	b := make([]byte, 0, 256*int(h.added)+8*len(p.dels)+64)
	u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	i64 := func(v int64) { b = binary.LittleEndian.AppendUint64(b, uint64(v)) }
	str := func(s string) { u32(uint32(len(s))); b = append(b, s...) }
	for _, i := range p.slots {
		m := &x.meta[i]
		i64(m.pk)
		str(m.id)
		str(string(m.kind))
		str(string(m.category))
		str(string(m.status))
		i64(m.eventTime)
		i64(m.createdAt)
		i64(m.expiredAt)
		u32(uint32(m.length))
		var fl uint8
		if m.hasVec {
			fl |= 1
		}
		if m.sensitive {
			fl |= 2
		}
		b = append(b, fl)
		u32(uint32(len(m.tags)))
		for _, t := range m.tags {
			str(t)
		}
		// The words in the order the fact had them, with their
		// frequencies from the postings (in slot order: the fact's is
		// found by a binary search).
		terms := x.terms[m.termOff : m.termOff+m.termN]
		u32(uint32(len(terms)))
		for _, t := range terms {
			ps := x.postings[t]
			j, _ := slices.BinarySearchFunc(ps, int32(i), func(p posting, s int32) int { return int(p.slot - s) })
			var tf uint16
			if j < len(ps) && ps[j].slot == int32(i) {
				tf = ps[j].tf
			}
			str(names[t])
			b = binary.LittleEndian.AppendUint16(b, tf)
		}
		if d != nil {
			doc := ""
			if at, ok := d.at.get(m.id); ok && at.doc >= 0 {
				doc = d.docs[at.doc].id
			}
			str(doc)
		}
	}
	if x.dim > 0 {
		for _, i := range p.slots {
			q, sc := x.vecs.Quantized(i)
			u32(math.Float32bits(sc))
			b = append(b, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(q))), len(q))...)
		}
	}
	var status []int
	seen := map[int64]bool{}
	for _, pk := range x.statusLog {
		if i, ok := x.slotOfPK(pk); ok && i < fs.slots && !seen[pk] {
			seen[pk] = true
			status = append(status, i)
		}
	}
	u32(uint32(len(status)))
	for _, i := range status {
		m := &x.meta[i]
		i64(m.pk)
		str(string(m.status))
		i64(m.expiredAt)
	}
	// The deletions by row, in order (a slot is removed once; slots
	// are in row order).
	slices.Sort(p.dels)
	p.dels = slices.Compact(p.dels)
	u32(uint32(len(p.dels)))
	for _, i := range p.dels {
		i64(x.meta[i].pk)
	}
	p.record = b
	h.sec[blkRecord].len = uint64(len(b))
	if x.dim > 0 {
		h.sec[blkFloat].len = uint64(h.added) * uint64(x.dim) * 4
		h.sec[blkRecord].len += 4 * uint64(h.added) // the float checksums, known once read
	}
	if a := x.ann; a != nil && x.dim > 0 && x.graphable()-x.fileGraph >= saveAfter(x.live) {
		if done := int(a.done.Load()); done > 0 {
			// Numbered as the file's slots: the live ones, and the dead
			// ones the file holds (deleted since it was written whole),
			// which a load leaves dead.
			held := make(map[int32]bool, len(fs.held)+len(p.dels))
			for _, i := range fs.held {
				held[i] = true
			}
			for _, i := range p.dels {
				held[i] = true
			}
			newSlot := make([]int32, done)
			n := int32(0)
			for i := range newSlot {
				newSlot[i] = -1
				if !x.meta[i].dead || held[int32(i)] {
					newSlot[i] = n
					n++
				}
			}
			if g, err := a.g.Snapshot(done, newSlot); err == nil && g.Nodes() > 0 {
				p.graph, p.graphN, h.sec[blkGraph].len = g, g.Nodes(), uint64(g.Len())
			}
		}
	}
	h.layoutBlock()
	return p
}

// errMoved is the error of an append to a file that is not the one the
// index knows (replaced, appended to or torn since): it is written whole.
var errMoved = errors.New("the index file changed since it was read")

// write appends p's block to the file at path, which must be the one x
// knows and end where x knows it ends, under an exclusive lock of it;
// the header goes last, once the sections' checksums are known. It
// returns the bytes written. The caller holds x.mu for reading; stop,
// when it reports true between chunks, abandons the write (the block
// left torn, which a load ignores).
func (p *appendPlan) write(path string, x *bankIndex, stop func() bool) (int64, error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if err := lockFile(f); err != nil {
		return 0, err
	}
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if !os.SameFile(st, x.file.info) || uint64(st.Size()) != x.file.end {
		return 0, errMoved
	}
	h := &p.h
	n := int(h.added)
	record := p.record
	if x.dim > 0 {
		// The float32 vectors, in runs of consecutive slots, each with
		// its checksum.
		size := 4 * x.dim
		off := int64(h.sec[blkFloat].off)
		var raw []byte
		for at := 0; at < n; {
			if stop() {
				return 0, errors.New("abandoned")
			}
			run := 1
			for run < spillChunk && at+run < n && p.slots[at+run] == p.slots[at]+run {
				run++
			}
			if raw, err = x.exact.readRaw(p.slots[at], run, raw[:0]); err != nil {
				return 0, err
			}
			for i := range run {
				record = binary.LittleEndian.AppendUint32(record, crc32.Checksum(raw[i*size:(i+1)*size], castagnoli()))
			}
			if _, err := f.WriteAt(raw, off); err != nil {
				return 0, err
			}
			off += int64(len(raw))
			at += run
		}
	}
	if uint64(len(record)) != h.sec[blkRecord].len {
		return 0, fmt.Errorf("block record of %d bytes, %d planned", len(record), h.sec[blkRecord].len)
	}
	h.sec[blkRecord].crc = crc32.Checksum(record, castagnoli())
	if _, err := f.WriteAt(record, int64(h.sec[blkRecord].off)); err != nil {
		return 0, err
	}
	if p.graph != nil {
		w := bufio.NewWriterSize(io.NewOffsetWriter(f, int64(h.sec[blkGraph].off)), 256<<10)
		cw := &sectionWriter{w: w} // counts from the section's start
		if _, err := p.graph.WriteTo(cw); err != nil {
			return 0, err
		}
		if err := w.Flush(); err != nil {
			return 0, err
		}
		if cw.off != h.sec[blkGraph].len {
			return 0, fmt.Errorf("block graph of %d bytes, %d planned", cw.off, h.sec[blkGraph].len)
		}
		h.sec[blkGraph].crc = cw.crc
	}
	if _, err := f.WriteAt([]byte(fileEnd), int64(h.end)-int64(trailerLen)); err != nil {
		return 0, err
	}
	hdr, crc := appendBlockHeader(nil, h)
	h.crc = crc
	// The padding from the file's end to the header: zeros.
	pad := make([]byte, h.start-x.file.end)
	if _, err := f.WriteAt(append(pad, hdr...), int64(x.file.end)); err != nil {
		return 0, err
	}
	return int64(h.end - x.file.end), nil
}
