package sqlite

import (
	"container/heap"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/viterin/vek/vek32"
)

// BM25 constants (Okapi BM25 as in Lucene and PROTOCOL §2.2).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// bankIndex is one bank's in-process search index: every fact's embedding
// for an exact SIMD scan (vectors are unit length, so dot = cosine) and an
// inverted index of its stemmed words for BM25 with this bank's own
// statistics. It mirrors the file, which stays the source of truth;
// version is the bank's change counter the mirror reflects.
//
// Slots are never reused while the index lives: a removed fact leaves a
// dead slot (skipped by searches) until compaction rebuilds the arrays.
type bankIndex struct {
	mu      sync.RWMutex
	dim     int
	created int64 // the bank's created_at: its identity across delete and create
	version int64
	// lifeGen is the generation of the lifecycle columns cached in the
	// entries: an entry's are current only when its lifeGen equals it.
	// Any lifecycle change the index cannot follow starts a generation.
	lifeGen int64
	// accessVersion is the bank's access counter the cache reflects.
	accessVersion int64
	maxPK         int64
	meta          []indexEntry // by slot
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

	// vecs holds slot i's vector at vecs[i/vecBlock][(i%vecBlock)*dim:]:
	// contiguous blocks for the scan, without the copy of a growing slice.
	vecs [][]float32

	termID   map[string]int32
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
// without a query.
type indexEntry struct {
	pk        int64
	id        string
	vec       []float32 // only while being added
	hasVec    bool
	terms     []int32 // distinct term ids, for removal
	length    int32   // words after stopword removal
	dead      bool
	kind      memory.FactKind
	status    memory.Status
	sensitive bool
	eventTime int64 // µs; noTime when unknown
	// createdAt and expiredAt place the fact on the transaction timeline
	// (µs; expiredAt 0 while it has not expired), for as-of filters.
	createdAt, expiredAt int64
	tags                 []string
	body                 string // only while being added
	// fact is the fact without its embedding. Its lifecycle columns are
	// current only while lifeGen equals the index's.
	fact    *memory.Fact
	lifeGen int64
}

// vecBlock is the number of vectors per block of bankIndex.vecs.
const vecBlock = 4096

// vector returns slot i's vector.
func (x *bankIndex) vector(i int) []float32 {
	b := x.vecs[i/vecBlock]
	o := (i % vecBlock) * x.dim
	return b[o : o+x.dim : o+x.dim]
}

// appendVector stores slot i's vector (zeros when v is nil).
func (x *bankIndex) appendVector(i int, v []float32) {
	if i%vecBlock == 0 {
		x.vecs = append(x.vecs, make([]float32, 0, vecBlock*x.dim))
	}
	b := &x.vecs[i/vecBlock]
	if v == nil {
		*b = append(*b, make([]float32, x.dim)...)
	} else {
		*b = append(*b, v...)
	}
}

// Bits of bankIndex.state.
const (
	stLive      = 1 << iota // not removed
	stVec                   // has a vector
	stActive                // status active
	stSensitive             // classified sensitive
)

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
	x.state[i], x.length[i] = b, e.length
}

// inactive is 1 for the state of a live slot whose status is not active.
func inactive(st uint8) int {
	if st&(stLive|stActive) == stLive {
		return 1
	}
	return 0
}

// noTime marks an entry whose event time is unknown: no time range
// matches it, as no SQL comparison matches NULL.
const noTime = math.MinInt64

func newIndexEntry(pk int64, f *memory.Fact) indexEntry {
	snap := *f
	snap.Embedding = nil
	snap.Tags = slices.Clone(f.Tags)
	e := indexEntry{
		pk: pk, id: f.ID, vec: f.Embedding, kind: f.Kind, status: f.Status,
		sensitive: f.Sensitivity == memory.SensitivitySensitive,
		eventTime: noTime, tags: snap.Tags, body: ftsBody(f), fact: &snap,
	}
	if t := f.EventTime(); !t.IsZero() {
		e.eventTime = t.UnixMicro()
	}
	e.createdAt = f.CreatedAt.UnixMicro()
	if !f.ExpiredAt.IsZero() {
		e.expiredAt = f.ExpiredAt.UnixMicro()
	}
	return e
}

func newBankIndex() *bankIndex {
	return &bankIndex{pos: map[int64]int{}, byID: map[string]int{}, termID: map[string]int32{}, version: -1, lifeGen: 1}
}

// add indexes one fact.
func (x *bankIndex) add(e indexEntry) {
	if _, ok := x.pos[e.pk]; ok {
		return
	}
	slot := int32(len(x.meta))
	if len(e.vec) > 0 && x.dim == 0 {
		// The first vector fixes the dimension; earlier slots get zeros.
		x.dim = len(e.vec)
		for i := range x.meta {
			x.appendVector(i, nil)
		}
	}
	if len(e.vec) > 0 && len(e.vec) == x.dim {
		e.hasVec = true // a mismatch was refused at write time
	} else {
		e.vec = nil
	}
	if x.dim > 0 {
		x.appendVector(int(slot), e.vec)
	}
	e.vec = nil
	words := lex.Terms(e.body)
	e.body = ""
	e.length = int32(len(words))
	counts := make(map[string]uint16, len(words))
	for _, w := range words {
		if counts[w] < math.MaxUint16 {
			counts[w]++
		}
	}
	e.terms = make([]int32, 0, len(counts))
	for w, tf := range counts {
		id, ok := x.termID[w]
		if !ok {
			id = int32(len(x.postings))
			x.termID[w] = id
			x.postings = append(x.postings, nil)
			x.df = append(x.df, 0)
		}
		x.postings[id] = append(x.postings[id], posting{slot, tf})
		x.df[id]++
		e.terms = append(e.terms, id)
	}
	x.totalLen += int64(e.length)
	x.pos[e.pk] = int(slot)
	x.byID[e.id] = int(slot)
	e.lifeGen = x.lifeGen // written or read just now
	x.meta = append(x.meta, e)
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
	for _, t := range e.terms {
		x.df[t]--
	}
	x.totalLen -= int64(e.length)
	e.dead, e.hasVec, e.terms, e.fact = true, false, nil, nil
	x.setState(i)
	delete(x.pos, pk)
	delete(x.byID, e.id)
	x.live--
}

// compact rebuilds the arrays without dead slots once they are a quarter
// of the index.
func (x *bankIndex) compact() {
	dead := len(x.meta) - x.live
	if dead < 64 || dead*4 < len(x.meta) {
		return
	}
	old, oldVecs := x.meta, x.vecs
	oldSlot := make([]int32, len(old)) // old slot → new slot, -1 if dead
	x.meta, x.vecs, x.state, x.length = make([]indexEntry, 0, x.live), nil, make([]uint8, 0, x.live), make([]int32, 0, x.live)
	x.inactive = 0 // setState counts the kept slots again
	for i := range old {
		if old[i].dead {
			oldSlot[i] = -1
			continue
		}
		n := len(x.meta)
		oldSlot[i] = int32(n)
		x.pos[old[i].pk] = n
		x.byID[old[i].id] = n
		x.meta = append(x.meta, old[i])
		x.setState(n)
		if x.dim > 0 {
			o := (i % vecBlock) * x.dim
			x.appendVector(n, oldVecs[i/vecBlock][o:o+x.dim])
		}
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
}

func (x *bankIndex) apply(c *indexChange) {
	for _, pk := range c.removed {
		x.remove(pk)
	}
	for _, e := range c.added {
		x.add(e)
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
	if c.lifecycle {
		x.lifeGen++ // reinforcements and supersessions: reread
	}
}

// index returns the bank's search index, loading or refreshing it from the
// file when it does not reflect the bank's current version.
func (s *Store) index(ctx context.Context, bank string) (*bankIndex, error) {
	var version, created, access int64
	err := s.rdb.QueryRowContext(ctx, `SELECT version, created_at, access_version FROM banks WHERE id = ?`, bank).Scan(&version, &created, &access)
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
		x = newBankIndex()
		x.created = created
		s.indexes[bank] = x
	}
	s.mu.Unlock()

	x.mu.RLock()
	fresh := x.version == version && x.accessVersion == access
	x.mu.RUnlock()
	if fresh {
		return x, nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.accessVersion != access {
		// Accesses recorded elsewhere: cached counts are void.
		x.accessVersion = access
		x.lifeGen++
	}
	if x.version == version {
		return x, nil
	}
	if err := s.refresh(ctx, bank, x); err != nil {
		return nil, fmt.Errorf("load search index of bank %s: %w", bank, err)
	}
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
	x.lifeGen++ // another writer may have changed any fact's lifecycle
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
				x.meta[i].status, x.meta[i].expiredAt = memory.Status(st), expired
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
	rows, err := tx.QueryContext(ctx, `SELECT pk, embedding, `+factColumns+` FROM facts WHERE bank_id = ? AND pk > ? ORDER BY pk`, bank, x.maxPK)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var pk int64
		var blob []byte
		f, err := scanFact(bank, rows, &pk, &blob)
		if err != nil {
			return err
		}
		if len(blob) > 0 {
			f.Embedding = decodeVector(make([]float32, 0, len(blob)/4), blob)
		}
		x.add(newIndexEntry(pk, f))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	x.compact()
	x.version = version
	return nil
}

// SearchVector implements memory.Store with an exact scan.
func (s *Store) SearchVector(ctx context.Context, bankID string, vec []float32, k int, f memory.Filter) ([]memory.Hit, error) {
	x, err := s.index(ctx, bankID)
	if err != nil {
		return nil, err
	}
	if k <= 0 {
		return nil, nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.dim == 0 {
		return nil, nil
	}
	if len(vec) != x.dim {
		return nil, memory.Errorf(memory.EINVALID, "query vector has dimension %d, bank %q holds dimension %d", len(vec), bankID, x.dim)
	}
	m := newMatcher(f)
	h := make(hitHeap, 0, k+1)
	for i, st := range x.state {
		if m.simple {
			if st&(stLive|stVec|stActive|stSensitive) != stLive|stVec|stActive {
				continue
			}
		} else if st&(stLive|stVec) != stLive|stVec || !m.match(&x.meta[i]) {
			continue
		}
		h.offer(k, scored{i, float64(vek32.Dot(vec, x.vector(i)))})
	}
	return h.hits(x), nil
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
