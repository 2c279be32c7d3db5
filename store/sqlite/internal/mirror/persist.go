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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-ai/mnemo/internal/hnsw"
	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/memory"
)

// A bank's index file keeps what a first search would otherwise rebuild
// from every fact row — the index entries, the BM25 postings and
// statistics, the int8 vectors with their scales, the float32 originals
// and the document mirror — in the folder Settings.IndexDir, one file per
// bank. It is a cache of the database, never a source: a load checks it
// against the bank (identity, change counter, last fact) and applies
// what the database holds beyond it as any stale mirror does (new rows
// after its last row, every status, deletions), and a file that is torn,
// corrupt, of another format or ahead of the database is ignored and
// replaced.
//
// Layout (little-endian): a header (fileMagic, format, flags,
// fingerprint, the bank's creation time, version and last row, its id,
// the lengths of the sections), the index section (strings, the
// document mirror's offset, entries, tags, terms with their postings,
// each slot's term ids, the document mirror), the int8 vectors (every
// slot's components, then every scale), the HNSW graph of the slots it
// had linked (hnsw's binary form, renumbered as the file's slots; absent
// below the graph's threshold), the float32 section (one vector a slot,
// read with pread while the index lives), the CRC-32C of each of those
// vectors, and a trailer:
// the CRC-32C of the header, the index section, the int8 vectors, the
// graph and the vectors' checksums, and fileEnd. A load reads all but
// the float32 section, the file's bulk; a vector is checked when a
// search reads it, and one that fails is read from the database instead
// (Source.Embedding). The graph is searched at once; the slots after
// its last are linked into it in the background, as in a graph built
// in this process. Files are written to a temporary file in
// the folder and renamed over the old one, so a reader sees a whole file
// or the previous one; a crash leaves at worst a temporary file (removed
// once stale) or one the lengths or checksums refuse.

// Names and numbers of the index file.
const (
	fileMagic = "MNEMOIX1"
	fileEnd   = "MNEMOEND"
	// fileFormat 2 added the graph: a file of format 1 is rebuilt.
	fileFormat = 2
	// fileSuffix ends every bank's index file; temporary files end in
	// fileSuffix + ".tmp-*".
	fileSuffix = ".idx"
	// trailerLen is the CRC and fileEnd.
	trailerLen = 4 + len(fileEnd)
	// headerFixed is the header before the bank id.
	headerFixed = len(fileMagic) + 4 + 4 + 8 + 8 + 8 + 8 + 8 + 4 + 8 + 8 + 8 + 8 + 8
)

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
	idxLen uint64
	// qLen is the length of the int8 vectors and their scales, after
	// the index section.
	qLen uint64
	// graphLen is the length of the graph, after the int8 vectors (0:
	// none).
	graphLen uint64
	floatLen uint64
	// tableLen is the length of the vectors' checksums (4 bytes each).
	tableLen  uint64
	headerLen int64
}

// errBadFile is the error of a file that is not a whole index file of
// this format, errAhead of one newer than the database read.
var (
	errBadFile = errors.New("not a valid index file")
	errAhead   = fmt.Errorf("%w: ahead of the database", errBadFile)
)

// readHeader reads and checks the header at the start of f.
func readHeader(f *os.File) (fileHeader, error) {
	var h fileHeader
	buf := make([]byte, headerFixed)
	if _, err := io.ReadFull(f, buf); err != nil {
		return h, errBadFile
	}
	d := decoder{b: buf}
	if string(d.bytes(len(fileMagic))) != fileMagic {
		return h, errBadFile
	}
	h.format, h.flags, h.fingerprint = d.u32(), d.u32(), d.u64()
	h.created, h.version, h.maxPK, h.lastPK = d.i64(), d.i64(), d.i64(), d.i64()
	bankLen := d.u32()
	h.idxLen, h.qLen, h.graphLen, h.floatLen, h.tableLen = d.u64(), d.u64(), d.u64(), d.u64(), d.u64()
	if h.format != fileFormat || bankLen > 1<<16 {
		return h, errBadFile
	}
	// The bank id and the last fact's id follow.
	idLen := make([]byte, 4)
	rest := make([]byte, bankLen)
	if _, err := io.ReadFull(f, rest); err != nil {
		return h, errBadFile
	}
	if _, err := io.ReadFull(f, idLen); err != nil {
		return h, errBadFile
	}
	n := binary.LittleEndian.Uint32(idLen)
	if n > 1<<16 {
		return h, errBadFile
	}
	last := make([]byte, n)
	if _, err := io.ReadFull(f, last); err != nil {
		return h, errBadFile
	}
	h.bank, h.lastID = string(rest), string(last)
	h.headerLen = int64(headerFixed) + int64(bankLen) + 4 + int64(n)
	return h, nil
}

// appendHeader appends h's encoding to b.
func appendHeader(b []byte, h *fileHeader) []byte {
	b = append(b, fileMagic...)
	b = binary.LittleEndian.AppendUint32(b, h.format)
	b = binary.LittleEndian.AppendUint32(b, h.flags)
	b = binary.LittleEndian.AppendUint64(b, h.fingerprint)
	for _, v := range []int64{h.created, h.version, h.maxPK, h.lastPK} {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(h.bank)))
	b = binary.LittleEndian.AppendUint64(b, h.idxLen)
	b = binary.LittleEndian.AppendUint64(b, h.qLen)
	b = binary.LittleEndian.AppendUint64(b, h.graphLen)
	b = binary.LittleEndian.AppendUint64(b, h.floatLen)
	b = binary.LittleEndian.AppendUint64(b, h.tableLen)
	b = append(b, h.bank...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(h.lastID)))
	return append(b, h.lastID...)
}

// loaded is an index file read and checked: the fact index and, when
// the file has them, its graph and the document mirror, ready to install.
type loaded struct {
	h fileHeader
	x *bankIndex
	g *hnsw.Graph // nil: the file holds no graph
	d *docIndex   // nil: the file holds no document mirror
}

// readIndexFile reads the bank's index file at path as an index with
// settings like proto's, checking it is whole, of this format and build
// (fp), of the bank created at created, and no newer than version. It
// returns errBadFile (wrapped) for a file to replace, or the error that
// kept it from reading one (os.ErrNotExist: none).
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
	case h.idxLen > uint64(st.Size()) || h.qLen > uint64(st.Size()) || h.graphLen > uint64(st.Size()) ||
		h.floatLen > uint64(st.Size()) || h.tableLen > uint64(st.Size()) ||
		h.headerLen+int64(h.idxLen+h.qLen+h.graphLen+h.floatLen+h.tableLen)+int64(trailerLen) != st.Size():
		return nil, fmt.Errorf("%w: torn (%d bytes)", errBadFile, st.Size())
	}
	// The checksum covers the header, the index section, the int8
	// vectors, the graph and the float32 vectors' checksums; a float32
	// vector is checked when it is read (exactVectors), so a load never
	// reads the float32 section, the file's bulk.
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	head := make([]byte, h.headerLen)
	if _, err := io.ReadFull(f, head); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadFile, err)
	}
	idx := make([]byte, h.idxLen)
	if _, err := io.ReadFull(f, idx); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadFile, err)
	}
	crc := crc32.Update(crc32.Update(0, castagnoli(), head), castagnoli(), idx)
	l := &loaded{h: h}
	if err := l.decode(idx, proto); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadFile, err)
	}
	x := l.x
	n := len(x.meta)
	if uint64(n)*uint64(x.dim+4) != h.qLen && !(x.dim == 0 && h.qLen == 0) {
		return nil, fmt.Errorf("%w: int8 vectors of %d bytes for %d slots", errBadFile, h.qLen, n)
	}
	if x.dim > 0 {
		// Straight from the file into the index's blocks, checked as
		// they come.
		c := &crcWriter{crc: crc}
		vecs, err := hnsw.ReadInt8Vectors(io.TeeReader(io.LimitReader(f, int64(h.qLen)), c), x.dim, n)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errBadFile, err)
		}
		x.vecs, crc = vecs, c.crc
	}
	if h.graphLen > 0 {
		if x.dim == 0 {
			return nil, fmt.Errorf("%w: a graph without vectors", errBadFile)
		}
		// Straight from the file into the graph's arrays, checked as it
		// goes; the trailer's checksum covers it.
		c := &crcWriter{crc: crc}
		r := io.TeeReader(io.LimitReader(f, int64(h.graphLen)), c)
		g, err := hnsw.Read(r, int64(h.graphLen), x.vecs)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errBadFile, err)
		}
		if c.n != int64(h.graphLen) {
			return nil, fmt.Errorf("%w: graph of %d bytes in %d", errBadFile, c.n, h.graphLen)
		}
		crc, l.g = c.crc, g
	}
	floatOff := h.headerLen + int64(h.idxLen+h.qLen+h.graphLen)
	tail := make([]byte, h.tableLen+uint64(trailerLen))
	if _, err := f.ReadAt(tail, floatOff+int64(h.floatLen)); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadFile, err)
	}
	table, tr := tail[:h.tableLen], tail[h.tableLen:]
	crc = crc32.Update(crc, castagnoli(), table)
	if binary.LittleEndian.Uint32(tr[:4]) != crc || string(tr[4:]) != fileEnd {
		return nil, fmt.Errorf("%w: checksum mismatch", errBadFile)
	}
	if x.dim == 0 {
		if h.floatLen != 0 || h.tableLen != 0 {
			return nil, fmt.Errorf("%w: vectors without a dimension", errBadFile)
		}
		return l, nil // the deferred Close: no vectors to read from f
	}
	if uint64(n)*uint64(x.dim)*4 != h.floatLen || uint64(n)*4 != h.tableLen {
		return nil, fmt.Errorf("%w: vectors of %d bytes and %d checksums for %d slots", errBadFile, h.floatLen, h.tableLen/4, n)
	}
	sums := make([]uint32, n)
	for i := range sums {
		sums[i] = binary.LittleEndian.Uint32(table[4*i:])
	}
	x.exact = newExactVectors(x.dim, x.floatVectors, x.spillDir)
	if x.floatVectors {
		// Vectors kept in memory are read, and checked, now.
		floats := make([]byte, h.floatLen)
		if _, err := f.ReadAt(floats, floatOff); err != nil {
			return nil, fmt.Errorf("%w: %v", errBadFile, err)
		}
		for i := range n {
			v := floats[i*4*x.dim : (i+1)*4*x.dim]
			if crc32.Checksum(v, castagnoli()) != sums[i] {
				return nil, fmt.Errorf("%w: vector %d's checksum", errBadFile, i)
			}
			x.exact.appendEncoded(v)
		}
		return l, nil
	}
	x.exact.base, x.exact.baseOff, x.exact.baseN, x.exact.baseSums = f, floatOff, n, sums
	ok = true // f stays open: the vectors' base
	return l, nil
}

// crcWriter keeps the CRC-32C of what is written to it.
type crcWriter struct {
	crc uint32
	n   int64
}

func (c *crcWriter) Write(p []byte) (int, error) {
	c.crc = crc32.Update(c.crc, castagnoli(), p)
	c.n += int64(len(p))
	return len(p), nil
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

// decode fills l.x (and l.d) from the index section idx; proto gives the
// index's settings. The document mirror, whose offset the section
// gives, is decoded beside the fact index: each indexes every fact,
// the bulk of a load.
func (l *loaded) decode(idx []byte, proto *bankIndex) error {
	d := &decoder{b: idx}
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
			if dx, derr = decodeDocs(dd, strs, proto.created); derr != nil {
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
	err := l.decodeFacts(&decoder{b: rest[:docsAt]}, strs, proto)
	wg.Wait()
	return errors.Join(err, derr)
}

// decodeFacts fills l.x from d, the index section's fact index; proto
// gives the index's settings.
func (l *loaded) decodeFacts(d *decoder, strs string, proto *bankIndex) error {
	x := newBankIndex()
	x.created, x.floatVectors, x.annThreshold, x.efSearch, x.spillDir, x.indexDir =
		proto.created, proto.floatVectors, proto.annThreshold, proto.efSearch, proto.spillDir, proto.indexDir
	n, dim := d.count(metaSize), int(d.u32())
	x.totalLen = d.i64()
	if dim > 1<<16 {
		return fmt.Errorf("dimension %d", dim)
	}
	x.meta = make([]indexEntry, n)
	x.state, x.length = make([]uint8, n), make([]int32, n)
	x.pos, x.byID = newSlotTable(n), newSlotTable(n)
	for i := range x.meta {
		e := &x.meta[i]
		e.pk = d.i64()
		e.id = d.str(strs)
		e.kind = internKind(memory.FactKind(d.str(strs)))
		e.category = internCategory(memory.Category(d.str(strs)))
		e.status = internStatus(memory.Status(d.str(strs)))
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
		x.recordNew(i)
		x.setState(i)
	}
	x.live = n
	// The file's last row may be a fact since deleted: rows after it are
	// new, whatever the entries' last.
	x.maxPK = l.h.maxPK
	if n > 0 && x.meta[n-1].pk > x.maxPK {
		return fmt.Errorf("entry of row %d after the file's last row %d", x.meta[n-1].pk, x.maxPK)
	}
	nt := d.count(12)
	x.termID = make(map[string]int32, nt)
	x.postings, x.df = make([][]posting, nt), make([]int32, nt)
	total := d.count(6)
	all := make([]posting, 0, total)
	for t := range nt {
		term := d.str(strs)
		np := d.count(6)
		if d.err != nil {
			return d.err
		}
		if np > total-len(all) {
			return fmt.Errorf("postings exceed their count")
		}
		at := len(all)
		for range np {
			p := posting{slot: int32(d.u32()), tf: d.u16()}
			if p.slot < 0 || int(p.slot) >= n {
				return fmt.Errorf("posting of slot %d in %d slots", p.slot, n)
			}
			all = append(all, p)
		}
		x.termID[term] = int32(t)
		x.postings[t] = all[at:len(all):len(all)] // full: an append copies
		x.df[t] = int32(np)
	}
	nterms := d.count(4)
	x.terms = make([]int32, nterms)
	for i := range x.terms {
		x.terms[i] = int32(d.u32())
		if x.terms[i] < 0 || int(x.terms[i]) >= nt {
			return fmt.Errorf("term id %d of %d", x.terms[i], nt)
		}
	}
	for i := range x.meta {
		if e := &x.meta[i]; uint64(e.termOff)+uint64(e.termN) > uint64(nterms) {
			return fmt.Errorf("slot %d's terms out of range", i)
		}
	}
	x.dim = dim // the int8 vectors follow the section (readIndexFile)
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

// metaSize is the least bytes an entry takes in the file.
const metaSize = 8 + 8*4 + 8*3 + 4*3 + 1 + 4

// decodeDocs reads a document mirror from d.
func decodeDocs(d *decoder, strs string, created int64) (*docIndex, error) {
	x := newDocIndex(created)
	x.maxPK, x.facts, x.totalLen = d.i64(), int(d.u64()), d.i64()
	if x.facts < 0 || x.facts > len(d.b) {
		return nil, fmt.Errorf("document mirror of %d facts", x.facts)
	}
	nd := d.count(16)
	x.docs = make([]docEntry, nd)
	x.slot = make(map[string]int32, nd)
	x.at = newFactPlaces(x.facts)
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
		e.facts = make([]string, nf)
		for j := range e.facts {
			e.facts[j] = d.str(strs)
			x.at.set(e.facts[j], factAt{doc: int32(i), pos: int32(j)})
		}
		x.slot[e.id] = int32(i)
	}
	for range d.count(8) {
		x.at.set(d.str(strs), factAt{doc: -1})
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
	if x.at.len() != x.facts {
		return nil, fmt.Errorf("document mirror of %d facts lists %d", x.facts, x.at.len())
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
func (e *encoder) u16(v uint16) { e.b = binary.LittleEndian.AppendUint16(e.b, v) }
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
// and how to read the float32 vectors of its live slots.
type snapshotOf struct {
	h    fileHeader
	body []byte
	// slots are the live slots, whose float32 vectors follow the index
	// section in this order.
	slots []int
	// graph, when not nil, is the graph of the slots it has linked,
	// without the dead ones and numbered as the file's slots; graphN is
	// its nodes.
	graph  *hnsw.Snapshot
	graphN int
}

// encode returns x's live facts (and d's mirror, when d is not nil) as
// an index file's header and index section. The caller holds x.mu and
// d.mu for reading. Dead slots are left out, so the file is what a load
// from the database would make.
func encode(bank string, x *bankIndex, d *docIndex, fp uint64) *snapshotOf {
	e := &encoder{at: make(map[string]uint32, 2*x.live)}
	s := &snapshotOf{h: fileHeader{format: fileFormat, fingerprint: fp, created: x.created, version: x.version, maxPK: x.maxPK, bank: bank}}
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
	nt, total := 0, 0
	for t, ps := range x.postings {
		newTerm[t] = -1
		live := 0
		for _, p := range ps {
			if newSlot[p.slot] >= 0 {
				live++
			}
		}
		if live > 0 {
			newTerm[t] = int32(nt)
			nt++
			total += live
		}
	}
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
	e.u32(uint32(nt))
	e.u32(uint32(total))
	for t, ps := range x.postings {
		if newTerm[t] < 0 {
			continue
		}
		e.str(terms[t])
		at := len(e.b)
		e.u32(0)
		np := 0
		for _, p := range ps {
			if s := newSlot[p.slot]; s >= 0 {
				e.u32(uint32(s))
				e.u16(p.tf)
				np++
			}
		}
		binary.LittleEndian.PutUint32(e.b[at:], uint32(np))
	}
	e.u32(termOff)
	for _, i := range s.slots {
		m := &x.meta[i]
		for _, t := range x.terms[m.termOff : m.termOff+m.termN] {
			e.u32(uint32(newTerm[t]))
		}
	}
	docsAt := len(e.b)
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
	s.h.idxLen = uint64(len(s.body))
	if dim > 0 {
		s.h.qLen = uint64(len(s.slots)) * uint64(dim+4)
	}
	s.h.floatLen = uint64(len(s.slots)) * uint64(dim) * 4
	if dim > 0 {
		s.h.tableLen = uint64(len(s.slots)) * 4
	}
	if a := x.ann; a != nil {
		if done := int(a.done.Load()); done > 0 {
			// An error is a bug of the numbering: the file goes without.
			if g, err := a.g.Snapshot(done, newSlot[:done]); err == nil && g.Nodes() > 0 {
				s.graph, s.graphN, s.h.graphLen = g, g.Nodes(), uint64(g.Len())
			}
		}
	}
	return s
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

// write writes s to a temporary file in dir, mode 0600 (dir is made
// 0700), with the float32 vectors of x's live slots (the caller holds
// x.mu for reading), and returns that file, flushed; the caller closes
// it and renames it into place. stop, when it reports
// true between chunks, abandons the write.
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
	w := bufio.NewWriterSize(f, 256<<10)
	head := appendHeader(nil, &s.h)
	crc := crc32.Update(crc32.Update(0, castagnoli(), head), castagnoli(), s.body)
	if _, err := w.Write(head); err != nil {
		return fail(err)
	}
	if _, err := w.Write(s.body); err != nil {
		return fail(err)
	}
	var table []byte
	if x.dim > 0 {
		// The int8 vectors as the index holds them, then their scales.
		c := &crcWriter{crc: crc}
		if _, err := x.vecs.WriteTo(io.MultiWriter(w, c), s.slots); err != nil {
			return fail(err)
		}
		crc = c.crc
		if s.graph != nil {
			c := &crcWriter{crc: crc}
			n, err := s.graph.WriteTo(io.MultiWriter(w, c))
			if err != nil {
				return fail(err)
			}
			if uint64(n) != s.h.graphLen {
				return fail(fmt.Errorf("graph of %d bytes, %d expected", n, s.h.graphLen))
			}
			crc = c.crc
		}
		// The live slots' vectors, read from the spill file in runs of
		// consecutive slots, each with its checksum.
		size := 4 * x.dim
		table = make([]byte, 0, 4*len(s.slots))
		var raw []byte
		for at := 0; at < len(s.slots); {
			if stop() {
				return fail(errors.New("abandoned"))
			}
			n := 1
			for n < spillChunk && at+n < len(s.slots) && s.slots[at+n] == s.slots[at]+n {
				n++
			}
			if raw, err = x.exact.readRaw(s.slots[at], n, raw[:0]); err != nil {
				return fail(err)
			}
			for i := range n {
				table = binary.LittleEndian.AppendUint32(table, crc32.Checksum(raw[i*size:(i+1)*size], castagnoli()))
			}
			if _, err := w.Write(raw); err != nil {
				return fail(err)
			}
			at += n
		}
	}
	crc = crc32.Update(crc, castagnoli(), table)
	if _, err := w.Write(table); err != nil {
		return fail(err)
	}
	var tr [trailerLen]byte
	binary.LittleEndian.PutUint32(tr[:], crc)
	copy(tr[4:], fileEnd)
	if _, err := w.Write(tr[:]); err != nil {
		return fail(err)
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	return f, nil
}
