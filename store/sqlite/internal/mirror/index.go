package mirror

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/mnemo-ai/mnemo/internal/hnsw"
	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/memory"
)

// bankIndex is one bank's in-process search index: every fact's embedding
// quantized to int8 for a SIMD scan or, in a large bank, an HNSW graph
// (vectors are unit length, so dot = cosine), the float32 originals for an
// exact rescoring of the best candidates, and an inverted index of its
// stemmed words for BM25 with this bank's own statistics. It mirrors the
// file, which stays the source of truth; version is the bank's change
// counter the mirror reflects.
//
// Slots are never reused while the index lives: a removed fact leaves a
// dead slot (skipped by searches) until compaction rebuilds the arrays.
type bankIndex struct {
	mu sync.RWMutex
	// closed: the mirror dropped the index (Close, Drop, or the bank
	// was created again); it loads no more.
	closed  bool
	dim     int
	created int64 // the bank's created_at: its identity across delete and create
	version int64
	// pending counts this process's writes to the bank that may have
	// committed and not yet applied (Mirror.Begin); changed signals a
	// change of version, pending or gap, on mu. gap: a write's Apply
	// came out of order and was dropped, so only a reload catches up.
	pending int
	gap     bool
	changed *sync.Cond
	maxPK   int64
	meta    []indexEntry // by slot
	// state mirrors each slot's liveness, vector, status and sensitivity
	// in one byte, so a scan with the zero filter reads 1 byte a slot
	// instead of its whole entry (measured at 100k facts: the entry walk
	// cost 4× the dot products).
	state []uint8
	// length is each slot's word count, for BM25's length norm.
	length []int32
	// pos finds a live fact's slot by its row, byID by its id, whose
	// hashes idSeed seeds (idHash).
	pos, byID slotTable
	idSeed    uint64
	live      int
	// inactive counts live slots whose status is not active (superseded,
	// archived): while it is 0, no fact of the bank has a history.
	inactive int
	// open counts live slots with a vector, active and not sensitive: the
	// slots the zero filter passes.
	open int

	// vecs holds slot i's vector quantized (zeros for a slot without
	// one); exact holds the float32 originals, for rescoring.
	vecs  *hnsw.Int8Vectors
	exact *exactVectors
	// ann is the HNSW graph over vecs once the bank is large enough,
	// linked in the background by build; nil below the threshold.
	ann *annIndex
	// Settings copied from the mirror's when the index was made.
	floatVectors bool
	annThreshold int
	efSearch     int
	spillDir     string
	// indexDir is where the bank's index file lives ("": none); fp
	// fingerprints this build and schema in it (persist.go).
	indexDir      string
	fp            uint64
	indexReadOnly bool
	// fileVersion is the version of the index file this index knows to
	// be on disk (-1: none); sinceFile counts the facts added, removed
	// or changed since, and saving is set while a goroutine writes the
	// file.
	fileVersion int64
	sinceFile   int
	// fileGraph is the graph's nodes the index file holds (0: none).
	fileGraph int
	saving    bool
	// file is what the index knows of its index file, to append to it
	// (append.go).
	file fileState
	// dirty counts the changes an appended block cannot carry (the slots
	// compacted, a log past its bound): a file made before one is
	// written whole next. statusLog lists the rows whose status changed,
	// delLog the slots whose facts were removed, for the next block.
	dirty     uint64
	statusLog []int64
	delLog    []int32
	// forgets counts the forgets of the bank's facts (Mirror.Forgot): a
	// file encoded before one must not be written.
	forgets int
	// saveTimer is a background write due (saveLater).
	saveTimer *time.Timer
	// mapped is the index file the index was loaded from, mapped into
	// memory (nil: none): its int8 vectors, graph layer 0, postings,
	// term ids and slot tables are read there (persist.go). It is
	// unmapped once nothing reads it (dropMapping, release).
	mapped []byte

	termID map[string]int32
	// terms holds every slot's distinct term ids (for removal), slot i's
	// at meta[i].termOff: one array instead of a slice per fact.
	terms    []int32
	postings [][]posting // by term id
	df       []int32     // live documents per term id
	totalLen int64       // sum of live documents' lengths
}

// posting is one document of a term's list with the term's frequency.
type posting struct {
	slot int32
	tf   uint16
}

// indexEntry is what the index keeps of a fact to search and filter
// without a query. The fact itself stays in the file: Facts reads it.
type indexEntry struct {
	pk        int64
	id        string
	tags      []string
	kind      memory.FactKind
	category  memory.Category
	status    memory.Status
	eventTime int64 // µs; NoTime when unknown
	// createdAt and expiredAt place the fact on the transaction timeline
	// (µs; expiredAt 0 while it has not expired), for as-of filters.
	createdAt, expiredAt int64
	length               int32 // words after stopword removal
	// termOff and termN place the fact's distinct term ids in
	// bankIndex.terms.
	termOff, termN uint32
	dead           bool
	hasVec         bool
	sensitive      bool
}

// newEntry is a fact on its way into the index: its entry, its vector and
// its words counted (prepared outside the index lock, in parallel on load).
type newEntry struct {
	indexEntry
	vec []float32
	// A loaded row's vector comes as its blob (encodeVector's bytes) and
	// quantized, q with its scale, instead of vec: the load's workers
	// quantize, and the blob goes to the spill file as it is.
	blob  []byte
	q     []int8
	scale float32
	words []termCount
	// doc is a loaded row's document id, for the document mirror that
	// shares the load (docIndex.addCounted).
	doc string
	// based: the vector is already in the index's exactVectors base (a
	// block appended to the index file: append.go), q holds it
	// quantized.
	based bool
	// fact is a written fact whose words are still to count
	// (Change.Add, countFact); nil once counted, and for a loaded row.
	fact *memory.Fact
}

// countFact counts the words of e's written fact, if not yet done.
func (e *newEntry) countFact() {
	if e.fact != nil {
		e.count(e.fact.Body())
		e.fact = nil
	}
}

// dim returns the length of e's vector, 0 without one.
func (e *newEntry) dim() int {
	if e.blob != nil {
		return len(e.blob) / 4
	}
	if e.based && e.hasVec {
		return len(e.q)
	}
	return len(e.vec)
}

// termCount is a distinct word of a fact and its frequency there.
type termCount struct {
	term string
	tf   uint16
}

// Bits of bankIndex.state.
const (
	stLive      = 1 << iota // not removed
	stVec                   // has a vector
	stActive                // status active
	stSensitive             // classified sensitive
)

// stOpen is the state of a slot the zero filter passes.
const stOpen = stLive | stVec | stActive

// setState recomputes slot i's state byte from its entry.
func (x *bankIndex) setState(i int) {
	e := &x.meta[i]
	var b uint8
	if !e.dead {
		b |= stLive
	}
	if e.hasVec {
		b |= stVec
	}
	if e.status == memory.StatusActive {
		b |= stActive
	}
	if e.sensitive {
		b |= stSensitive
	}
	for len(x.state) <= i {
		x.state = append(x.state, 0)
		x.length = append(x.length, 0)
	}
	x.inactive += inactive(b) - inactive(x.state[i])
	x.open += isOpen(b) - isOpen(x.state[i])
	x.state[i], x.length[i] = b, e.length
}

// inactive is 1 for the state of a live slot whose status is not active.
func inactive(st uint8) int {
	if st&(stLive|stActive) == stLive {
		return 1
	}
	return 0
}

// isOpen is 1 for the state of a slot the zero filter passes.
func isOpen(st uint8) int {
	if st&(stOpen|stSensitive) == stOpen {
		return 1
	}
	return 0
}

// NoTime marks an entry whose event time is unknown: no time range
// matches it, as no SQL comparison matches NULL.
const NoTime = math.MinInt64

// count sets the entry's words and length from its body.
func (e *newEntry) count(body string) {
	words := lex.Terms(body)
	e.length = int32(len(words))
	e.words = e.words[:0]
	if len(words) > 32 {
		at := make(map[string]int, len(words))
		for _, w := range words {
			if i, ok := at[w]; !ok {
				at[w] = len(e.words)
				e.words = append(e.words, termCount{w, 1})
			} else if e.words[i].tf < math.MaxUint16 {
				e.words[i].tf++
			}
		}
		return
	}
	for _, w := range words {
		i := slices.IndexFunc(e.words, func(c termCount) bool { return c.term == w })
		if i < 0 {
			e.words = append(e.words, termCount{w, 1})
		} else if e.words[i].tf < math.MaxUint16 {
			e.words[i].tf++
		}
	}
}

// internKind and internStatus share the strings of known values, so the
// index holds no copy per fact.
func internKind(k memory.FactKind) memory.FactKind {
	for _, c := range []memory.FactKind{memory.KindWorld, memory.KindExperience} {
		if k == c {
			return c
		}
	}
	return k
}

// knownCategories are the categories internCategory shares.
var knownCategories = memory.Categories()

// internCategory: see internKind.
func internCategory(c memory.Category) memory.Category {
	for _, k := range knownCategories {
		if c == k {
			return k
		}
	}
	return c
}

// internStatus: see internKind.
func internStatus(s memory.Status) memory.Status {
	for _, c := range []memory.Status{memory.StatusActive, memory.StatusSuperseded, memory.StatusArchived} {
		if s == c {
			return c
		}
	}
	return s
}

// newBankIndex returns an empty index that reflects no version yet.
func newBankIndex() *bankIndex {
	x := &bankIndex{termID: map[string]int32{}, version: -1, fileVersion: -1}
	x.changed = sync.NewCond(&x.mu)
	return x
}

// add indexes one fact.
func (x *bankIndex) add(e *newEntry) {
	if _, ok := x.slotOfPK(e.pk); ok {
		return
	}
	slot := int32(len(x.meta))
	dim := e.dim()
	if dim > 0 && x.dim == 0 {
		// The first vector fixes the dimension; earlier slots get zeros.
		x.dim = dim
		x.vecs = hnsw.NewInt8Vectors(x.dim)
		x.exact = newExactVectors(x.dim, x.floatVectors, x.spillDir)
		for range x.meta {
			x.vecs.Append(nil)
			x.exact.append(nil)
		}
	}
	e.hasVec = dim > 0 && dim == x.dim // a mismatch was refused at write time
	switch {
	case x.dim == 0:
	case e.based && !e.hasVec:
		x.vecs.Append(nil)
	case e.based:
		x.vecs.AppendQuantized(e.q, e.scale)
	case !e.hasVec:
		x.vecs.Append(nil)
		x.exact.append(nil)
	case e.blob != nil:
		x.vecs.AppendQuantized(e.q, e.scale)
		x.exact.appendEncoded(e.blob)
	default:
		x.vecs.Append(e.vec)
		x.exact.append(e.vec)
	}
	e.termOff, e.termN = uint32(len(x.terms)), uint32(len(e.words))
	for _, w := range e.words {
		id, ok := x.termID[w.term]
		if !ok {
			id = int32(len(x.postings))
			x.termID[w.term] = id
			x.postings = append(x.postings, nil)
			x.df = append(x.df, 0)
		}
		x.postings[id] = append(x.postings[id], posting{slot, w.tf})
		x.df[id]++
		x.terms = append(x.terms, id)
	}
	x.totalLen += int64(e.length)
	x.meta = append(x.meta, e.indexEntry)
	x.recordSlot(int(slot))
	x.setState(int(slot))
	x.live++
	if e.pk > x.maxPK {
		x.maxPK = e.pk
	}
}

// remove marks a fact's slot dead and takes it out of the statistics.
func (x *bankIndex) remove(pk int64) {
	i, ok := x.slotOfPK(pk)
	if !ok {
		return
	}
	x.forgetSlot(i)
	x.logDelete(i)
	e := &x.meta[i]
	for _, t := range x.terms[e.termOff : e.termOff+e.termN] {
		x.df[t]--
	}
	x.totalLen -= int64(e.length)
	e.dead, e.hasVec, e.termN, e.tags = true, false, 0, nil
	x.setState(i)
	x.live--
}

// compact rebuilds the arrays without dead slots once they are a quarter
// of the index. The graph, whose node ids are slots, starts over.
func (x *bankIndex) compact() {
	dead := len(x.meta) - x.live
	if dead < 64 || dead*4 < len(x.meta) {
		return
	}
	// The slots are renumbered: the file's next write is whole, and the
	// deletions logged by slot go with it.
	x.dirty++
	x.delLog = nil
	old, oldVecs, oldExact, oldANN := x.meta, x.vecs, x.exact, x.ann
	oldSlot := make([]int32, len(old)) // old slot → new slot, -1 if dead
	x.meta, x.state, x.length = make([]indexEntry, 0, x.live), make([]uint8, 0, x.live), make([]int32, 0, x.live)
	x.inactive, x.open = 0, 0 // setState counts the kept slots again
	if x.dim > 0 {
		x.vecs = hnsw.NewInt8Vectors(x.dim)
		x.exact = newExactVectors(x.dim, x.floatVectors, x.spillDir)
	}
	var buf []float32
	var raw []byte
	oldTerms := x.terms
	x.terms = make([]int32, 0, len(oldTerms))
	for i := range old {
		if old[i].dead {
			oldSlot[i] = -1
			continue
		}
		n := len(x.meta)
		oldSlot[i] = int32(n)
		e := old[i]
		e.termOff = uint32(len(x.terms))
		x.terms = append(x.terms, oldTerms[old[i].termOff:old[i].termOff+old[i].termN]...)
		x.meta = append(x.meta, e)
		x.setState(n)
		if x.dim > 0 {
			var err error
			if buf, raw, err = oldExact.read(i, buf, raw); err != nil {
				// The spill file failed: keep the quantized vector, the
				// best left.
				buf = oldVecs.Vector(i, buf)
			}
			if !old[i].hasVec {
				buf = nil
			}
			x.vecs.Append(buf)
			x.exact.append(buf)
		}
	}
	if oldExact != nil {
		if oldExact.bad.Load() {
			x.fileVersion = -1 // the index file failed a checksum: replace it
		}
		oldExact.close()
	}
	for t, ps := range x.postings {
		kept := ps[:0]
		if x.mapped != nil {
			kept = nil // the lists are the index file's: made anew
		}
		for _, p := range ps {
			if s := oldSlot[p.slot]; s >= 0 {
				kept = append(kept, posting{s, p.tf})
			}
		}
		x.postings[t] = kept
	}
	x.reindex()
	x.resetANN()
	x.dropMapping(oldANN) // nothing is read from the file any more
}

// apply applies a committed write's change; the caller holds x.mu.
func (x *bankIndex) apply(c *Change) {
	x.sinceFile += len(c.removed) + len(c.added) + len(c.status)
	for _, pk := range c.removed {
		x.remove(pk)
	}
	for i := range c.added {
		c.added[i].countFact() // a bank loaded since the writer asked Holds
		x.add(&c.added[i])
	}
	for pk, st := range c.status {
		if i, ok := x.slotOfPK(pk); ok {
			x.meta[i].status, x.meta[i].expiredAt = st.status, st.expiredAt
			x.setState(i)
			x.logStatus(pk)
		}
	}
	x.compact()
}

// release stops the index's graph builder and removes its spill file:
// the mirror no longer holds it. A search that took it before goes on
// (a vector the spill file no longer gives keeps its int8 score), so
// the index file it was loaded from stays mapped until x is unreachable;
// no load fills it again.
func (x *bankIndex) release() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.closed = true
	x.changed.Broadcast() // a search waiting for a write gives up
	if x.saveTimer != nil {
		x.saveTimer.Stop()
		x.saveTimer = nil
	}
	a := x.ann
	x.resetANN()
	if x.exact != nil {
		x.exact.close()
	}
	if x.mapped != nil {
		m := mappedFile{b: x.mapped}
		if a != nil && a.started {
			m.builder = a.stopped
		}
		x.mapped = nil
		runtime.AddCleanup(x, mappedFile.unmap, m)
	}
}

// mappedFile is an index file's mapping to release, once the graph
// builder that may be inserting over it (nil: none) has returned.
type mappedFile struct {
	b       []byte
	builder <-chan struct{}
}

// unmap releases the mapping, at once or once the builder has returned.
func (m mappedFile) unmap() {
	if m.builder == nil {
		unmapFile(m.b)
		return
	}
	go func() {
		<-m.builder
		unmapFile(m.b)
	}()
}

// dropMapping unmaps x's index file, which none of x's arrays is in any
// more (they were made anew): at once, or once a, the graph builder just
// halted (nil: none), has returned, as it may be inserting a node over
// the file's vectors. The caller holds x.mu.
func (x *bankIndex) dropMapping(a *annIndex) {
	m := mappedFile{b: x.mapped}
	x.mapped = nil
	if m.b == nil {
		return
	}
	if a != nil && a.started {
		m.builder = a.stopped
	}
	m.unmap()
}

// clear empties x for a load from the rows, its contents (from an index
// file) not being the database's; the caller holds x.mu.
func (x *bankIndex) clear() {
	a := x.ann
	x.resetANN()
	if x.exact != nil {
		x.exact.close()
	}
	x.dim, x.version, x.maxPK, x.totalLen = 0, -1, 0, 0
	x.meta, x.state, x.length, x.terms, x.postings, x.df = nil, nil, nil, nil, nil, nil
	x.pos, x.byID, x.termID = slotTable{}, slotTable{}, map[string]int32{}
	x.live, x.inactive, x.open = 0, 0, 0
	x.vecs, x.exact = nil, nil
	x.fileVersion, x.sinceFile, x.fileGraph = -1, 0, 0
	x.file, x.statusLog, x.delLog = fileState{}, nil, nil
	x.dirty++
	x.dropMapping(a)
}

// adopt takes y's contents, a whole index read from the bank's index
// file, as x's own; the caller holds x.mu. x's lock, waiters and
// settings stay.
func (x *bankIndex) adopt(y *bankIndex) {
	x.dim, x.version, x.maxPK = y.dim, y.version, y.maxPK
	x.meta, x.state, x.length, x.pos, x.byID, x.idSeed = y.meta, y.state, y.length, y.pos, y.byID, y.idSeed
	x.mapped, y.mapped = y.mapped, nil
	x.live, x.inactive, x.open = y.live, y.inactive, y.open
	x.vecs, x.exact = y.vecs, y.exact
	x.termID, x.terms, x.postings, x.df, x.totalLen = y.termID, y.terms, y.postings, y.df, y.totalLen
}

// id returns the id of the fact in slot i.
func (x *bankIndex) id(i int) string { return x.meta[i].id }
