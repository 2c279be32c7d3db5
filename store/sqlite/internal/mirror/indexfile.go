package mirror

import (
	"context"
	"errors"
	"os"
	"slices"
	"sync/atomic"
	"time"
)

// saveAfter is the facts added, removed or changed since a bank's index
// file was written after which the mirror writes it again, for a bank of
// live facts: until then a first load applies them from the database
// (the new rows and the changed statuses: syncStatuses), which costs
// less than writing the whole file each time a few facts came in.
func saveAfter(live int) int { return max(512, live/32) }

// loadFile fills x, on its first load, from the bank's index file if the
// file holds: whole, of this build and schema, of this bank, no newer
// than version (the database's, as snap sees it) and agreeing with snap
// on its last fact. A file that does not hold is removed (the next write
// replaces it); what the file could not give, the load reads from the
// database as before. The caller holds x.mu.
func (m *Mirror) loadFile(ctx context.Context, bank string, x *bankIndex, snap Snapshot, version int64) {
	path := indexPath(x.indexDir, bank)
	l, err := readIndexFile(path, bank, x.created, version, x.fp, x)
	if err != nil {
		// A file ahead of this read may be another process's, newer
		// than the snapshot this process read: leave it.
		if errors.Is(err, errBadFile) && !errors.Is(err, errAhead) && !x.indexReadOnly {
			os.Remove(path)
		}
		return
	}
	if l.h.maxPK > 0 {
		id, ok, err := snap.FactID(ctx, l.h.lastPK)
		last, lerr := snap.LastRow(ctx)
		err = errors.Join(err, lerr)
		if err != nil || last < l.h.maxPK || (ok && id != l.h.lastID) || (!ok && l.h.version == version) {
			// Not this database's bank as the file says (a file copied
			// beside another database, or a database put back from a
			// backup: its rows have not reached the file's, or another
			// fact has the file's last row), or the rows could not be
			// read: load from the file no further.
			l.x.release()
			if err == nil && !x.indexReadOnly {
				os.Remove(path)
			}
			return
		}
	}
	if e := l.x.exact; e != nil && e.base != nil {
		// Base slots keep their rows whatever compaction does later; the
		// loaded entries name them.
		meta := l.x.meta
		e.refetch = func(i int) ([]float32, error) {
			return m.src.Embedding(context.Background(), bank, meta[i].pk)
		}
	}
	x.adopt(l.x)
	x.fileVersion, x.sinceFile = l.h.version, 0
	x.file = l.file
	x.file.slots, x.file.n, x.file.dirty = len(x.meta), len(x.meta), x.dirty
	x.statusLog, x.delLog = nil, nil
	if l.g != nil {
		// Searched at once; maybeBuild starts linking the slots after it.
		x.ann = newANN(l.g, x.vecs, l.g.Len())
		x.fileGraph = l.g.Len()
	}
	if l.d == nil {
		return
	}
	if d := m.docsToJoin(bank, x.created); d != nil && d.mu.TryLock() {
		if d.version < 0 && d.facts == 0 {
			d.adopt(l.d)
		}
		d.mu.Unlock()
	}
}

// behind reports whether x's index file is to be written: x is loaded
// and has no file, or saveAfter facts changed since its file. The caller
// holds x.mu.
func (x *bankIndex) behind() bool {
	if x.indexDir == "" || x.indexReadOnly || x.closed || x.version < 0 {
		return false
	}
	if x.exact != nil && x.exact.bad.Load() {
		return true // a vector of the file failed its checksum: replace it
	}
	if x.version > x.fileVersion && (x.fileVersion < 0 || x.sinceFile >= saveAfter(x.live)) {
		return true
	}
	// The graph linked saveAfter slots the file does not hold: at 1M
	// facts it took minutes, and a file without it makes the next
	// process link it all again.
	return x.graphable()-x.fileGraph >= saveAfter(x.live)
}

// graphable returns about how many of x's graph's nodes an index file
// written now would hold: the slots it has linked, less the dead ones
// (counted as if all were among them). The caller holds x.mu.
func (x *bankIndex) graphable() int {
	if x.ann == nil {
		return 0
	}
	return max(0, int(x.ann.done.Load())-(len(x.meta)-x.live))
}

// saveDelay is how long a background write of an index file waits after
// the load or write that called for it: the searches right after a load
// go first (a short-lived process's Close writes the file at once). A
// variable for tests.
var saveDelay = time.Second

// saveLater writes x's index file in the background after saveDelay,
// unless a write is under way or due; Close writes what is then left.
// The caller holds x.mu.
func (m *Mirror) saveLater(bank string, x *bankIndex) {
	if x.saving || x.saveTimer != nil {
		return
	}
	x.saveTimer = time.AfterFunc(saveDelay, func() {
		x.mu.Lock()
		defer x.mu.Unlock()
		x.saveTimer = nil
		if !x.behind() {
			return
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if !m.closed {
			m.startSave(bank, x, m.docs[bank])
		}
	})
}

// startSave starts a goroutine writing x's index file, with d's document
// mirror if it is at x's version then, unless one is under way. The
// caller holds x.mu and, unless Close calls it, m.mu (saves.Add must not
// race Close's Wait).
func (m *Mirror) startSave(bank string, x *bankIndex, d *docIndex) {
	if x.saving || x.indexDir == "" {
		return
	}
	x.saving = true
	m.saves.Add(1)
	go func() {
		defer m.saves.Done()
		m.save(bank, x, d)
	}()
}

// save writes x's index file: encoded and written to a temporary file
// under x's read lock (searches go on; a write waits), and renamed into
// place unless the mirror dropped x meanwhile. Any
// failure leaves the old file, or none: the file is only a cache.
func (m *Mirror) save(bank string, x *bankIndex, d *docIndex) {
	defer func() {
		x.mu.Lock()
		x.saving = false
		x.mu.Unlock()
	}()
	if d != nil {
		// The document mirror may lag the fact index (no document search
		// since the facts came in): bring it level, so the next process
		// reads both from the file.
		x.mu.RLock()
		v := x.version
		x.mu.RUnlock()
		d.mu.Lock()
		if d.version >= 0 && d.version < v {
			// On failure d stays behind (its next search refreshes it) and
			// the file goes without it.
			_ = d.refresh(context.Background(), m.src, bank)
		}
		d.mu.Unlock()
	}
	if m.saveAppend(bank, x, d) {
		return
	}
	x.mu.RLock()
	if x.closed || x.version < 0 {
		x.mu.RUnlock()
		return
	}
	docs := d.levelWith(x.version)
	s := encode(bank, x, docs, x.fp)
	forgets, dirty, logN, delN, slots := x.forgets, x.dirty, len(x.statusLog), len(x.delLog), len(x.meta)
	if docs != nil {
		docs.mu.RUnlock()
	}
	var f *os.File
	var err error
	if s != nil {
		f, err = s.write(x.indexDir, x, m.abandon.Load)
	}
	version, since, graphN := x.version, x.sinceFile, 0
	if s != nil {
		graphN = s.graphN
	}
	x.mu.RUnlock()
	if s == nil || err != nil {
		return
	}
	// Not synced: a file a crash left half on disk is refused by its
	// lengths and checksums (and a vector by its own, when read), and is
	// rebuilt; a sync would only keep the cache across a power cut, at
	// 15-50 ms a write on a shared disk.
	name := f.Name()
	info, err := f.Stat()
	if err == nil {
		err = f.Close()
	} else {
		f.Close()
	}
	if err != nil {
		os.Remove(name)
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed || x.forgets != forgets {
		// The bank was dropped, or facts the file holds were forgotten
		// since it was encoded: it must not come back.
		os.Remove(name)
		return
	}
	if err := os.Rename(name, indexPath(x.indexDir, bank)); err != nil {
		os.Remove(name)
		return
	}
	x.fileVersion, x.sinceFile, x.fileGraph = version, x.sinceFile-since, graphN
	x.file = fileState{info: info, end: uint64(info.Size()), base: uint64(info.Size()), crc: s.h.crc,
		slots: slots, n: len(s.slots), dirty: dirty}
	x.dropLog(logN, delN)
	if x.exact != nil {
		x.exact.bad.Store(false) // the file just written is whole
	}
}

// saveAppend appends a block to x's index file when it can (canAppend)
// and reports whether the write is done; false: the file is to be
// written whole (nothing appended, or a block left torn, which loads
// ignore).
func (m *Mirror) saveAppend(bank string, x *bankIndex, d *docIndex) bool {
	x.mu.RLock()
	if x.closed || x.version < 0 || !x.canAppend() {
		x.mu.RUnlock()
		return false
	}
	docs := d.levelWith(x.version)
	p := planAppend(x, docs)
	if docs != nil {
		docs.mu.RUnlock()
	}
	forgets, version, since := x.forgets, x.version, x.sinceFile
	// Under the read lock: a Forgot waits for the block to be written,
	// then removes the file.
	wrote, err := p.write(indexPath(x.indexDir, bank), x, m.abandon.Load)
	x.mu.RUnlock()
	x.mu.Lock()
	defer x.mu.Unlock()
	if err != nil {
		x.file.info = nil // written whole next (the caller's write, or a later one)
		return m.abandon.Load() || x.closed
	}
	if x.closed || x.forgets != forgets {
		return true // the file was removed: the next write is whole
	}
	fs := &x.file
	fs.end, fs.crc, fs.blocks = p.h.end, p.h.crc, fs.blocks+1
	fs.slots, fs.n, fs.added = p.to, fs.n+int(p.h.added), fs.added+int(p.h.added)
	fs.held = append(fs.held, p.dels...)
	x.fileVersion, x.sinceFile = version, x.sinceFile-since
	if p.graph != nil {
		x.fileGraph = p.graphN
	}
	x.dropLog(p.logN, p.delN)
	appended.Add(wrote)
	return true
}

// appended counts the bytes appended to index files (tests and
// benchmarks read it).
var appended atomic.Int64

// dropLog drops the first n entries of x's status log and the first del
// of its deletion log: a file now holds them. The caller holds x.mu.
func (x *bankIndex) dropLog(n, del int) {
	if n > len(x.statusLog) {
		x.statusLog = nil // the log was dropped meanwhile (and dirty moved)
	} else {
		x.statusLog = slices.Clone(x.statusLog[n:])
	}
	if del > len(x.delLog) {
		x.delLog = nil // likewise
	} else {
		x.delLog = slices.Clone(x.delLog[del:])
	}
}

// adopt takes y's contents, a document mirror read from the bank's index
// file, as d's own; the caller holds d.mu.
func (d *docIndex) adopt(y *docIndex) {
	d.version, d.maxPK, d.facts, d.totalLen = y.version, y.maxPK, y.facts, y.totalLen
	d.at, d.docs, d.slot, d.termID, d.postings = y.at, y.docs, y.slot, y.termID, y.postings
}

// levelWith returns d read-locked if it reflects version (the fact
// index's, so a file written now holds both), or nil, unlocked. A nil d
// is never level.
func (d *docIndex) levelWith(version int64) *docIndex {
	if d == nil {
		return nil
	}
	d.mu.RLock()
	if d.version != version {
		d.mu.RUnlock()
		return nil
	}
	return d
}
