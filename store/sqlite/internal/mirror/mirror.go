// Package mirror is the SQLite store's in-process search mirror: for each
// bank, an index of its facts — every embedding quantized to int8 for a
// SIMD scan or, in a large bank, an HNSW graph (internal/hnsw), the
// float32 originals for an exact rescoring, and an inverted index of the
// facts' stemmed words for BM25 (internal/bm25) with the bank's own
// statistics — and a mirror of its documents: each document's facts in
// order (for neighbours) and an inverted index of the documents' words.
//
// The file stays the source of truth. What does not live here: SQL and
// the file's schema ([Row] names the encodings a load reads), facts'
// contents (the store reads a fact from the file; the mirror only knows
// its row, id, filter fields and words) and anything that outlives the
// [Mirror] but each bank's index file (Settings.IndexDir; persist.go):
// a checked cache of its mirror that a first load reads instead of every
// row. The store and the mirror speak through three things:
//
//   - the store tells it what a committed write did ([Mirror.Apply] with
//     a [Change]) and that a bank is gone ([Mirror.Drop]), and releases
//     it with [Mirror.Close];
//   - the mirror reads the file through the store's [Source] whenever a
//     bank's change counter says it is stale (another process wrote, or
//     it never loaded), so no search answers from a stale mirror;
//   - it answers searches and lookups in memory's types:
//     [Mirror.SearchText], [Mirror.SearchVector], [Mirror.SearchDocuments],
//     [Mirror.Neighbours], [Mirror.PKs], [Mirror.Inactive].
//
// Every lock is taken and released in the same function; a bank's lock,
// when the mirror's own is held too, is taken first.
package mirror

import (
	"cmp"
	"context"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemo-ai/mnemo/internal/hnsw"
	"github.com/mnemo-ai/mnemo/memory"
)

// Defaults of the vector search.
const (
	// DefaultANNThreshold is the vectors a bank must hold before its
	// index builds an HNSW graph: below it an exact int8 SIMD scan
	// answers within about a millisecond (20k × 384 dimensions measured
	// at 0.5 ms), and no graph costs memory or build time.
	DefaultANNThreshold = 20_000
	// DefaultExactSelectivity is the share of a bank's facts a filter must
	// pass for a search to walk the graph: a filter that passes fewer is
	// answered by the exact scan, which costs little more than the walk
	// would (the walk scores ~1/selectivity nodes per result) and never
	// misses a fact.
	DefaultExactSelectivity = 0.1
)

// Settings are a mirror's tunables, read when a bank's index is made
// (IndexWorkers when its graph starts).
type Settings struct {
	// ANNThreshold is the vectors a bank must hold before its index
	// builds an HNSW graph; 0 or less: never.
	ANNThreshold int
	// FloatVectors keeps the float32 vectors used to rescore candidates
	// in memory instead of a spill file.
	FloatVectors bool
	// IndexWorkers is how many goroutines link a graph (at least 1).
	IndexWorkers int
	// EfSearch is the graph search's candidate list
	// (hnsw.DefaultEfSearch when 0).
	EfSearch int
	// SpillDir is where the spill files of the float32 vectors are made
	// (unlinked at once where the OS allows).
	SpillDir string
	// IndexDir is the folder of the banks' index files (persist.go): a
	// bank's first search reads its index from there instead of every
	// fact row, and the mirror writes it there in the background and on
	// Close. Empty: no files.
	IndexDir string
	// IndexTag names what the file's rows mean (the store's schema): a
	// file written under another tag is not read.
	IndexTag string
	// IndexReadOnly: index files are read but never written (a database
	// opened read-only).
	IndexReadOnly bool
}

// Source is the file a mirror reflects; the store implements it. Its
// methods may be called with a bank's index locked, so they must not call
// back into the mirror.
type Source interface {
	// Bank returns the bank's change counter and its creation time (µs),
	// its identity across a delete and a create by another process, or
	// an error: memory.ENOTFOUND for a bank that does not exist.
	Bank(ctx context.Context, bank string) (version, created int64, err error)
	// Embedding returns the vector of the bank's fact in row pk (nil:
	// none): a vector of the index file that fails its checksum is read
	// from here.
	Embedding(ctx context.Context, bank string, pk int64) ([]float32, error)
	// Read starts one consistent read of the bank, which the mirror ends
	// with [Snapshot.Close].
	Read(ctx context.Context, bank string) (Snapshot, error)
}

// Snapshot is one read transaction over a bank's facts.
type Snapshot interface {
	// Version returns the bank's change counter as the snapshot sees it.
	Version(ctx context.Context) (int64, error)
	// Statuses calls fn with the row, status and expiry (µs; 0: not
	// expired) of every fact whose row is at most upTo.
	Statuses(ctx context.Context, upTo int64, fn func(pk int64, status memory.Status, expiredAt int64)) error
	// Changed calls fn with the row, status and expiry of every fact
	// whose row is at most upTo and that is not active or has an expiry:
	// what Statuses gives, less the active unexpired facts (most of a
	// bank), which it must find without reading them.
	Changed(ctx context.Context, upTo int64, fn func(pk int64, status memory.Status, expiredAt int64)) error
	// LastRow returns the highest row ever given a fact, in any bank: it
	// never decreases in a database's history, so a database behind an
	// index file's last row is not the file's (put back from a backup).
	LastRow(ctx context.Context) (int64, error)
	// Rows returns the number of the bank's facts whose row is at most
	// upTo and the sum of those rows.
	Rows(ctx context.Context, upTo int64) (n int, sum int64, err error)
	// Count returns the number of the bank's facts whose row is at most
	// upTo.
	Count(ctx context.Context, upTo int64) (int, error)
	// FactID returns the id of the bank's fact in row pk, or false if
	// the bank has no fact there.
	FactID(ctx context.Context, pk int64) (string, bool, error)
	// Facts calls fn with every fact whose row is after after, in row
	// order. fn keeps a copy of the row, its strings and its Embedding,
	// never the pointer: the snapshot may reuse it.
	Facts(ctx context.Context, after int64, fn func(*Row)) error
	// Documents calls fn with the row, id, document id and searchable
	// body ([memory.Body]) of every fact whose row is after after, in row
	// order.
	Documents(ctx context.Context, after int64, fn func(pk int64, id, document, body string)) error
	// Close ends the read.
	Close() error
}

// Row is one fact as a mirror loads it from the file. PK is the fact's
// row id, which only grows and orders the facts as they were written.
type Row struct {
	PK                            int64
	ID, Kind, Status, Sensitivity string
	Category                      string
	// Tags is the fact's tags as a JSON array ("[]" or "" for none).
	Tags                    string
	Speaker, Text, Document string
	// EventTime is memory.Fact.EventTime in µs, or NoTime when unknown;
	// CreatedAt and ExpiredAt are µs (ExpiredAt 0: not expired).
	EventTime, CreatedAt, ExpiredAt int64
	// Embedding is the vector as little-endian float32s (nil: none).
	Embedding []byte
}

// Mirror holds the search mirrors of one store's banks. Create it with
// [New]; it is safe for concurrent use. [Mirror.Close] stops its
// background work and drops everything it holds.
type Mirror struct {
	src      Source
	settings func() Settings

	// mu guards the maps and closed. A bank's own lock, when both are
	// held, is taken first (maybeBuild holds it and takes mu).
	mu     sync.Mutex
	facts  map[string]*bankIndex // by bank id
	docs   map[string]*docIndex  // by bank id
	closed bool
	// closing is closed by Close to stop the graph builders, which wg
	// counts.
	closing chan struct{}
	wg      sync.WaitGroup
	// saves counts the goroutines writing index files; abandon tells
	// them to give up (Close waited long enough).
	saves   sync.WaitGroup
	abandon atomic.Bool

	// scores is the searches' scratch space (*scoreBuf), reused across
	// searches and dropped with the mirror.
	scores sync.Pool
}

// New returns an empty mirror of the file src reads; settings is called
// for each bank's index as it is made and as its graph starts.
func New(src Source, settings func() Settings) *Mirror {
	m := &Mirror{src: src, settings: settings, facts: map[string]*bankIndex{}, docs: map[string]*docIndex{},
		closing: make(chan struct{})}
	m.scores.New = func() any { return new(scoreBuf) }
	return m
}

// errClosed is the error of a search after Close.
var errClosed = memory.Errorf(memory.EUNAVAILABLE, "search mirror closed")

// DefaultSaveWait bounds how long Close waits for the index files being
// written: a short-lived process (a hook's context) must get its file
// written, and must not hang on a slow disk.
const DefaultSaveWait = 2 * time.Second

// Close stops the graph builders and waits for them, writes the index
// file of each bank whose index is ahead of its file (waiting at most
// DefaultSaveWait for every write), and drops every bank's mirror,
// releasing their memory and spill files. Searches after Close fail with
// memory.EUNAVAILABLE. Close is idempotent.
func (m *Mirror) Close() {
	m.mu.Lock()
	if !m.closed {
		close(m.closing)
	}
	facts, docs := m.facts, m.docs
	m.facts, m.docs, m.closed = nil, nil, true
	m.mu.Unlock()
	m.wg.Wait()
	for bank, x := range facts {
		x.mu.Lock()
		if x.saveTimer != nil {
			x.saveTimer.Stop() // written now instead
			x.saveTimer = nil
		}
		if x.behind() {
			m.startSave(bank, x, docs[bank])
		}
		x.mu.Unlock()
	}
	done := make(chan struct{})
	go func() { m.saves.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(DefaultSaveWait):
		m.abandon.Store(true)
		<-done
	}
	for _, x := range facts {
		x.release()
	}
}

// Drop forgets the bank's mirrors and removes its index file: the store
// calls it when it deleted the bank.
func (m *Mirror) Drop(bank string) {
	m.mu.Lock()
	x := m.facts[bank]
	delete(m.facts, bank)
	delete(m.docs, bank)
	m.mu.Unlock()
	if x != nil {
		x.release()
	}
	if dir := m.settings().IndexDir; dir != "" {
		os.Remove(indexPath(dir, bank))
	}
}

// Forgot removes the bank's index file after the store forgot some of its
// facts, so that no file on disk holds them (their words, ids or
// vectors) from then on, and makes a loaded index write a new one, as an
// index with no file does. The caller has applied the forget (Apply).
func (m *Mirror) Forgot(bank string) {
	m.mu.Lock()
	x := m.facts[bank]
	m.mu.Unlock()
	dir := m.settings().IndexDir
	if x != nil {
		x.mu.Lock()
		defer x.mu.Unlock()
		dir = x.indexDir
		if x.indexReadOnly {
			return
		}
		x.fileVersion, x.sinceFile, x.fileGraph = -1, 0, 0
		x.file, x.statusLog, x.delLog = fileState{}, nil, nil // never appended to: written whole
		x.forgets++                                           // a write under way may hold the forgotten facts: it must not land
	}
	if dir != "" {
		os.Remove(indexPath(dir, bank))
	}
}

// Apply brings a loaded index up to date with a write the store just
// committed, which moved the bank's change counter to version. If the
// index missed another writer's change in between, it is left stale and
// reloads before the next search; a bank not loaded is left alone.
func (m *Mirror) Apply(bank string, version int64, c *Change) {
	m.mu.Lock()
	x := m.facts[bank]
	m.mu.Unlock()
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	defer x.changed.Broadcast()
	if x.closed || x.version < 0 || x.version >= version {
		return // never loaded (a search loads it whole), or a reload has it
	}
	if x.version != version-1 {
		x.gap = true // another write's Apply is still to come: reload
		return
	}
	x.apply(c)
	x.version = version
	m.maybeBuild(bank, x)
	if x.behind() {
		m.saveLater(bank, x)
	}
}

// Begin tells the mirror that a write to bank is under way in this
// process and will Apply its change once committed; the returned done
// ends it (call it once the write has applied or failed: a deferred call
// is right). Meanwhile a search that finds the file ahead of the mirror
// waits for that Apply instead of reloading the bank's statuses from the
// file, which costs a pass over the whole bank: under concurrent writes
// and searches every search would otherwise reload.
func (m *Mirror) Begin(bank string) (done func()) {
	m.mu.Lock()
	x := m.facts[bank]
	m.mu.Unlock()
	if x == nil {
		return func() {}
	}
	x.mu.Lock()
	x.pending++
	x.mu.Unlock()
	return sync.OnceFunc(func() {
		x.mu.Lock()
		x.pending--
		x.changed.Broadcast()
		x.mu.Unlock()
	})
}

// bank returns the bank's fact index as of created, a new one if the
// mirror has none or one of a bank since deleted and created again (by
// another process: its versions start over, so the old mirror is void).
func (m *Mirror) bank(bank string, created int64) (*bankIndex, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, errClosed
	}
	x := m.facts[bank]
	var void *bankIndex
	if x == nil || x.created != created {
		void = x
		s := m.settings()
		x = newBankIndex()
		x.created, x.idSeed = created, idSeedOf(bank, created)
		x.floatVectors = s.FloatVectors
		x.annThreshold = s.ANNThreshold
		x.efSearch = cmp.Or(s.EfSearch, hnsw.DefaultEfSearch)
		x.spillDir = s.SpillDir
		if s.IndexDir != "" {
			x.indexDir, x.fp, x.indexReadOnly = s.IndexDir, fingerprint(s.IndexTag), s.IndexReadOnly
		}
		m.facts[bank] = x
	}
	m.mu.Unlock()
	if void != nil {
		void.release()
	}
	return x, nil
}

// docBank returns the bank's document mirror as of created, a new one if
// the mirror has none or one of a bank since deleted and created again.
func (m *Mirror) docBank(bank string, created int64) (*docIndex, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errClosed
	}
	x := m.docs[bank]
	if x == nil || x.created != created {
		x = newDocIndex(created, idSeedOf(bank, created))
		m.docs[bank] = x
	}
	return x, nil
}

// loadedDocs reports whether the bank's document mirror has loaded once.
func (m *Mirror) loadedDocs(bank string) bool {
	m.mu.Lock()
	x := m.docs[bank]
	m.mu.Unlock()
	if x == nil {
		return false
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.version >= 0
}

// banks returns the number of banks whose fact or document mirror the
// mirror holds.
func (m *Mirror) banks() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.facts)
	for b := range m.docs {
		if m.facts[b] == nil {
			n++
		}
	}
	return n
}
