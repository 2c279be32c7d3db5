package sqlite

import (
	"cmp"
	"container/heap"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/mnemo-ai/mnemo/internal/hnsw"
	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/memory"
)

// BM25 constants (Okapi BM25 as in Lucene and PROTOCOL §2.2).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
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
	mu      sync.RWMutex
	dim     int
	created int64 // the bank's created_at: its identity across delete and create
	version int64
	maxPK   int64
	meta    []indexEntry // by slot
	// state mirrors each slot's liveness, vector, status and sensitivity
	// in one byte, so a scan with the zero filter reads 1 byte a slot
	// instead of its whole entry (measured at 100k facts: the entry walk
	// cost 4× the dot products).
	state []uint8
	// length is each slot's word count, for BM25's length norm.
	length []int32
	pos    map[int64]int // fact pk → slot
	byID   map[string]int
	live   int
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
	// Settings copied from the Store when the index was made.
	floatVectors bool
	annThreshold int
	efSearch     int
	spillDir     string

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
	status    memory.Status
	eventTime int64 // µs; noTime when unknown
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
}

// dim returns the length of e's vector, 0 without one.
func (e *newEntry) dim() int {
	if e.blob != nil {
		return len(e.blob) / 4
	}
	return len(e.vec)
}

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

func isOpen(st uint8) int {
	if st&(stOpen|stSensitive) == stOpen {
		return 1
	}
	return 0
}

// noTime marks an entry whose event time is unknown: no time range
// matches it, as no SQL comparison matches NULL.
const noTime = math.MinInt64

// newIndexEntry prepares a fact just written for the index.
func newIndexEntry(pk int64, f *memory.Fact) newEntry {
	e := newEntry{indexEntry: indexEntry{
		pk: pk, id: f.ID, kind: internKind(f.Kind), status: internStatus(f.Status),
		sensitive: f.Sensitivity == memory.SensitivitySensitive,
		eventTime: noTime, tags: slices.Clone(f.Tags),
	}, vec: f.Embedding}
	if t := f.EventTime(); !t.IsZero() {
		e.eventTime = t.UnixMicro()
	}
	e.createdAt = f.CreatedAt.UnixMicro()
	if !f.ExpiredAt.IsZero() {
		e.expiredAt = f.ExpiredAt.UnixMicro()
	}
	e.count(ftsBody(f))
	return e
}

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

func internStatus(s memory.Status) memory.Status {
	for _, c := range []memory.Status{memory.StatusActive, memory.StatusSuperseded, memory.StatusArchived} {
		if s == c {
			return c
		}
	}
	return s
}

func newBankIndex() *bankIndex {
	return &bankIndex{pos: map[int64]int{}, byID: map[string]int{}, termID: map[string]int32{}, version: -1}
}

// add indexes one fact.
func (x *bankIndex) add(e *newEntry) {
	if _, ok := x.pos[e.pk]; ok {
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
	x.pos[e.pk] = int(slot)
	x.byID[e.id] = int(slot)
	x.meta = append(x.meta, e.indexEntry)
	x.setState(int(slot))
	x.live++
	if e.pk > x.maxPK {
		x.maxPK = e.pk
	}
}

// remove marks a fact's slot dead and takes it out of the statistics.
func (x *bankIndex) remove(pk int64) {
	i, ok := x.pos[pk]
	if !ok {
		return
	}
	e := &x.meta[i]
	for _, t := range x.terms[e.termOff : e.termOff+e.termN] {
		x.df[t]--
	}
	x.totalLen -= int64(e.length)
	e.dead, e.hasVec, e.termN, e.tags = true, false, 0, nil
	x.setState(i)
	delete(x.pos, pk)
	delete(x.byID, e.id)
	x.live--
}

// compact rebuilds the arrays without dead slots once they are a quarter
// of the index. The graph, whose node ids are slots, starts over.
func (x *bankIndex) compact() {
	dead := len(x.meta) - x.live
	if dead < 64 || dead*4 < len(x.meta) {
		return
	}
	old, oldVecs, oldExact := x.meta, x.vecs, x.exact
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
		x.pos[old[i].pk] = n
		x.byID[old[i].id] = n
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
		oldExact.close()
	}
	for t, ps := range x.postings {
		kept := ps[:0]
		for _, p := range ps {
			if s := oldSlot[p.slot]; s >= 0 {
				kept = append(kept, posting{s, p.tf})
			}
		}
		x.postings[t] = kept
	}
	x.resetANN()
}

func (x *bankIndex) apply(c *indexChange) {
	for _, pk := range c.removed {
		x.remove(pk)
	}
	for i := range c.added {
		x.add(&c.added[i])
	}
	for pk, st := range c.status {
		if i, ok := x.pos[pk]; ok {
			x.meta[i].status, x.meta[i].expiredAt = st.status, st.expiredAt
			x.setState(i)
		}
	}
	x.compact()
}

// applyIndexChange brings a loaded index up to date with a write this
// process just committed. If the index missed another writer's change in
// between, it is left stale and refreshed before the next search.
func (s *Store) applyIndexChange(bank string, version int64, c *indexChange) {
	s.mu.Lock()
	x := s.indexes[bank]
	s.mu.Unlock()
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.version != version-1 {
		return
	}
	x.apply(c)
	x.version = version
	s.maybeBuild(x)
}

// index returns the bank's search index, loading or refreshing it from the
// file when it does not reflect the bank's current version.
func (s *Store) index(ctx context.Context, bank string) (*bankIndex, error) {
	var version, created int64
	err := s.rdb.QueryRowContext(ctx, `SELECT version, created_at FROM banks WHERE id = ?`, bank).Scan(&version, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, unknownBank(bank)
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	x := s.indexes[bank]
	if x == nil || x.created != created {
		// New, or the bank was deleted and created again (by another
		// process): its versions start over, so the old mirror is void.
		if x != nil {
			x.close()
		}
		x = newBankIndex()
		x.created = created
		x.floatVectors = s.FloatVectors
		x.annThreshold = s.ANNThreshold
		x.efSearch = cmp.Or(s.EfSearch, hnsw.DefaultEfSearch)
		x.spillDir = filepath.Dir(s.path)
		s.indexes[bank] = x
	}
	s.mu.Unlock()

	x.mu.RLock()
	fresh := x.version == version
	x.mu.RUnlock()
	if fresh {
		return x, nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.version == version {
		return x, nil
	}
	before := len(x.meta)
	if err := s.refresh(ctx, bank, x); err != nil {
		return nil, fmt.Errorf("load search index of bank %s: %w", bank, err)
	}
	if len(x.meta)-before >= freeAfterLoad {
		// Loading left the rows read (vectors as float32 blobs, text) as
		// garbage of about twice the index's size: hand it back to the OS
		// now rather than over the scavenger's minutes.
		go debug.FreeOSMemory()
	}
	s.maybeBuild(x)
	return x, nil
}

// refresh brings x in line with the file: it drops facts that are gone,
// updates statuses and loads facts added since the index last looked. The
// caller holds x.mu. The version is read in the same read transaction as
// the rows, so the index never claims a version newer than its contents.
func (s *Store) refresh(ctx context.Context, bank string, x *bankIndex) error {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version int64
	if err := tx.QueryRowContext(ctx, `SELECT version FROM banks WHERE id = ?`, bank).Scan(&version); err != nil {
		return err
	}
	if x.version >= 0 && x.live > 0 {
		rows, err := tx.QueryContext(ctx, `SELECT pk, status, coalesce(expired_at, 0) FROM facts WHERE bank_id = ? AND pk <= ?`, bank, x.maxPK)
		if err != nil {
			return err
		}
		seen := make(map[int64]bool, x.live)
		for rows.Next() {
			var pk, expired int64
			var st string
			if err := rows.Scan(&pk, &st, &expired); err != nil {
				rows.Close()
				return err
			}
			seen[pk] = true
			if i, ok := x.pos[pk]; ok {
				x.meta[i].status, x.meta[i].expiredAt = internStatus(memory.Status(st)), expired
				x.setState(i)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for pk := range x.pos {
			if !seen[pk] {
				x.remove(pk)
			}
		}
	}
	add := x.add
	var d *docIndex
	if x.maxPK == 0 {
		// A first load: the document mirror, if it has not loaded yet,
		// takes the same rows and their words counted rather than scan and
		// count them again beside this load (at 100k facts, each scan and
		// count was a fifth of the first recall).
		if d = s.joinDocLoad(bank, x.created); d != nil {
			defer d.mu.Unlock()
			defer func() {
				if d.version < 0 {
					d.reset() // the load failed: the mirror loads on its own
				}
			}()
			add = func(e *newEntry) {
				x.add(e)
				d.addCounted(e.pk, e.id, e.doc, e.words, e.length)
			}
		}
	}
	if err := loadEntries(ctx, tx, bank, x.maxPK, add); err != nil {
		return err
	}
	x.compact()
	x.version = version
	if d != nil {
		d.version = version
	}
	return nil
}

// freeAfterLoad is the rows a load must add before it returns the memory
// it freed to the OS.
const freeAfterLoad = 10_000

// loadBatch is how many rows loadEntries hands a worker at once.
const loadBatch = 512

// loadEntries reads the facts of a bank with pk > after, in pk order, and
// hands each to add, prepared: the words are counted and the vector
// decoded by GOMAXPROCS workers while the rows are read.
func loadEntries(ctx context.Context, tx *sql.Tx, bank string, after int64, add func(*newEntry)) error {
	rows, err := tx.QueryContext(ctx, `SELECT pk, id, kind, status, sensitivity, tags, coalesce(event_time, ?), coalesce(created_at, 0),
		coalesce(expired_at, 0), speaker, text, embedding, document_id FROM facts WHERE bank_id = ? AND pk > ? ORDER BY pk`, int64(noTime), bank, after)
	if err != nil {
		return err
	}
	defer rows.Close()
	type batch struct {
		rows  []rawEntry
		out   []newEntry
		ready chan struct{}
	}
	work := make(chan *batch, 4)
	ordered := make(chan *batch, 16)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []float32
			for b := range work {
				b.out = make([]newEntry, len(b.rows))
				for i := range b.rows {
					b.rows[i].prepare(&b.out[i], &buf)
				}
				b.rows = nil
				close(b.ready)
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for b := range ordered {
			<-b.ready
			for i := range b.out {
				add(&b.out[i])
			}
		}
	}()
	var readErr error
	cur := &batch{ready: make(chan struct{})}
	send := func() {
		ordered <- cur
		work <- cur
		cur = &batch{ready: make(chan struct{})}
	}
	for rows.Next() {
		var r rawEntry
		if readErr = rows.Scan(&r.pk, &r.id, &r.kind, &r.status, &r.sensitivity, &r.tags, &r.eventTime, &r.createdAt,
			&r.expiredAt, &r.speaker, &r.text, &r.blob, &r.doc); readErr != nil {
			break
		}
		cur.rows = append(cur.rows, r)
		if len(cur.rows) == loadBatch {
			send()
		}
	}
	if readErr == nil && len(cur.rows) > 0 {
		send()
	}
	close(work)
	close(ordered)
	wg.Wait()
	<-done
	if readErr != nil {
		return readErr
	}
	return rows.Err()
}

// rawEntry is one fact row as loadEntries reads it.
type rawEntry struct {
	pk                              int64
	id, kind, status, sensitivity   string
	tags, speaker, text, doc        string
	eventTime, createdAt, expiredAt int64
	blob                            []byte
}

// prepare parses r into e; buf is the worker's scratch space for a
// decoded vector.
func (r *rawEntry) prepare(e *newEntry, buf *[]float32) {
	e.pk, e.id, e.doc = r.pk, r.id, r.doc
	e.kind, e.status = internKind(memory.FactKind(r.kind)), internStatus(memory.Status(r.status))
	e.sensitive = r.sensitivity == string(memory.SensitivitySensitive)
	e.eventTime, e.createdAt, e.expiredAt = r.eventTime, r.createdAt, r.expiredAt
	if r.tags != "[]" && r.tags != "" {
		// Tags that do not parse filter as no tags: the fact stays findable.
		_ = unmarshalJSON(r.tags, &e.tags)
	}
	if n := len(r.blob) / 4; n > 0 {
		*buf = decodeVector((*buf)[:0], r.blob[:4*n])
		e.blob, e.q = r.blob[:4*n], make([]int8, n)
		e.scale = hnsw.Quantize(e.q, *buf)
	}
	body := r.text
	if r.speaker != "" {
		body = r.speaker + ": " + r.text
	}
	e.count(body)
}

// SearchText implements memory.Store: Okapi BM25 (k1 1.2, b 0.75, Lucene
// IDF) over the words of each fact's speaker and text, stemmed (Porter2)
// with stopwords dropped, with the bank's own statistics. Terms are plain
// words: nothing in them is ever read as query syntax.
func (s *Store) SearchText(ctx context.Context, bankID string, terms []string, k int, f memory.Filter) ([]memory.Hit, error) {
	x, err := s.index(ctx, bankID)
	if err != nil {
		return nil, err
	}
	if k <= 0 || len(terms) == 0 {
		return nil, nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.live == 0 {
		return nil, nil
	}
	var ids []int32
	seen := map[int32]bool{}
	for _, t := range terms {
		for _, w := range lex.Terms(t) {
			if id, ok := x.termID[w]; ok && !seen[id] && x.df[id] > 0 {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	n := float64(x.live)
	avg := float64(x.totalLen) / n
	// Accumulate in a dense array (a map costs more than the scoring), and
	// remember which slots were touched.
	buf := scorePool.Get().(*scoreBuf)
	defer scorePool.Put(buf)
	if cap(buf.score) < len(x.meta) {
		buf.score = make([]float64, len(x.meta))
	}
	scores := buf.score[:len(x.meta)]
	touched := buf.touched[:0]
	for _, id := range ids {
		df := float64(x.df[id])
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range x.postings[id] {
			if x.state[p.slot]&stLive == 0 {
				continue
			}
			tf := float64(p.tf)
			norm := bm25K1
			if avg > 0 {
				norm = bm25K1 * (1 - bm25B + bm25B*float64(x.length[p.slot])/avg)
			}
			if scores[p.slot] == 0 {
				touched = append(touched, p.slot)
			}
			scores[p.slot] += idf * tf * (bm25K1 + 1) / (tf + norm)
		}
	}
	m := newMatcher(f)
	h := make(hitHeap, 0, k+1)
	for _, slot := range touched {
		sc := scores[slot]
		scores[slot] = 0 // leave the buffer clean for the next search
		if m.simple {
			if x.state[slot]&(stLive|stActive|stSensitive) != stLive|stActive {
				continue
			}
		} else if !m.match(&x.meta[slot]) {
			continue
		}
		h.offer(k, scored{int(slot), sc})
	}
	buf.touched = touched
	return h.hits(x), nil
}

// scoreBuf is SearchText's scratch space, reused across searches.
type scoreBuf struct {
	score   []float64
	touched []int32
}

var scorePool = sync.Pool{New: func() any { return new(scoreBuf) }}

// matcher evaluates a memory.Filter against index entries.
type matcher struct {
	f        memory.Filter
	statuses []memory.Status
	timed    bool // a time range is set
	from, to int64
	asOf     int64 // µs; 0: now
	// simple: the zero filter (active, not sensitive), checked without
	// looking at slices.
	simple bool
}

func newMatcher(f memory.Filter) matcher {
	m := matcher{f: f, statuses: f.Statuses, from: math.MinInt64, to: math.MaxInt64}
	if len(m.statuses) == 0 {
		m.statuses = []memory.Status{memory.StatusActive}
	}
	if !f.From.IsZero() {
		m.from, m.timed = f.From.UnixMicro(), true
	}
	if !f.To.IsZero() {
		m.to, m.timed = f.To.UnixMicro(), true
	}
	if !f.AsOf.IsZero() {
		m.asOf = f.AsOf.UnixMicro()
	}
	m.simple = len(f.Statuses) == 0 && len(f.Kinds) == 0 && len(f.Tags) == 0 && !m.timed && !f.Sensitive && m.asOf == 0
	return m
}

func (m *matcher) match(e *indexEntry) bool {
	if e.dead {
		return false
	}
	if m.simple {
		return e.status == memory.StatusActive && !e.sensitive
	}
	if m.timed && (e.eventTime == noTime || e.eventTime < m.from || e.eventTime >= m.to) {
		return false
	}
	if e.sensitive && !m.f.Sensitive {
		return false
	}
	status := e.status
	if m.asOf != 0 {
		// What was known then (memory.KnownAt), as it stood then
		// (memory.StatusAt).
		if e.createdAt > m.asOf || (e.expiredAt != 0 && e.expiredAt <= m.asOf) {
			return false
		}
		if status == memory.StatusSuperseded && e.expiredAt > m.asOf {
			status = memory.StatusActive
		}
	}
	if !slices.Contains(m.statuses, status) {
		return false
	}
	if len(m.f.Kinds) > 0 && !slices.Contains(m.f.Kinds, e.kind) {
		return false
	}
	if len(m.f.Tags) > 0 && !slices.ContainsFunc(m.f.Tags, func(t string) bool { return slices.Contains(e.tags, t) }) {
		return false
	}
	return true
}

type scored struct {
	slot  int
	score float64
}

// hitHeap keeps the best k of what it is offered: a min-heap on score in
// which, among equal scores, the later slot (newer fact) is the smaller,
// so earlier facts win ties deterministically.
type hitHeap []scored

func (h hitHeap) Len() int { return len(h) }
func (h hitHeap) Less(a, b int) bool {
	if h[a].score != h[b].score {
		return h[a].score < h[b].score
	}
	return h[a].slot > h[b].slot
}
func (h hitHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *hitHeap) Push(v any)   { *h = append(*h, v.(scored)) }
func (h *hitHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}

func (h *hitHeap) offer(k int, s scored) {
	if len(*h) < k {
		heap.Push(h, s)
		return
	}
	top := (*h)[0]
	if s.score > top.score || (s.score == top.score && s.slot < top.slot) {
		(*h)[0] = s
		heap.Fix(h, 0)
	}
}

// hits empties the heap into hits, best first.
func (h *hitHeap) hits(x *bankIndex) []memory.Hit {
	out := make([]memory.Hit, h.Len())
	for j := len(out) - 1; j >= 0; j-- {
		top := heap.Pop(h).(scored)
		out[j] = memory.Hit{ID: x.meta[top.slot].id, Score: top.score}
	}
	return out
}
