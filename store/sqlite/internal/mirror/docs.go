package mirror

import (
	"context"
	"slices"
	"sync"

	"github.com/mnemo-ai/mnemo/internal/bm25"
	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/memory"
)

// docPostingLookback is how many of a term's latest postings addCounted
// looks through for the fact's document before starting a new posting.
const docPostingLookback = 8

// docIndex is one bank's in-process mirror of its documents: each
// document's facts in Seq order, for Neighbours, and an inverted index of
// the documents' words, for SearchDocuments. It holds every fact whatever
// its status (both reads take the document as it was written) and, like
// bankIndex, reflects the bank's version: a load adds the facts stored
// since (row order is Seq order and only grows), and facts removed (a
// document replaced) make it load the bank again.
type docIndex struct {
	mu       sync.RWMutex
	created  int64
	seed     uint64 // of the hashes of fact ids (factPlaces)
	version  int64  // -1 until loaded
	maxPK    int64
	facts    int              // facts mirrored
	at       factPlaces       // fact id → its place
	docs     []docEntry       // by slot, in the order first stored
	slot     map[string]int32 // document id → slot
	termID   map[string]int32
	postings [][]docPosting // by term id
	totalLen int64          // words of all documents
}

// factAt is a fact's document slot (-1: none) and position in it.
type factAt struct {
	doc, pos int32
}

// factPlaces holds each fact's place by its id: the ids in the order
// first set, their places, and a slotTable to find them, its hashes
// seeded by seed (the bank's: idSeedOf), so the index file keeps it (at
// 1M facts a Go map took 0.4 s to fill from the file, the table 0.09 s).
type factPlaces struct {
	ids  []string
	at   []factAt
	idx  slotTable
	seed uint64
}

// get returns the place of fact id.
func (p *factPlaces) get(id string) (factAt, bool) {
	i, ok := p.idx.get(idHash(p.seed, id), func(i int) bool { return p.ids[i] == id })
	if !ok {
		return factAt{}, false
	}
	return p.at[i], true
}

// set sets the place of fact id.
func (p *factPlaces) set(id string, at factAt) {
	h := idHash(p.seed, id)
	eq := func(i int) bool { return p.ids[i] == id }
	if i, ok := p.idx.get(h, eq); ok {
		p.at[i] = at
		return
	}
	p.ids, p.at = append(p.ids, id), append(p.at, at)
	p.idx.put(h, len(p.ids)-1, eq, func(i int) uint64 { return idHash(p.seed, p.ids[i]) })
}

// len returns the number of facts placed.
func (p *factPlaces) len() int { return len(p.ids) }

// remove forgets fact id's place: the last id placed takes its index
// (the order of the ids is the table's, which nothing reads in order).
func (p *factPlaces) remove(id string) {
	h := idHash(p.seed, id)
	i, ok := p.idx.get(h, func(i int) bool { return p.ids[i] == id })
	if !ok {
		return
	}
	hashOf := func(i int) uint64 { return idHash(p.seed, p.ids[i]) }
	p.idx.del(h, func(i int) bool { return p.ids[i] == id }, hashOf)
	last := len(p.ids) - 1
	if i != last {
		moved := p.ids[last]
		p.ids[i], p.at[i] = moved, p.at[last]
		// The entry of moved, still at last, now names i.
		p.idx.put(idHash(p.seed, moved), i, func(j int) bool { return j == last }, hashOf)
	}
	p.ids, p.at = p.ids[:last], p.at[:last]
}

// docEntry is one document: its id, its facts and its length.
type docEntry struct {
	id     string
	facts  []string // ids in Seq order
	length int32    // words after stopword removal
}

// docPosting is one document of a term's list with the term's frequency.
type docPosting struct {
	doc int32
	tf  int32
}

// newDocIndex returns an empty, unloaded mirror of a bank created at
// created, whose fact ids hash under seed (idSeedOf).
func newDocIndex(created int64, seed uint64) *docIndex {
	x := &docIndex{created: created, seed: seed}
	x.reset()
	return x
}

// reset empties x for a load from scratch.
func (x *docIndex) reset() {
	x.version, x.maxPK, x.facts, x.totalLen = -1, 0, 0, 0
	x.at, x.slot, x.termID = factPlaces{seed: x.seed}, map[string]int32{}, map[string]int32{}
	x.docs, x.postings = nil, nil
}

// add mirrors one fact; facts come in row order.
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
// of them in all; facts come in row order.
func (x *docIndex) addCounted(pk int64, id, doc string, words []termCount, length int32) {
	x.maxPK = max(x.maxPK, pk)
	x.facts++
	if doc == "" {
		x.at.set(id, factAt{doc: -1})
		return
	}
	d, ok := x.slot[doc]
	if !ok {
		d = int32(len(x.docs))
		x.slot[doc] = d
		x.docs = append(x.docs, docEntry{id: doc})
	}
	e := &x.docs[d]
	x.at.set(id, factAt{doc: d, pos: int32(len(e.facts))})
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

// id returns the id of the document in slot d.
func (x *docIndex) id(d int) string { return x.docs[d].id }

// removeFacts takes the facts ids (distinct) out of x, as a load from
// the rows without them would have made x, and reports true; or, when
// that is not sure, leaves x as it was and reports false. Sure: each is
// a fact of no document, or every fact of its document is among ids (a
// document replaced deletes them all), and no term list that holds one
// of their documents holds another document twice. A load from the rows
// numbers the documents in the order their first facts come, and gives
// a document a second posting in a term's list only when other
// documents' postings came between (addCounted looks a few back): a
// fact of a document left, or a list where the documents removed may
// have kept another's postings apart, could come out otherwise.
func (x *docIndex) removeFacts(ids []string) bool {
	gone := make([]bool, len(x.docs))
	var left map[int32]int // each document's facts not removed yet
	for _, id := range ids {
		at, ok := x.at.get(id)
		if !ok {
			return false
		}
		if at.doc < 0 {
			continue
		}
		if left == nil {
			left = map[int32]int{}
		}
		if _, ok := left[at.doc]; !ok {
			left[at.doc] = len(x.docs[at.doc].facts)
		}
		left[at.doc]--
		gone[at.doc] = true
	}
	for _, n := range left {
		if n != 0 {
			return false
		}
	}
	if len(left) > 0 {
		// A document twice in a list one of them is in: not sure.
		seen := make([]int32, len(x.docs))
		for t, ps := range x.postings {
			if !slices.ContainsFunc(ps, func(p docPosting) bool { return gone[p.doc] }) {
				continue
			}
			for _, p := range ps {
				if seen[p.doc] == int32(t+1) {
					return false
				}
				seen[p.doc] = int32(t + 1)
			}
		}
	}
	for _, id := range ids {
		x.at.remove(id)
	}
	x.facts -= len(ids)
	if len(left) == 0 {
		return true
	}
	// The documents left, renumbered in their order.
	newDoc := make([]int32, len(x.docs))
	kept := x.docs[:0]
	for d := range x.docs {
		newDoc[d] = -1
		if gone[d] {
			x.totalLen -= int64(x.docs[d].length)
			delete(x.slot, x.docs[d].id)
			continue
		}
		newDoc[d] = int32(len(kept))
		kept = append(kept, x.docs[d])
		x.slot[x.docs[d].id] = newDoc[d]
	}
	clear(x.docs[len(kept):])
	x.docs = kept
	for t, ps := range x.postings {
		out := ps[:0]
		for _, p := range ps {
			if nd := newDoc[p.doc]; nd >= 0 {
				out = append(out, docPosting{doc: nd, tf: p.tf})
			}
		}
		x.postings[t] = out
	}
	for i := range x.at.at {
		if d := x.at.at[i].doc; d >= 0 {
			x.at.at[i].doc = newDoc[d]
		}
	}
	return true
}

// documents returns the bank's document mirror brought up to date with
// the file, unlocked: a read locks it, and finds it at this version or,
// if a write landed meanwhile, one behind, as if the read had come first.
func (m *Mirror) documents(ctx context.Context, bank string) (*docIndex, error) {
	if !m.loadedDocs(bank) {
		// The fact index's first load fills the mirror too (refresh): one
		// scan of the bank instead of two.
		if _, err := m.index(ctx, bank); err != nil {
			return nil, err
		}
	}
	version, created, err := m.src.Bank(ctx, bank)
	if err != nil {
		return nil, err
	}
	x, err := m.docBank(bank, created)
	if err != nil {
		return nil, err
	}
	x.mu.RLock()
	fresh := x.version == version
	x.mu.RUnlock()
	if fresh {
		return x, nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.version != version {
		if err := x.refresh(ctx, m.src, bank); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// refresh brings x up to date; the caller holds x.mu. The version is read
// in the same read transaction as the rows.
func (x *docIndex) refresh(ctx context.Context, src Source, bank string) error {
	snap, err := src.Read(ctx, bank)
	if err != nil {
		return err
	}
	defer snap.Close()
	version, err := snap.Version(ctx)
	if err != nil {
		return err
	}
	if x.facts > 0 {
		n, err := snap.Count(ctx, x.maxPK)
		if err != nil {
			return err
		}
		if n != x.facts {
			// Facts were removed (a document replaced): load anew.
			x.reset()
		}
	}
	if err := snap.Documents(ctx, x.maxPK, x.add); err != nil {
		return err
	}
	x.version = version
	return nil
}

// SearchDocuments returns the bank's k documents that best match the
// terms, best first: BM25 (internal/bm25) over each document's words,
// the words [Mirror.SearchText] indexes, whatever its facts' statuses.
func (m *Mirror) SearchDocuments(ctx context.Context, bank string, terms []string, k int) ([]memory.Hit, error) {
	x, err := m.documents(ctx, bank)
	if err != nil {
		return nil, err
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if k <= 0 || len(x.docs) == 0 {
		return nil, nil
	}
	n := float64(len(x.docs))
	avg := float64(x.totalLen) / n
	// A dense array and a heap of the best k, not a map sorted whole: at
	// 1M facts (50k documents) a common query word touches most of them.
	buf := m.scores.Get().(*scoreBuf)
	defer m.scores.Put(buf)
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
			idf := bm25.IDF(n, float64(len(ps)))
			for _, p := range ps {
				if scores[p.doc] == 0 {
					touched = append(touched, p.doc)
				}
				scores[p.doc] += bm25.Term(idf, float64(p.tf), bm25.Norm(float64(x.docs[p.doc].length), avg))
			}
		}
	}
	h := make(hitHeap, 0, k+1)
	for _, d := range touched {
		h.offer(k, scored{int(d), scores[d]})
		scores[d] = 0 // leave the buffer clean for the next search
	}
	buf.touched = touched
	return h.hits(x.id), nil
}

// Neighbours maps each of the fact ids to the ids of the facts of its
// document within radius of it in Seq order, itself included (a fact of
// no document: itself alone), whatever their statuses; an id the bank
// does not hold is left out.
func (m *Mirror) Neighbours(ctx context.Context, bank string, factIDs []string, radius int) (map[string][]string, error) {
	x, err := m.documents(ctx, bank)
	if err != nil {
		return nil, err
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	radius = max(radius, 0)
	out := make(map[string][]string, len(factIDs))
	for _, id := range factIDs {
		at, ok := x.at.get(id)
		if !ok {
			continue
		}
		if at.doc < 0 {
			out[id] = []string{id}
			continue
		}
		facts := x.docs[at.doc].facts
		lo, hi := max(int(at.pos)-radius, 0), min(int(at.pos)+radius+1, len(facts))
		out[id] = append([]string(nil), facts[lo:hi]...)
	}
	return out, nil
}
