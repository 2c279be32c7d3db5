package sqlite

import (
	"container/heap"
	"context"
	"database/sql"
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"
	"weak"

	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.DocumentSearcher = (*Store)(nil)

// docIndex is one bank's in-process mirror of its documents: each
// document's facts in Seq order, for Neighbours, and an inverted index of
// the documents' words, for SearchDocuments. It holds every fact whatever
// its status (both reads take the document as it was written) and, like
// bankIndex, reflects the bank's version: a write adds the facts stored
// since (pk order is Seq order and only grows), a write that removed facts
// (a document replaced) makes it load the bank again.
type docIndex struct {
	mu       sync.RWMutex
	created  int64
	version  int64 // -1 until loaded
	maxPK    int64
	facts    int               // facts mirrored
	at       map[string]factAt // fact id → its place
	docs     []docEntry        // by slot, in the order first stored
	slot     map[string]int32  // document id → slot
	termID   map[string]int32
	postings [][]docPosting // by term id
	totalLen int64          // words of all documents
}

// factAt is a fact's document slot (-1: none) and position in it.
type factAt struct {
	doc, pos int32
}

type docEntry struct {
	id     string
	facts  []string // ids in Seq order
	length int32    // words after stopword removal
}

type docPosting struct {
	doc int32
	tf  int32
}

func newDocIndex(created int64) *docIndex {
	x := &docIndex{created: created}
	x.reset()
	return x
}

// reset empties x for a load from scratch.
func (x *docIndex) reset() {
	x.version, x.maxPK, x.facts, x.totalLen = -1, 0, 0, 0
	x.at, x.slot, x.termID = map[string]factAt{}, map[string]int32{}, map[string]int32{}
	x.docs, x.postings = nil, nil
}

// add mirrors one fact; facts come in pk order.
func (x *docIndex) add(pk int64, id, doc, body string) {
	if doc == "" {
		x.addCounted(pk, id, doc, nil, 0)
		return
	}
	var e newEntry
	e.count(body)
	x.addCounted(pk, id, doc, e.words, e.length)
}

// addCounted mirrors one fact whose words newEntry.count counted, length
// of them in all; facts come in pk order.
func (x *docIndex) addCounted(pk int64, id, doc string, words []termCount, length int32) {
	x.maxPK = max(x.maxPK, pk)
	x.facts++
	if doc == "" {
		x.at[id] = factAt{doc: -1}
		return
	}
	d, ok := x.slot[doc]
	if !ok {
		d = int32(len(x.docs))
		x.slot[doc] = d
		x.docs = append(x.docs, docEntry{id: doc})
	}
	e := &x.docs[d]
	x.at[id] = factAt{doc: d, pos: int32(len(e.facts))}
	e.facts = append(e.facts, id)
	e.length += length
	x.totalLen += int64(length)
	for _, w := range words {
		t, ok := x.termID[w.term]
		if !ok {
			t = int32(len(x.postings))
			x.termID[w.term] = t
			x.postings = append(x.postings, nil)
		}
		ps := x.postings[t]
		// A document's facts are written together, so its posting is
		// nearly always the last one: look only a few back (walking a
		// common term's whole list for every new document was quadratic:
		// 31 s to load a 1M-fact bank).
		i := len(ps) - 1
		for stop := max(len(ps)-docPostingLookback, 0); i >= stop && ps[i].doc != d; i-- {
		}
		if i >= 0 && ps[i].doc == d {
			ps[i].tf += int32(w.tf)
		} else {
			x.postings[t] = append(ps, docPosting{doc: d, tf: int32(w.tf)})
		}
	}
}

// docPostingLookback is how many of a term's latest postings add looks
// through for the fact's document before starting a new posting.
const docPostingLookback = 8

// docIndexes holds each open Store's mirrors (weak.Pointer[Store] →
// *docIndexSet); an entry goes when its Store is collected.
var docIndexes sync.Map

type docIndexSet struct {
	mu    sync.Mutex
	banks map[string]*docIndex
}

func (s *Store) docIndexSet() *docIndexSet {
	key := weak.Make(s)
	if v, ok := docIndexes.Load(key); ok {
		return v.(*docIndexSet)
	}
	v, loaded := docIndexes.LoadOrStore(key, &docIndexSet{banks: map[string]*docIndex{}})
	if !loaded {
		runtime.AddCleanup(s, func(k weak.Pointer[Store]) { docIndexes.Delete(k) }, key)
	}
	return v.(*docIndexSet)
}

// bank returns the mirror of the bank created at created, a new one if
// the set has none or one of a bank since deleted and created again.
func (set *docIndexSet) bank(bank string, created int64) *docIndex {
	set.mu.Lock()
	defer set.mu.Unlock()
	x := set.banks[bank]
	if x == nil || x.created != created {
		x = newDocIndex(created)
		set.banks[bank] = x
	}
	return x
}

// joinDocLoad returns the bank's document mirror write-locked if it has
// never loaded and no one is loading it, for a first load of the search
// index to fill it from the same rows; nil otherwise.
func (s *Store) joinDocLoad(bank string, created int64) *docIndex {
	x := s.docIndexSet().bank(bank, created)
	if !x.mu.TryLock() {
		return nil
	}
	if x.version >= 0 || x.facts > 0 {
		x.mu.Unlock()
		return nil
	}
	return x
}

// docs returns the bank's document mirror, brought up to date with the
// file, read-locked: the caller must RUnlock it.
func (s *Store) docs(ctx context.Context, bank string) (*docIndex, error) {
	if !s.docsLoaded(bank) {
		// The search index's first load fills the mirror too
		// (joinDocLoad): one scan of the bank instead of two.
		if _, err := s.index(ctx, bank); err != nil {
			return nil, err
		}
	}
	var version, created int64
	err := s.rdb.QueryRowContext(ctx, `SELECT version, created_at FROM banks WHERE id = ?`, bank).Scan(&version, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, unknownBank(bank)
	}
	if err != nil {
		return nil, err
	}
	x := s.docIndexSet().bank(bank, created)
	x.mu.RLock()
	if x.version == version {
		return x, nil
	}
	x.mu.RUnlock()
	x.mu.Lock()
	if x.version != version {
		if err := s.refreshDocs(ctx, bank, x); err != nil {
			x.mu.Unlock()
			return nil, err
		}
	}
	x.mu.Unlock()
	// Another write may land before the read lock: the mirror is then
	// one version behind, as if this read had come first.
	x.mu.RLock()
	return x, nil
}

// docsLoaded reports whether the bank's document mirror has loaded once.
func (s *Store) docsLoaded(bank string) bool {
	set := s.docIndexSet()
	set.mu.Lock()
	x := set.banks[bank]
	set.mu.Unlock()
	if x == nil {
		return false
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.version >= 0
}

// refreshDocs brings x up to date; the caller holds x.mu. The version is
// read in the same read transaction as the rows.
func (s *Store) refreshDocs(ctx context.Context, bank string, x *docIndex) error {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version int64
	if err := tx.QueryRowContext(ctx, `SELECT version FROM banks WHERE id = ?`, bank).Scan(&version); err != nil {
		return err
	}
	if x.facts > 0 {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM facts WHERE bank_id = ? AND pk <= ?`, bank, x.maxPK).Scan(&n); err != nil {
			return err
		}
		if n != x.facts {
			// Facts were removed (a document replaced): load anew.
			x.reset()
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT pk, id, document_id, speaker, text FROM facts WHERE bank_id = ? AND pk > ? ORDER BY pk`, bank, x.maxPK)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var pk int64
		var id, doc, speaker, text string
		if err := rows.Scan(&pk, &id, &doc, &speaker, &text); err != nil {
			return err
		}
		body := text
		if speaker != "" {
			body = speaker + ": " + text
		}
		x.add(pk, id, doc, body)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	x.version = version
	return nil
}

// SearchDocuments implements memory.DocumentSearcher from the bank's
// document mirror: BM25 (k1 1.2, b 0.75, Lucene IDF) over each document's
// words, the words SearchText indexes.
func (s *Store) SearchDocuments(ctx context.Context, bankID string, terms []string, k int) ([]memory.Hit, error) {
	x, err := s.docs(ctx, bankID)
	if err != nil {
		return nil, err
	}
	defer x.mu.RUnlock()
	if k <= 0 || len(x.docs) == 0 {
		return nil, nil
	}
	n := float64(len(x.docs))
	avg := float64(x.totalLen) / n
	// A dense array and a heap of the best k, not a map sorted whole: at
	// 1M facts (50k documents) a common query word touches most of them.
	buf := scorePool.Get().(*scoreBuf)
	defer scorePool.Put(buf)
	if cap(buf.score) < len(x.docs) {
		buf.score = make([]float64, len(x.docs))
	}
	scores := buf.score[:len(x.docs)]
	touched := buf.touched[:0]
	var seen []int32
	for _, t := range terms {
		for _, w := range lex.Terms(t) {
			id, ok := x.termID[w]
			if !ok || slices.Contains(seen, id) {
				continue
			}
			seen = append(seen, id)
			ps := x.postings[id]
			df := float64(len(ps))
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			for _, p := range ps {
				tf := float64(p.tf)
				norm := bm25K1
				if avg > 0 {
					norm = bm25K1 * (1 - bm25B + bm25B*float64(x.docs[p.doc].length)/avg)
				}
				if scores[p.doc] == 0 {
					touched = append(touched, p.doc)
				}
				scores[p.doc] += idf * tf * (bm25K1 + 1) / (tf + norm)
			}
		}
	}
	h := make(hitHeap, 0, k+1)
	for _, d := range touched {
		h.offer(k, scored{int(d), scores[d]})
		scores[d] = 0 // leave the buffer clean for the next search
	}
	buf.touched = touched
	hits := make([]memory.Hit, h.Len())
	for j := len(hits) - 1; j >= 0; j-- {
		top := heap.Pop(&h).(scored)
		hits[j] = memory.Hit{ID: x.docs[top.slot].id, Score: top.score}
	}
	return hits, nil
}
