package mirror

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/mnemo-ai/mnemo/internal/hnsw"
	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/memory"
)

// A bank's index file keeps what a first search would otherwise rebuild
// from every fact row — the index entries, the BM25 postings and
// statistics, the slot tables, the int8 vectors with their scales, the
// HNSW graph, the float32 originals and the document mirror — in the
// folder Settings.IndexDir, one file per bank. It is a cache of the
// database, never a source: a load checks it against the bank
// (identity, change counter, last fact) and applies what the database
// holds beyond it as any stale mirror does (new rows after its last row,
// every status, deletions), and a file that is torn, corrupt, of another
// format or ahead of the database is ignored and replaced.
//
// Layout (little-endian): a header (fileMagic, format, flags,
// fingerprint, the bank's creation time, version and last row, the seed
// of its id hashes, a table giving each section's offset, length and
// CRC-32C, the bank id, the last fact's id, and the header's own
// CRC-32C), then the sections, each at a multiple of sectionAlign, and
// fileEnd. The sections (secIndex…secSums) are the index section
// (strings, entries, each term with its postings' count, the document
// mirror), then the arrays the index searches, laid out as it holds them
// in memory: the postings, each slot's term ids, the slot tables by row
// and by id, the document mirror's table of fact places, the int8
// vectors (hnsw's form), the HNSW graph of the slots it had linked
// (hnsw's form, renumbered as the file's slots; empty below the graph's
// threshold), the float32 vectors (one a slot) and their CRC-32Cs.
//
// A load maps the file (copy-on-write) and checks the header, the
// layout (a torn file, or a length changed, does not add up) and every
// section's CRC-32C but the float32 vectors'; it decodes the index
// section alone and uses the arrays where they are mapped, so it costs
// what a search touches rather than the file's size. A float32 vector
// is checked when a search reads it (pread), and one that fails is read
// from the database instead (Source.Embedding). The graph is searched
// at once; the slots after its last are linked into it in the
// background, as in a graph built in this process. Files are written to
// a temporary file in the folder (the header last, once the sections'
// checksums are known) and renamed over the old one, never written in
// place, so a reader sees a whole file or the previous one, and what a
// process mapped stays what it checked; a crash leaves at worst a
// temporary file (removed once stale) or one the layout or checksums
// refuse.

// Names and numbers of the index file.
const (
	fileMagic = "MNEMOIX1"
	fileEnd   = "MNEMOEND"
	// fileFormat 2 added the graph; 3 laid the large arrays out in
	// sections as the index holds them in memory, each aligned, each
	// with its checksum, so a load maps them rather than read them: a
	// file of an older format is rebuilt.
	fileFormat = 3
	// fileSuffix ends every bank's index file; temporary files end in
	// fileSuffix + ".tmp-*".
	fileSuffix = ".idx"
	// trailerLen is fileEnd, after the last section.
	trailerLen = len(fileEnd)
	// sectionAlign aligns the start of every section in the file, and
	// so in memory: the file is mapped at a page.
	sectionAlign = 64
	// headerFixed is the header before its table of sections.
	headerFixed = len(fileMagic) + 4 + 4 + 8 + 8*4 + 8 + 4 + 4
	// sectionEntry is a section's entry in the header: offset, length,
	// CRC-32C and 4 bytes of padding.
	sectionEntry = 8 + 8 + 4 + 4
)

// The sections of an index file, in file order.
const (
	// secIndex is decoded: the strings, the entries, the terms with
	// their postings' counts, the document mirror.
	secIndex = iota
	// secPostings is every term's postings in term order, 8 bytes each
	// as the index holds them (slot int32, tf uint16, 2 bytes of 0).
	secPostings
	// secTerms is each slot's term ids (int32), slot after slot.
	secTerms
	// secPos and secIDs are the slot tables by row and by id (slots.go),
	// their entries as uint64s; secPlaces the document mirror's table
	// of fact ids (factPlaces), copied on load (empty: no mirror).
	secPos
	secIDs
	secPlaces
	// secInt8 is the int8 vectors, hnsw's form (every scale, then every
	// vector's components): never checked whole (its entry's CRC is 0);
	// each group of hnsw.CheckGroup vectors is checked against
	// secInt8Sums before a search first reads one of them.
	secInt8
	// secInt8Sums is the CRC-32C of each group of int8 vectors: of the
	// group's scales, then of its components.
	secInt8Sums
	// secGraph is the HNSW graph of the slots it had linked, hnsw's
	// form (empty: none).
	secGraph
	// secFloat is the float32 vectors, one a slot: never checked whole
	// (its entry's CRC is 0); each vector is checked against secSums
	// when a search reads it.
	secFloat
	// secSums is the CRC-32C of each float32 vector.
	secSums
	numSections
)

// lazySection reports whether section i is checked a part at a time,
// as it is read, rather than whole on load: the float32 vectors, a
// vector at a time, and the int8 vectors, a group at a time.
func lazySection(i int) bool { return i == secFloat || i == secInt8 }

// sectionNames names the sections in errors and tests.
var sectionNames = [numSections]string{"index", "postings", "terms", "pos", "ids", "places", "int8", "int8sums", "graph", "float", "sums"}

// flagDocs: the file holds the document mirror too.
const flagDocs = 1

// castagnoli returns the CRC-32C table (hardware-accelerated on amd64
// and arm64), made on first use: not at start-up of every process.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// fingerprintProbe is text whose words pass through the stemmer and the
// stopword list: a build that counts words differently fingerprints
// differently, so its files are not read as if it counted alike.
const fingerprintProbe = "The running foxes jumped over lazy dogs' houses, and she was happily organizing 2024's meetings in São Paulo."

// fingerprint returns the hash of the words the probe counts to and of
// tag (Settings.IndexTag: the database's schema).
func fingerprint(tag string) uint64 {
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00%s\x00", fileFormat, tag)
	for _, w := range lex.Terms(fingerprintProbe) {
		h.Write([]byte(w))
		h.Write([]byte{0})
	}
	return binary.LittleEndian.Uint64(h.Sum(nil))
}

// indexPath returns the bank's index file in dir: named by a hash of the
// bank id, which any string may be.
func indexPath(dir, bank string) string {
	sum := sha256.Sum256([]byte(bank))
	return filepath.Join(dir, hex.EncodeToString(sum[:16])+fileSuffix)
}

// section is where a section of the file lies and its CRC-32C.
type section struct {
	off, len uint64
	crc      uint32
}

// fileHeader is what an index file says of itself.
type fileHeader struct {
	format, flags uint32
	fingerprint   uint64
	created       int64
	version       int64
	maxPK         int64
	// lastPK is the row of the file's last fact, lastID its id (0 and
	// "": none): the load checks the database holds that fact.
	lastPK int64
	lastID string
	bank   string
	// idSeed seeds the hashes of the slot table by id (idHash).
	idSeed uint64
	sec    [numSections]section
	// headerLen is the header's length, its CRC-32C included; crc
	// that CRC-32C (appended blocks chain to it).
	headerLen int64
	crc       uint32
}

// errBadFile is the error of a file that is not a whole index file of
// this format, errAhead of one newer than the database read.
var (
	errBadFile = errors.New("not a valid index file")
	errAhead   = fmt.Errorf("%w: ahead of the database", errBadFile)
)

// alignUp rounds n up to a multiple of sectionAlign.
func alignUp(n uint64) uint64 { return (n + sectionAlign - 1) &^ (sectionAlign - 1) }

// lenOfHeader returns the length of a header naming the bank and a last
// fact id of these lengths, its CRC included.
func lenOfHeader(bankLen, lastLen int) int64 {
	return int64(headerFixed + numSections*sectionEntry + bankLen + lastLen + 4)
}

// layout places the sections, whose lengths h holds, one after the
// other from the end of the header, each at the next multiple of
// sectionAlign, and returns the file's length.
func (h *fileHeader) layout() int64 {
	at := alignUp(uint64(h.headerLen))
	for i := range h.sec {
		at = alignUp(at)
		h.sec[i].off = at
		at += h.sec[i].len
	}
	return int64(at) + int64(trailerLen)
}

// checkLayout reports whether the sections lie where layout would place
// them in a file of size bytes, and returns where the whole file ends
// (its end mark; blocks may be appended after it): a file torn, or a
// length changed, fails.
func (h *fileHeader) checkLayout(size int64) (int64, error) {
	at := alignUp(uint64(h.headerLen))
	for i, s := range h.sec {
		at = alignUp(at)
		if s.off != at || s.len > uint64(size) {
			return 0, fmt.Errorf("%s section at %d (%d bytes), want %d", sectionNames[i], s.off, s.len, at)
		}
		if lazySection(i) && s.crc != 0 {
			return 0, fmt.Errorf("a checksum of the whole %s section", sectionNames[i])
		}
		at += s.len
	}
	if end := int64(at) + int64(trailerLen); end <= size {
		return end, nil
	}
	return 0, fmt.Errorf("sections end at %d of %d bytes", at, size)
}

// readHeader reads and checks the header at the start of f.
func readHeader(f *os.File) (fileHeader, error) {
	var h fileHeader
	buf := make([]byte, headerFixed)
	if _, err := f.ReadAt(buf, 0); err != nil {
		return h, errBadFile
	}
	d := decoder{b: buf}
	if string(d.bytes(len(fileMagic))) != fileMagic {
		return h, errBadFile
	}
	h.format, h.flags, h.fingerprint = d.u32(), d.u32(), d.u64()
	if h.format != fileFormat {
		return h, errBadFile
	}
	h.created, h.version, h.maxPK, h.lastPK = d.i64(), d.i64(), d.i64(), d.i64()
	h.idSeed = d.u64()
	bankLen, lastLen := d.u32(), d.u32()
	if bankLen > 1<<16 || lastLen > 1<<16 {
		return h, errBadFile
	}
	h.headerLen = lenOfHeader(int(bankLen), int(lastLen))
	all := make([]byte, h.headerLen)
	if _, err := f.ReadAt(all, 0); err != nil {
		return h, errBadFile
	}
	body := all[:len(all)-4]
	h.crc = binary.LittleEndian.Uint32(all[len(all)-4:])
	if crc32.Checksum(body, castagnoli()) != h.crc {
		return h, fmt.Errorf("%w: the header's checksum", errBadFile)
	}
	d = decoder{b: body, off: headerFixed}
	for i := range h.sec {
		h.sec[i] = section{off: d.u64(), len: d.u64(), crc: d.u32()}
		d.u32()
	}
	h.bank, h.lastID = string(d.bytes(int(bankLen))), string(d.bytes(int(lastLen)))
	return h, nil
}

// appendHeader appends h's encoding to b, its CRC-32C last.
func appendHeader(b []byte, h *fileHeader) []byte {
	at := len(b)
	b = append(b, fileMagic...)
	b = binary.LittleEndian.AppendUint32(b, h.format)
	b = binary.LittleEndian.AppendUint32(b, h.flags)
	b = binary.LittleEndian.AppendUint64(b, h.fingerprint)
	for _, v := range []int64{h.created, h.version, h.maxPK, h.lastPK} {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	b = binary.LittleEndian.AppendUint64(b, h.idSeed)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(h.bank)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(h.lastID)))
	for _, s := range h.sec {
		b = binary.LittleEndian.AppendUint64(b, s.off)
		b = binary.LittleEndian.AppendUint64(b, s.len)
		b = binary.LittleEndian.AppendUint32(b, s.crc)
		b = binary.LittleEndian.AppendUint32(b, 0)
	}
	b = append(b, h.bank...)
	b = append(b, h.lastID...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[at:], castagnoli()))
}

// loaded is an index file read and checked: the fact index and, when
// the file has them, its graph and the document mirror, ready to install.
type loaded struct {
	h fileHeader
	x *bankIndex
	g *hnsw.Graph // nil: the file holds no graph
	d *docIndex   // nil: the file holds no document mirror
	// file is what the load found of the file, to append to it.
	file fileState
	// pending are the whole blocks appended after it, last where they
	// end, extra the facts they add.
	pending []*block
	last    uint64
	extra   int
}

// readIndexFile reads the bank's index file at path as an index with
// settings like proto's, checking it is whole, of this format and build
// (fp), of the bank created at created, and no newer than version. It
// returns errBadFile (wrapped) for a file to replace, or the error that
// kept it from reading one (os.ErrNotExist: none).
//
// The file is mapped, not read: the index keeps its int8 vectors, graph
// layer 0, postings, term ids and slot tables where they are (x.mapped),
// so a load costs the pages a search touches rather than the file's
// size; the index section alone is decoded. Every section but the
// float32 vectors is checked against its CRC-32C before the index is
// used; a float32 vector is checked when a search reads it.
func readIndexFile(path, bank string, created, version int64, fp uint64, proto *bankIndex) (*loaded, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	h, err := readHeader(f)
	if err != nil {
		return nil, err
	}
	switch {
	case h.fingerprint != fp:
		return nil, fmt.Errorf("%w: of another build or schema", errBadFile)
	case h.bank != bank || h.created != created:
		return nil, fmt.Errorf("%w: of another bank", errBadFile)
	case h.version > version:
		return nil, fmt.Errorf("%w (version %d > %d)", errAhead, h.version, version)
	}
	end, err := h.checkLayout(st.Size())
	if err != nil {
		return nil, fmt.Errorf("%w: torn: %v", errBadFile, err)
	}
	mem, err := mapFile(f, st.Size())
	if err != nil {
		return nil, err
	}
	l := &loaded{h: h, file: fileState{info: st}}
	defer func() {
		if ok {
			return
		}
		if l.x != nil {
			l.x.mapped = nil
			if l.x.exact != nil {
				l.x.exact.close() // its spill file; f is closed above
			}
		}
		unmapFile(mem)
	}()
	if string(mem[end-int64(trailerLen):end]) != fileEnd {
		return nil, fmt.Errorf("%w: no end mark", errBadFile)
	}
	sec := func(i int) []byte {
		s := h.sec[i]
		return mem[s.off : s.off+s.len : s.off+s.len]
	}
	// The checksums are compared on a second goroutine while the index
	// section is decoded; the file is used only if both hold.
	var sums sync.WaitGroup
	var bad error
	sums.Go(func() {
		for i := range h.sec {
			if !lazySection(i) && crc32.Checksum(sec(i), castagnoli()) != h.sec[i].crc {
				bad = fmt.Errorf("%w: the %s section's checksum", errBadFile, sectionNames[i])
				return
			}
		}
	})
	// The blocks appended after the whole file, read (and their records
	// checked) first, so the arrays are made with room for their facts.
	l.pending, l.last = readBlocks(mem, uint64(end), h.crc, version)
	for _, b := range l.pending {
		l.extra += int(b.h.added)
	}
	err = l.decode(sec, proto)
	sums.Wait()
	if bad != nil {
		return nil, bad
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBadFile, err)
	}
	x := l.x
	x.mapped = mem
	n := len(x.meta)
	// What was decoded or copied is not read again: its pages leave the
	// resident memory (the float32 checksums are copied below).
	for _, i := range []int{secIndex, secPlaces, secSums} {
		defer releaseMapped(sec(i))
	}
	if x.dim == 0 {
		for _, i := range []int{secInt8, secInt8Sums, secGraph, secFloat, secSums} {
			if h.sec[i].len != 0 {
				return nil, fmt.Errorf("%w: a %s section without vectors", errBadFile, sectionNames[i])
			}
		}
		if err := l.blocks(mem, f, end, version); err != nil {
			return nil, err
		}
		ok = true
		f.Close() // no vectors to read from f
		return l, nil
	}
	if x.vecs, err = hnsw.Int8VectorsIn(sec(secInt8), x.dim, n); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadFile, err)
	}
	if uint64(n)*uint64(x.dim)*4 != h.sec[secFloat].len || uint64(n)*4 != h.sec[secSums].len {
		return nil, fmt.Errorf("%w: vectors of %d bytes and %d checksums for %d slots", errBadFile, h.sec[secFloat].len, h.sec[secSums].len/4, n)
	}
	table := sec(secSums)
	vsums := make([]uint32, n)
	for i := range vsums {
		vsums[i] = binary.LittleEndian.Uint32(table[4*i:])
	}
	x.exact = newExactVectors(x.dim, x.floatVectors, x.spillDir)
	if err := checkInt8(x, sec(secInt8), sec(secInt8Sums)); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadFile, err)
	}
	if x.floatVectors {
		// Vectors kept in memory are read, and checked, now.
		floats := sec(secFloat)
		defer releaseMapped(floats)
		for i := range n {
			v := floats[i*4*x.dim : (i+1)*4*x.dim]
			if crc32.Checksum(v, castagnoli()) != vsums[i] {
				return nil, fmt.Errorf("%w: vector %d's checksum", errBadFile, i)
			}
			x.exact.appendEncoded(v)
		}
		if err := l.blocks(mem, nil, end, version); err != nil {
			return nil, err
		}
		ok = true
		f.Close()
		return l, nil
	}
	x.exact.setBase(f, int64(h.sec[secFloat].off), n, vsums)
	if err := l.blocks(mem, f, end, version); err != nil {
		return nil, err
	}
	ok = true // f stays open: the vectors' base
	return l, nil
}

// blocks adds to l the blocks appended after the whole file, which ends
// at end in mem, that are whole and no newer than version (f: the file,
// when the index reads its float32 vectors there), and reads the graph:
// the last block's that has one, or the whole file's. A block that is
// whole but does not apply is an error: the file is not to be used.
func (l *loaded) blocks(mem []byte, f *os.File, end, version int64) error {
	l.file = fileState{info: l.file.info, end: uint64(end), base: uint64(end), crc: l.h.crc}
	blocks, last := l.pending, l.last
	graph, err := l.applyBlocks(blocks, f)
	if err != nil {
		return fmt.Errorf("%w: %v", errBadFile, err)
	}
	for _, b := range blocks {
		// Decoded or copied (the float32 vectors, when read here): their
		// pages leave the resident memory, as the index section's do.
		for _, i := range []int{blkRecord, blkFloat} {
			s := b.h.sec[i]
			releaseMapped(mem[s.off : s.off+s.len])
		}
	}
	if n := len(blocks); n > 0 {
		l.file.end, l.file.crc, l.file.blocks = last, blocks[n-1].h.crc, uint32(n)
		for _, b := range blocks {
			l.file.added += int(b.h.added)
		}
	}
	if graph == nil && l.h.sec[secGraph].len > 0 {
		s := l.h.sec[secGraph]
		graph = mem[s.off : s.off+s.len : s.off+s.len]
	}
	if graph != nil && l.x.vecs != nil {
		// Searched where it is mapped.
		if l.g, err = hnsw.ReadIn(graph, l.x.vecs); err != nil {
			return fmt.Errorf("%w: %v", errBadFile, err)
		}
	}
	return nil
}

// decoder reads the index section; the first overrun sets err and every
// read after it returns zeros.
type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) bytes(n int) []byte {
	if d.err != nil || n < 0 || n > len(d.b)-d.off {
		if d.err == nil {
			d.err = fmt.Errorf("section ends at byte %d of %d", d.off, len(d.b))
		}
		return nil
	}
	p := d.b[d.off : d.off+n]
	d.off += n
	return p
}

func (d *decoder) u8() uint8 {
	if p := d.bytes(1); p != nil {
		return p[0]
	}
	return 0
}

func (d *decoder) u16() uint16 {
	if p := d.bytes(2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if p := d.bytes(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if p := d.bytes(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (d *decoder) i64() int64 { return int64(d.u64()) }

// count reads a count of items of at least size bytes each, refusing one
// the rest of the section cannot hold (so a bad count never allocates).
func (d *decoder) count(size int) int {
	n := int(d.u32())
	if d.err == nil && n*size > len(d.b)-d.off {
		d.err = fmt.Errorf("count %d exceeds the section", n)
		return 0
	}
	return n
}

// str reads a string reference into strs.
func (d *decoder) str(strs string) string {
	off, n := int(d.u32()), int(d.u32())
	if d.err != nil {
		return ""
	}
	if off > len(strs) || n > len(strs)-off {
		d.err = fmt.Errorf("string out of range")
		return ""
	}
	return strs[off : off+n]
}

// decode fills l.x (and l.d) from the file's sections (sec returns one);
// proto gives the index's settings. The document mirror, whose offset
// the index section gives, is decoded beside the fact index: each
// indexes every fact, the bulk of a load.
func (l *loaded) decode(sec func(int) []byte, proto *bankIndex) error {
	d := &decoder{b: sec(secIndex)}
	// Every string of the file in one allocation; entries, tags, terms
	// and documents hold slices of it.
	strs := string(d.bytes(int(d.u64())))
	docsAt := d.u64()
	if d.err != nil {
		return d.err
	}
	rest := d.b[d.off:]
	if docsAt > uint64(len(rest)) || (l.h.flags&flagDocs == 0 && docsAt != uint64(len(rest))) {
		return fmt.Errorf("document mirror at %d of %d bytes", docsAt, len(rest))
	}
	var wg sync.WaitGroup
	var derr error
	if l.h.flags&flagDocs != 0 {
		dd := &decoder{b: rest[docsAt:]}
		wg.Go(func() {
			var dx *docIndex
			if dx, derr = decodeDocs(dd, strs, proto.created, l.h.idSeed, sec(secPlaces)); derr != nil {
				return
			}
			if dd.off != len(dd.b) {
				derr = fmt.Errorf("%d bytes left after the document mirror", len(dd.b)-dd.off)
				return
			}
			dx.version = l.h.version
			l.d = dx
		})
	}
	if l.h.flags&flagDocs == 0 && l.h.sec[secPlaces].len != 0 {
		return fmt.Errorf("a table of fact places without a document mirror")
	}
	err := l.decodeFacts(&decoder{b: rest[:docsAt]}, strs, sec, proto)
	wg.Wait()
	return errors.Join(err, derr)
}

// decodeFacts fills l.x from d, the index section's fact index, and the
// sections sec returns that it keeps where they are mapped (postings,
// term ids, slot tables); proto gives the index's settings.
func (l *loaded) decodeFacts(d *decoder, strs string, sec func(int) []byte, proto *bankIndex) error {
	x := newBankIndex()
	x.created, x.floatVectors, x.annThreshold, x.efSearch, x.spillDir, x.indexDir =
		proto.created, proto.floatVectors, proto.annThreshold, proto.efSearch, proto.spillDir, proto.indexDir
	n, dim := d.count(metaSize), int(d.u32())
	x.totalLen = d.i64()
	if dim > 1<<16 {
		return fmt.Errorf("dimension %d", dim)
	}
	// Room for the facts the appended blocks add (l.extra): they are
	// added after these without copying them.
	x.meta = make([]indexEntry, n, n+l.extra)
	x.state, x.length = make([]uint8, n, n+l.extra), make([]int32, n, n+l.extra)
	for i := range x.meta {
		e := &x.meta[i]
		e.pk = d.i64()
		// Kinds, categories and statuses are slices of strs, which holds
		// each value once: no copy per fact.
		e.id = d.str(strs)
		e.kind = memory.FactKind(d.str(strs))
		e.category = memory.Category(d.str(strs))
		e.status = memory.Status(d.str(strs))
		e.eventTime, e.createdAt, e.expiredAt = d.i64(), d.i64(), d.i64()
		e.length = int32(d.u32())
		e.termOff, e.termN = d.u32(), d.u32()
		fl := d.u8()
		e.hasVec, e.sensitive = fl&1 != 0 && dim > 0, fl&2 != 0
		tn := int(d.u32())
		if d.err != nil {
			return d.err
		}
		if i > 0 && e.pk <= x.meta[i-1].pk {
			return fmt.Errorf("rows out of order at slot %d", i)
		}
		if tn > 0 {
			if tn*8 > len(d.b)-d.off {
				return fmt.Errorf("tags count %d exceeds the section", tn)
			}
			e.tags = make([]string, tn)
			for j := range e.tags {
				e.tags[j] = d.str(strs)
			}
		}
		x.setState(i)
	}
	x.live = n
	// The file's last row may be a fact since deleted: rows after it are
	// new, whatever the entries' last.
	x.maxPK = l.h.maxPK
	if n > 0 && x.meta[n-1].pk > x.maxPK {
		return fmt.Errorf("entry of row %d after the file's last row %d", x.meta[n-1].pk, x.maxPK)
	}
	var err error
	if x.pos, err = slotTableIn(sec(secPos), n, true); err != nil {
		return err
	}
	if x.byID, err = slotTableIn(sec(secIDs), n, true); err != nil {
		return err
	}
	x.idSeed = l.h.idSeed
	nt := d.count(12)
	x.termID = make(map[string]int32, nt)
	x.postings, x.df = make([][]posting, nt), make([]int32, nt)
	total := d.count(0)
	all, err := postingsIn(sec(secPostings))
	if err != nil {
		return err
	}
	if total != len(all) {
		return fmt.Errorf("%d postings in a section of %d", total, len(all))
	}
	at := 0
	for t := range nt {
		term := d.str(strs)
		np := int(d.u32())
		if d.err != nil {
			return d.err
		}
		if np > total-at {
			return fmt.Errorf("postings exceed their count")
		}
		x.termID[term] = int32(t)
		x.postings[t] = all[at : at+np : at+np] // full: an append copies
		x.df[t] = int32(np)
		at += np
	}
	if at != total {
		return fmt.Errorf("%d postings of %d listed", at, total)
	}
	for _, p := range all {
		if p.slot < 0 || int(p.slot) >= n {
			return fmt.Errorf("posting of slot %d in %d slots", p.slot, n)
		}
	}
	nterms := d.count(0)
	if x.terms, err = int32sIn(sec(secTerms)); err != nil {
		return err
	}
	if len(x.terms) != nterms {
		return fmt.Errorf("%d term ids in a section of %d", nterms, len(x.terms))
	}
	for _, t := range x.terms {
		if t < 0 || int(t) >= nt {
			return fmt.Errorf("term id %d of %d", t, nt)
		}
	}
	for i := range x.meta {
		if e := &x.meta[i]; uint64(e.termOff)+uint64(e.termN) > uint64(nterms) {
			return fmt.Errorf("slot %d's terms out of range", i)
		}
	}
	x.dim = dim // the int8 vectors are a section of their own (readIndexFile)
	if d.err != nil {
		return d.err
	}
	x.version = l.h.version
	l.x = x
	if d.off != len(d.b) {
		return fmt.Errorf("%d bytes left after the index", len(d.b)-d.off)
	}
	return nil
}

// postingSize is a posting's size in memory and in the file.
const postingSize = 8

// A posting's layout must be the file's: slot at 0, tf at 4, 8 bytes.
var _ = [1]struct{}{}[unsafe.Sizeof(posting{})-postingSize+unsafe.Offsetof(posting{}.tf)-4]

// postingsIn returns the postings b holds (secPostings), kept in b when
// this machine's order is the file's and b is 4-byte aligned, copied
// otherwise.
func postingsIn(b []byte) ([]posting, error) {
	if len(b)%postingSize != 0 {
		return nil, fmt.Errorf("postings section of %d bytes", len(b))
	}
	n := len(b) / postingSize
	if n == 0 {
		return nil, nil
	}
	if littleEndian && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%4 == 0 {
		return unsafe.Slice((*posting)(unsafe.Pointer(unsafe.SliceData(b))), n), nil
	}
	ps := make([]posting, n)
	for i := range ps {
		ps[i] = posting{slot: int32(binary.LittleEndian.Uint32(b[8*i:])), tf: binary.LittleEndian.Uint16(b[8*i+4:])}
	}
	return ps, nil
}

// int32sIn returns the little-endian int32s b holds, kept in b when this
// machine's order is theirs and b is 4-byte aligned, copied otherwise.
func int32sIn(b []byte) ([]int32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("section of %d bytes", len(b))
	}
	n := len(b) / 4
	if n == 0 {
		return nil, nil
	}
	if littleEndian && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%4 == 0 {
		return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(b))), n), nil
	}
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// metaSize is the least bytes an entry takes in the file.
const metaSize = 8 + 8*4 + 8*3 + 4*3 + 1 + 4

// decodeDocs reads a document mirror from d, its facts' places from
// places (a slot table of the file's, copied: the mirror outlives the
// mapping of the file), the hashes of their ids seeded by seed.
func decodeDocs(d *decoder, strs string, created int64, seed uint64, places []byte) (*docIndex, error) {
	x := newDocIndex(created, seed)
	x.maxPK, x.facts, x.totalLen = d.i64(), int(d.u64()), d.i64()
	if x.facts < 0 || x.facts > len(d.b) {
		return nil, fmt.Errorf("document mirror of %d facts", x.facts)
	}
	nd := d.count(16)
	x.docs = make([]docEntry, nd)
	x.slot = make(map[string]int32, nd)
	// The ids in the order the writer made the table of (placesOrder).
	x.at = factPlaces{ids: make([]string, 0, x.facts), at: make([]factAt, 0, x.facts), seed: seed}
	if d.err != nil {
		return nil, d.err
	}
	for i := range x.docs {
		e := &x.docs[i]
		e.id = d.str(strs)
		e.length = int32(d.u32())
		nf := d.count(8)
		if d.err != nil {
			return nil, d.err
		}
		if nf > x.facts-len(x.at.ids) {
			return nil, fmt.Errorf("document mirror of %d facts lists more", x.facts)
		}
		e.facts = make([]string, nf)
		for j := range e.facts {
			e.facts[j] = d.str(strs)
			x.at.ids = append(x.at.ids, e.facts[j])
			x.at.at = append(x.at.at, factAt{doc: int32(i), pos: int32(j)})
		}
		x.slot[e.id] = int32(i)
	}
	none := d.count(8)
	if d.err != nil || none > x.facts-len(x.at.ids) {
		return nil, fmt.Errorf("document mirror of %d facts lists more", x.facts)
	}
	for range none {
		x.at.ids = append(x.at.ids, d.str(strs))
		x.at.at = append(x.at.at, factAt{doc: -1})
	}
	if len(x.at.ids) != x.facts {
		return nil, fmt.Errorf("document mirror of %d facts lists %d", x.facts, len(x.at.ids))
	}
	var err error
	if x.at.idx, err = slotTableIn(places, x.facts, false); err != nil {
		return nil, err
	}
	nt := d.count(8)
	x.termID = make(map[string]int32, nt)
	x.postings = make([][]docPosting, nt)
	for t := range nt {
		term := d.str(strs)
		np := d.count(8)
		if d.err != nil {
			return nil, d.err
		}
		ps := make([]docPosting, np)
		for j := range ps {
			ps[j] = docPosting{doc: int32(d.u32()), tf: int32(d.u32())}
			if ps[j].doc < 0 || int(ps[j].doc) >= nd {
				return nil, fmt.Errorf("document posting of slot %d in %d", ps[j].doc, nd)
			}
		}
		x.termID[term] = int32(t)
		x.postings[t] = ps
	}
	if d.err != nil {
		return nil, d.err
	}
	return x, nil
}

// encoder builds the index section: numbers appended to b, strings
// gathered in strs and referred to by offset and length.
type encoder struct {
	b    []byte
	strs strings.Builder
	at   map[string]uint32 // a string already in strs (ids repeat)
}

func (e *encoder) u8(v uint8)   { e.b = append(e.b, v) }
func (e *encoder) u32(v uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *encoder) i64(v int64)  { e.b = binary.LittleEndian.AppendUint64(e.b, uint64(v)) }

// str appends a reference to s, adding s to strs once.
func (e *encoder) str(s string) {
	off, ok := e.at[s]
	if !ok {
		off = uint32(e.strs.Len())
		e.strs.WriteString(s)
		e.at[s] = off
	}
	e.u32(off)
	e.u32(uint32(len(s)))
}

// snapshotOf is an index's state to write: the header, the index section
// and how to write the other sections from the index.
type snapshotOf struct {
	h    fileHeader
	body []byte
	// slots are the live slots, in the file's order; newSlot and
	// newTerm give each slot and term id its number in the file (-1:
	// left out).
	slots           []int
	newSlot         []int32
	newTerm         []int32
	postings, terms int
	// places is the document mirror's table of fact places, as
	// decodeDocs finds it (nil: no mirror).
	places []byte
	// graph, when not nil, is the graph of the slots it has linked,
	// without the dead ones and numbered as the file's slots; graphN is
	// its nodes.
	graph  *hnsw.Snapshot
	graphN int
}

// encode returns x's live facts (and d's mirror, when d is not nil) as
// an index file's header and index section, and the plan of its other
// sections. The caller holds x.mu and d.mu for reading, and x.mu until
// the file is written. Dead slots are left out, so the file is what a
// load from the database would make.
func encode(bank string, x *bankIndex, d *docIndex, fp uint64) *snapshotOf {
	e := &encoder{at: make(map[string]uint32, 2*x.live)}
	s := &snapshotOf{h: fileHeader{format: fileFormat, fingerprint: fp, created: x.created, version: x.version,
		maxPK: x.maxPK, bank: bank, idSeed: x.idSeed}}
	newSlot := make([]int32, len(x.meta))
	for i := range x.meta {
		newSlot[i] = -1
		if !x.meta[i].dead {
			newSlot[i] = int32(len(s.slots))
			s.slots = append(s.slots, i)
		}
	}
	if n := len(s.slots); n > 0 {
		last := &x.meta[s.slots[n-1]]
		s.h.lastPK, s.h.lastID = last.pk, last.id
	}
	// Terms with a live posting, renumbered in id order.
	newTerm := make([]int32, len(x.postings))
	terms := make([]string, len(x.postings))
	for t, id := range x.termID {
		terms[id] = t
	}
	live := make([]int32, len(x.postings))
	nt, total := 0, 0
	for t, ps := range x.postings {
		newTerm[t] = -1
		for _, p := range ps {
			if newSlot[p.slot] >= 0 {
				live[t]++
			}
		}
		if live[t] > 0 {
			newTerm[t] = int32(nt)
			nt++
			total += int(live[t])
		}
	}
	s.newSlot, s.newTerm, s.postings = newSlot, newTerm, total
	dim := 0
	if x.dim > 0 {
		dim = x.dim
	}
	e.u32(uint32(len(s.slots)))
	e.u32(uint32(dim))
	e.i64(x.totalLen)
	var termOff uint32
	for _, i := range s.slots {
		m := &x.meta[i]
		e.i64(m.pk)
		e.str(m.id)
		e.str(string(m.kind))
		e.str(string(m.category))
		e.str(string(m.status))
		e.i64(m.eventTime)
		e.i64(m.createdAt)
		e.i64(m.expiredAt)
		e.u32(uint32(m.length))
		e.u32(termOff)
		e.u32(m.termN)
		termOff += m.termN
		var fl uint8
		if m.hasVec {
			fl |= 1
		}
		if m.sensitive {
			fl |= 2
		}
		e.u8(fl)
		e.u32(uint32(len(m.tags)))
		for _, t := range m.tags {
			e.str(t)
		}
	}
	s.terms = int(termOff)
	e.u32(uint32(nt))
	e.u32(uint32(total))
	for t := range x.postings {
		if newTerm[t] >= 0 {
			e.str(terms[t])
			e.u32(uint32(live[t]))
		}
	}
	e.u32(termOff)
	docsAt := len(e.b)
	if d != nil {
		s.places = placesTable(d)
		if s.places == nil {
			d = nil // a fact placed twice: the file goes without the mirror
		}
	}
	if d != nil {
		s.h.flags |= flagDocs
		e.i64(d.maxPK)
		e.b = binary.LittleEndian.AppendUint64(e.b, uint64(d.facts))
		e.i64(d.totalLen)
		e.u32(uint32(len(d.docs)))
		for i := range d.docs {
			de := &d.docs[i]
			e.str(de.id)
			e.u32(uint32(de.length))
			e.u32(uint32(len(de.facts)))
			for _, f := range de.facts {
				e.str(f)
			}
		}
		var none []string
		for i, id := range d.at.ids {
			if d.at.at[i].doc < 0 {
				none = append(none, id)
			}
		}
		slices.Sort(none) // as the file always had them
		e.u32(uint32(len(none)))
		for _, id := range none {
			e.str(id)
		}
		dterms := make([]string, len(d.postings))
		for t, id := range d.termID {
			dterms[id] = t
		}
		e.u32(uint32(len(d.postings)))
		for t, ps := range d.postings {
			e.str(dterms[t])
			e.u32(uint32(len(ps)))
			for _, p := range ps {
				e.u32(uint32(p.doc))
				e.u32(uint32(p.tf))
			}
		}
	}
	strs := e.strs.String()
	body := make([]byte, 0, 16+len(strs)+len(e.b))
	body = binary.LittleEndian.AppendUint64(body, uint64(len(strs)))
	body = append(body, strs...)
	body = binary.LittleEndian.AppendUint64(body, uint64(docsAt))
	s.body = append(body, e.b...)
	n := len(s.slots)
	s.h.sec[secIndex].len = uint64(len(s.body))
	s.h.sec[secPostings].len = uint64(total) * postingSize
	s.h.sec[secTerms].len = uint64(termOff) * 4
	s.h.sec[secPos].len = uint64(slotTableLen(n)) * 8
	s.h.sec[secIDs].len = uint64(slotTableLen(n)) * 8
	s.h.sec[secPlaces].len = uint64(len(s.places))
	if dim > 0 {
		s.h.sec[secInt8].len = uint64(hnsw.Int8VectorsLen(dim, n))
		s.h.sec[secInt8Sums].len = uint64(int8Groups(n)) * 4
		s.h.sec[secFloat].len = uint64(n) * uint64(dim) * 4
		s.h.sec[secSums].len = uint64(n) * 4
	}
	if a := x.ann; a != nil && dim > 0 {
		if done := int(a.done.Load()); done > 0 {
			// An error is a bug of the numbering: the file goes without.
			if g, err := a.g.Snapshot(done, newSlot[:done]); err == nil && g.Nodes() > 0 {
				s.graph, s.graphN, s.h.sec[secGraph].len = g, g.Nodes(), uint64(g.Len())
			}
		}
	}
	s.h.headerLen = lenOfHeader(len(s.h.bank), len(s.h.lastID))
	s.h.layout()
	return s
}

// int8Groups returns the groups of hnsw.CheckGroup int8 vectors n
// vectors make, the last maybe short.
func int8Groups(n int) int { return (n + hnsw.CheckGroup - 1) / hnsw.CheckGroup }

// int8Sums returns the CRC-32C of each group of the vectors at indexes
// as WriteTo writes them: of the group's scales, then its components.
func int8Sums(v *hnsw.Int8Vectors, indexes []int) []byte {
	out := make([]byte, 0, 4*int8Groups(len(indexes)))
	var scales, comps []byte
	for lo := 0; lo < len(indexes); lo += hnsw.CheckGroup {
		scales, comps = scales[:0], comps[:0]
		for _, i := range indexes[lo:min(lo+hnsw.CheckGroup, len(indexes))] {
			q, sc := v.Quantized(i)
			scales = binary.LittleEndian.AppendUint32(scales, math.Float32bits(sc))
			comps = append(comps, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(q))), len(q))...)
		}
		crc := crc32.Update(crc32.Checksum(scales, castagnoli()), castagnoli(), comps)
		out = binary.LittleEndian.AppendUint32(out, crc)
	}
	return out
}

// checkInt8 has x's int8 vectors, kept in form (secInt8, mapped), checked
// a group at a time against sums (secInt8Sums) before a search first
// reads one (hnsw.Int8Vectors.SetCheck): a load does not read them all,
// and a search reads what it reaches. A group that fails is made again
// from the float32 vectors (x.exact: checked as read, from the database
// when they fail too), as a load from the rows quantizes them, and the
// file is marked for rewriting. The caller has just made x.vecs and
// x.exact and shares neither yet.
func checkInt8(x *bankIndex, form, sums []byte) error {
	n, dim := x.vecs.Len(), x.dim
	if len(sums) != 4*int8Groups(n) {
		return fmt.Errorf("%d int8 checksums for %d vectors", len(sums)/4, n)
	}
	vecs, exact := x.vecs, x.exact
	x.vecs.SetCheck(n, func(g int) {
		lo, hi := g*hnsw.CheckGroup, min((g+1)*hnsw.CheckGroup, n)
		crc := crc32.Update(crc32.Checksum(form[4*lo:4*hi], castagnoli()), castagnoli(), form[4*n+lo*dim:4*n+hi*dim])
		if crc == binary.LittleEndian.Uint32(sums[4*g:]) {
			return
		}
		exact.bad.Store(true)
		q := make([]int8, dim)
		var buf []float32
		var raw []byte
		for i := lo; i < hi; i++ {
			var err error
			if buf, raw, err = exact.read(i, buf, raw); err != nil {
				// Not to be had: a vector of zeros, which no search
				// ranks, rather than bytes that failed their checksum.
				clear(buf)
				buf = append(buf[:0], make([]float32, dim)...)
			}
			vecs.SetQuantized(i, q, hnsw.Quantize(q, buf))
		}
	})
	return nil
}

// placesTable returns d's table of fact places for the order in which
// decodeDocs lists the ids (each document's facts, then the facts of
// none sorted), as slot table entries, or nil if an id is listed twice
// (the mirror then cannot be written as it is). The caller holds d.mu
// for reading.
func placesTable(d *docIndex) []byte {
	t := newSlotTable(d.at.len())
	n := 0
	add := func(id string) bool {
		if n >= d.at.len() {
			return false
		}
		t.putNew(idHash(d.seed, id), n)
		n++
		return true
	}
	for i := range d.docs {
		for _, f := range d.docs[i].facts {
			if !add(f) {
				return nil
			}
		}
	}
	var none []string
	for i, id := range d.at.ids {
		if d.at.at[i].doc < 0 {
			none = append(none, id)
		}
	}
	slices.Sort(none)
	for _, id := range none {
		if !add(id) {
			return nil
		}
	}
	if n != d.at.len() {
		return nil
	}
	return appendSlotTable(make([]byte, 0, 8*len(t.t)), &t)
}

// tempPattern names the temporary files index files are written to.
const tempPattern = "bank" + fileSuffix + ".tmp-*"

// staleTemp is the age after which a temporary file in the folder is
// taken for one a crashed process left, and removed.
const staleTemp = time.Hour

// removeStaleTemps removes the temporary files in dir older than
// staleTemp.
func removeStaleTemps(dir string) {
	names, _ := filepath.Glob(filepath.Join(dir, tempPattern))
	for _, name := range names {
		if st, err := os.Stat(name); err == nil && time.Since(st.ModTime()) > staleTemp {
			os.Remove(name)
		}
	}
}

// sectionWriter writes an index file's sections one after the other:
// it pads each to its place, and keeps the CRC-32C of each.
type sectionWriter struct {
	w   *bufio.Writer
	off uint64
	crc uint32
}

// Write writes p as part of the current section.
func (s *sectionWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	s.off += uint64(n)
	s.crc = crc32.Update(s.crc, castagnoli(), p[:n])
	return n, err
}

// section writes section i of h by fill, padded to its offset, and sets
// its CRC-32C; it fails unless fill writes the section's length.
func (s *sectionWriter) section(h *fileHeader, i int, fill func(w io.Writer) error) error {
	sec := &h.sec[i]
	if sec.off < s.off {
		return fmt.Errorf("%s section at %d, the file at %d", sectionNames[i], sec.off, s.off)
	}
	var zero [sectionAlign]byte
	if _, err := s.w.Write(zero[:sec.off-s.off]); err != nil {
		return err
	}
	s.off, s.crc = sec.off, 0
	if err := fill(s); err != nil {
		return err
	}
	if s.off != sec.off+sec.len {
		return fmt.Errorf("%s section of %d bytes, %d planned", sectionNames[i], s.off-sec.off, sec.len)
	}
	if !lazySection(i) {
		sec.crc = s.crc
	}
	return nil
}

// chunked returns a buffer for w, the function that writes it to w once
// it holds 60 KiB or more (call it after each append), and the one that
// writes the rest.
func chunked(w io.Writer) (*[]byte, func() error, func() error) {
	b := make([]byte, 0, 64<<10)
	flush := func() error {
		_, err := w.Write(b)
		b = b[:0]
		return err
	}
	full := func() error {
		if len(b) >= 60<<10 {
			return flush()
		}
		return nil
	}
	return &b, full, flush
}

// write writes s to a temporary file in dir, mode 0600 (dir is made
// 0700), with the sections it plans from x (the caller holds x.mu for
// reading), and returns that file, flushed; the caller closes it and
// renames it into place. stop, when it reports true between chunks,
// abandons the write.
func (s *snapshotOf) write(dir string, x *bankIndex, stop func() bool) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	removeStaleTemps(dir)
	f, err := os.CreateTemp(dir, tempPattern)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*os.File, error) {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	if err := f.Chmod(0o600); err != nil {
		return fail(err)
	}
	h := &s.h
	// The header last, once the sections' checksums are known; zeros
	// until then, which no load takes for a header.
	sw := &sectionWriter{w: bufio.NewWriterSize(f, 256<<10), off: uint64(h.headerLen)}
	if _, err := sw.w.Write(make([]byte, h.headerLen)); err != nil {
		return fail(err)
	}
	write := func(i int, fill func(w io.Writer) error) error { return sw.section(h, i, fill) }
	if err := write(secIndex, func(w io.Writer) error { _, err := w.Write(s.body); return err }); err != nil {
		return fail(err)
	}
	if err := write(secPostings, func(w io.Writer) error {
		b, full, flush := chunked(w)
		for t, ps := range x.postings {
			if s.newTerm[t] < 0 {
				continue
			}
			for _, p := range ps {
				if ns := s.newSlot[p.slot]; ns >= 0 {
					*b = binary.LittleEndian.AppendUint32(*b, uint32(ns))
					*b = binary.LittleEndian.AppendUint16(*b, p.tf)
					*b = binary.LittleEndian.AppendUint16(*b, 0)
					if err := full(); err != nil {
						return err
					}
				}
			}
		}
		return flush()
	}); err != nil {
		return fail(err)
	}
	if err := write(secTerms, func(w io.Writer) error {
		b, full, flush := chunked(w)
		for _, i := range s.slots {
			m := &x.meta[i]
			for _, t := range x.terms[m.termOff : m.termOff+m.termN] {
				*b = binary.LittleEndian.AppendUint32(*b, uint32(s.newTerm[t]))
			}
			if err := full(); err != nil {
				return err
			}
		}
		return flush()
	}); err != nil {
		return fail(err)
	}
	// The slot tables of the file's numbering, as a load finds them.
	pos, ids := newSlotTable(len(s.slots)), newSlotTable(len(s.slots))
	for j, i := range s.slots {
		pos.putNew(pkHash(x.meta[i].pk), j)
		ids.putNew(idHash(h.idSeed, x.meta[i].id), j)
	}
	if err := write(secPos, func(w io.Writer) error { _, err := w.Write(appendSlotTable(nil, &pos)); return err }); err != nil {
		return fail(err)
	}
	if err := write(secIDs, func(w io.Writer) error { _, err := w.Write(appendSlotTable(nil, &ids)); return err }); err != nil {
		return fail(err)
	}
	if err := write(secPlaces, func(w io.Writer) error { _, err := w.Write(s.places); return err }); err != nil {
		return fail(err)
	}
	var table []byte
	if x.dim > 0 {
		// The int8 vectors as the index holds them.
		if err := write(secInt8, func(w io.Writer) error { _, err := x.vecs.WriteTo(w, s.slots); return err }); err != nil {
			return fail(err)
		}
		if err := write(secInt8Sums, func(w io.Writer) error { _, err := w.Write(int8Sums(x.vecs, s.slots)); return err }); err != nil {
			return fail(err)
		}
		if s.graph != nil {
			if err := write(secGraph, func(w io.Writer) error { _, err := s.graph.WriteTo(w); return err }); err != nil {
				return fail(err)
			}
		}
		// The live slots' vectors, read from the spill file in runs of
		// consecutive slots, each with its checksum.
		size := 4 * x.dim
		table = make([]byte, 0, 4*len(s.slots))
		if err := write(secFloat, func(w io.Writer) error {
			var raw []byte
			for at := 0; at < len(s.slots); {
				if stop() {
					return errors.New("abandoned")
				}
				n := 1
				for n < spillChunk && at+n < len(s.slots) && s.slots[at+n] == s.slots[at]+n {
					n++
				}
				var err error
				if raw, err = x.exact.readRaw(s.slots[at], n, raw[:0]); err != nil {
					return err
				}
				for i := range n {
					table = binary.LittleEndian.AppendUint32(table, crc32.Checksum(raw[i*size:(i+1)*size], castagnoli()))
				}
				if _, err := w.Write(raw); err != nil {
					return err
				}
				at += n
			}
			return nil
		}); err != nil {
			return fail(err)
		}
	}
	if err := write(secSums, func(w io.Writer) error { _, err := w.Write(table); return err }); err != nil {
		return fail(err)
	}
	if _, err := sw.w.WriteString(fileEnd); err != nil {
		return fail(err)
	}
	if err := sw.w.Flush(); err != nil {
		return fail(err)
	}
	head := appendHeader(nil, h)
	h.crc = binary.LittleEndian.Uint32(head[len(head)-4:])
	if _, err := f.WriteAt(head, 0); err != nil {
		return fail(err)
	}
	return f, nil
}
