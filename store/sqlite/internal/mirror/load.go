package mirror

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/mnemo-ai/mnemo/internal/hnsw"
	"github.com/mnemo-ai/mnemo/memory"
)

// freeAfterLoad is the rows a load must add before it returns the memory
// it freed to the OS.
const freeAfterLoad = 10_000

// loadBatch is how many rows a load hands a worker at once.
const loadBatch = 512

// index returns the bank's fact index, loading or refreshing it from the
// file when it does not reflect the bank's current version. It returns
// the index unlocked: a search read-locks it, and finds it at this
// version or a later one a write applied meanwhile.
func (m *Mirror) index(ctx context.Context, bank string) (*bankIndex, error) {
	for {
		version, created, err := m.src.Bank(ctx, bank)
		if err != nil {
			return nil, err
		}
		x, err := m.bank(bank, created)
		if err != nil {
			return nil, err
		}
		ok, err := m.update(ctx, bank, x, version)
		if err != nil {
			return nil, err
		}
		if ok {
			return x, nil
		}
		// The mirror dropped x meanwhile (the bank was deleted or made
		// again): look again.
	}
}

// update brings x to version at least, loading from the file; it reports
// false, loading nothing, if x was dropped.
func (m *Mirror) update(ctx context.Context, bank string, x *bankIndex, version int64) (bool, error) {
	x.mu.RLock()
	fresh, closed := x.version >= version, x.closed
	x.mu.RUnlock()
	if closed {
		return false, nil
	}
	if fresh {
		return true, nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	// A write of this process that committed version may not have
	// applied yet: wait for it rather than reload (Begin).
	for !x.closed && x.version >= 0 && x.version < version && x.pending > 0 && !x.gap {
		x.changed.Wait()
	}
	if x.closed {
		return false, nil
	}
	if x.version >= version {
		// At version or later: a later write applied meanwhile holds
		// every change up to version too.
		return true, nil
	}
	rows, err := m.refresh(ctx, bank, x)
	if err != nil {
		return false, fmt.Errorf("load search index of bank %s: %w", bank, err)
	}
	if rows >= freeAfterLoad {
		// Loading left the rows read (vectors as float32 blobs, text) as
		// garbage of about twice the index's size: hand it back to the OS
		// now rather than over the scavenger's minutes.
		go debug.FreeOSMemory()
	}
	m.maybeBuild(bank, x)
	if x.behind() {
		m.saveLater(bank, x)
	}
	return true, nil
}

// refresh brings x in line with the file: it drops facts that are gone,
// updates statuses and loads facts added since the index last looked
// (on a first load, from the bank's index file first), and returns the
// rows it read. The caller holds x.mu. The version is read in the same read transaction as
// the rows, so the index never claims a version newer than its contents.
func (m *Mirror) refresh(ctx context.Context, bank string, x *bankIndex) (rows int, err error) {
	snap, err := m.src.Read(ctx, bank)
	if err != nil {
		return 0, err
	}
	defer snap.Close()
	version, err := snap.Version(ctx)
	if err != nil {
		return 0, err
	}
	if x.version < 0 && x.maxPK == 0 && x.indexDir != "" {
		// A first load: from the bank's index file if it holds, then
		// the rest of the way from the database like any stale index.
		m.loadFile(ctx, bank, x, snap, version)
		if x.version == version {
			x.gap = false
			x.changed.Broadcast()
			return 0, nil
		}
	}
	if x.version >= 0 && x.live > 0 {
		err := x.syncStatuses(ctx, snap)
		if errors.Is(err, errForeign) {
			// Not this database's history (a file beside a database put
			// back from a backup): load the bank from its rows.
			x.clear()
			m.mu.Lock()
			d := m.docs[bank]
			m.mu.Unlock()
			if d != nil {
				d.mu.Lock()
				d.reset()
				d.mu.Unlock()
			}
		} else if err != nil {
			return 0, err
		}
	}
	added := len(x.meta)
	add := x.add
	var d *docIndex
	if x.maxPK == 0 {
		// A first load: the document mirror, if it has not loaded yet and
		// no one is loading it, takes the same rows and their words
		// counted rather than scan and count them again beside this load
		// (at 100k facts, each scan and count was a fifth of the first
		// recall).
		if d = m.docsToJoin(bank, x.created); d != nil {
			if !d.mu.TryLock() {
				d = nil
			} else {
				defer d.mu.Unlock()
				if d.version >= 0 || d.facts > 0 {
					d = nil
				}
			}
		}
		if d != nil {
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
	if err := loadEntries(ctx, snap, x.maxPK, add); err != nil {
		return 0, err
	}
	rows = len(x.meta) - added
	x.sinceFile += rows
	x.compact()
	x.version, x.gap = version, false
	x.changed.Broadcast()
	if d != nil {
		d.version = version
	}
	return rows, nil
}

// errForeign is syncStatuses' error for a database holding a row up to
// the index's last that the index never saw: not the history the index
// (its file) comes from.
var errForeign = errors.New("the database holds rows the index never saw")

// syncStatuses brings the statuses and expiries of x's facts (rows up to
// x.maxPK) in line with snap and drops the facts snap no longer holds.
// When none was deleted (snap counts as many rows up to maxPK as x
// holds, summing to the same: rows only grow, so no other row can have
// come in), only the facts not active or expired are read
// (Snapshot.Changed) and every other fact is active and unexpired;
// otherwise every status is read, and a row x never saw is errForeign.
// The caller holds x.mu.
func (x *bankIndex) syncStatuses(ctx context.Context, snap Snapshot) error {
	n, sum, err := snap.Rows(ctx, x.maxPK)
	if err != nil {
		return err
	}
	var own int64
	for i := range x.meta {
		if !x.meta[i].dead {
			own += x.meta[i].pk
		}
	}
	set := func(i int, status memory.Status, expiredAt int64) {
		if e := &x.meta[i]; e.status != status || e.expiredAt != expiredAt {
			e.status, e.expiredAt = internStatus(status), expiredAt
			x.setState(i)
			x.logStatus(e.pk)
			x.sinceFile++
		}
	}
	if n == x.live && sum == own {
		changed := map[int64]bool{}
		err := snap.Changed(ctx, x.maxPK, func(pk int64, status memory.Status, expiredAt int64) {
			changed[pk] = true
			if i, ok := x.slotOfPK(pk); ok {
				set(i, status, expiredAt)
			}
		})
		if err != nil {
			return err
		}
		for i := range x.meta {
			if e := &x.meta[i]; !e.dead && (e.status != memory.StatusActive || e.expiredAt != 0) && !changed[e.pk] {
				set(i, memory.StatusActive, 0)
			}
		}
		return nil
	}
	seen := make(map[int64]bool, x.live)
	foreign := false
	err = snap.Statuses(ctx, x.maxPK, func(pk int64, status memory.Status, expiredAt int64) {
		seen[pk] = true
		if i, ok := x.slotOfPK(pk); ok {
			set(i, status, expiredAt)
		} else {
			foreign = true // rows only grow: x saw every row up to maxPK
		}
	})
	if err != nil {
		return err
	}
	if foreign {
		return errForeign
	}
	for i := range x.meta {
		if e := &x.meta[i]; !e.dead && !seen[e.pk] {
			x.remove(e.pk)
			x.sinceFile++
		}
	}
	return nil
}

// docsToJoin returns the bank's document mirror for a first load of its
// fact index to fill, unless the mirror is closed.
func (m *Mirror) docsToJoin(bank string, created int64) *docIndex {
	d, err := m.docBank(bank, created)
	if err != nil {
		return nil
	}
	return d
}

// loadEntries reads the facts of a bank with a row after after, in row
// order, and hands each to add, prepared: the words are counted and the
// vector decoded by GOMAXPROCS workers while the rows are read.
func loadEntries(ctx context.Context, snap Snapshot, after int64, add func(*newEntry)) error {
	type batch struct {
		rows  []Row
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
					prepare(&b.rows[i], &b.out[i], &buf)
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
	cur := &batch{ready: make(chan struct{})}
	send := func() {
		ordered <- cur
		work <- cur
		cur = &batch{ready: make(chan struct{})}
	}
	err := snap.Facts(ctx, after, func(r *Row) {
		cur.rows = append(cur.rows, *r)
		if len(cur.rows) == loadBatch {
			send()
		}
	})
	if err == nil && len(cur.rows) > 0 {
		send()
	}
	close(work)
	close(ordered)
	wg.Wait()
	<-done
	return err
}

// prepare parses r into e; buf is the worker's scratch space for a
// decoded vector.
func prepare(r *Row, e *newEntry, buf *[]float32) {
	e.pk, e.id, e.doc = r.PK, r.ID, r.Document
	e.kind, e.status = internKind(memory.FactKind(r.Kind)), internStatus(memory.Status(r.Status))
	e.category = internCategory(memory.Category(r.Category))
	e.sensitive = r.Sensitivity == string(memory.SensitivitySensitive)
	e.eventTime, e.createdAt, e.expiredAt = r.EventTime, r.CreatedAt, r.ExpiredAt
	if r.Tags != "[]" && r.Tags != "" {
		// Tags that do not parse filter as no tags: the fact stays findable.
		_ = json.Unmarshal([]byte(r.Tags), &e.tags)
	}
	if n := len(r.Embedding) / 4; n > 0 {
		*buf = decodeVector((*buf)[:0], r.Embedding[:4*n])
		e.blob, e.q = r.Embedding[:4*n], make([]int8, n)
		e.scale = hnsw.Quantize(e.q, *buf)
	}
	e.count(memory.Body(r.Speaker, r.Text))
}

// decodeVector appends the little-endian float32s in b to dst: the
// encoding of Row.Embedding and of the spill files.
func decodeVector(dst []float32, b []byte) []float32 {
	for i := 0; i+4 <= len(b); i += 4 {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
	}
	return dst
}
