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

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/viterin/vek/vek32"
)

// vectorIndex is one bank's in-process exact vector index: every fact's
// embedding in one contiguous float32 slice, scanned with SIMD dot
// products (vectors are unit length, so dot = cosine). It mirrors the
// file; version is the bank's change counter the mirror reflects.
type vectorIndex struct {
	mu      sync.RWMutex
	dim     int
	version int64
	maxPK   int64
	vecs    []float32 // len(meta)*dim
	meta    []indexEntry
	pos     map[int64]int // fact pk → position in meta
}

// indexEntry is what the index keeps of a fact to filter without a query.
type indexEntry struct {
	pk        int64
	id        string
	vec       []float32 // only while being added
	kind      memory.FactKind
	status    memory.Status
	sensitive bool
	eventTime int64 // µs; noTime when unknown
	tags      []string
}

// noTime marks an entry whose event time is unknown: no time range
// matches it, as no SQL comparison matches NULL.
const noTime = math.MinInt64

func newIndexEntry(pk int64, f *memory.Fact) indexEntry {
	e := indexEntry{
		pk: pk, id: f.ID, vec: f.Embedding, kind: f.Kind, status: f.Status,
		sensitive: f.Sensitivity == memory.SensitivitySensitive,
		eventTime: noTime, tags: f.Tags,
	}
	if t := f.EventTime(); !t.IsZero() {
		e.eventTime = t.UnixMicro()
	}
	return e
}

func (x *vectorIndex) add(e indexEntry) {
	if x.dim == 0 {
		x.dim = len(e.vec)
	}
	if len(e.vec) != x.dim {
		return // refused at write time; never mixes dimensions
	}
	if _, ok := x.pos[e.pk]; ok {
		return
	}
	x.vecs = append(x.vecs, e.vec...)
	e.vec = nil
	x.pos[e.pk] = len(x.meta)
	x.meta = append(x.meta, e)
	if e.pk > x.maxPK {
		x.maxPK = e.pk
	}
}

// remove deletes an entry by swapping the last one into its place.
func (x *vectorIndex) remove(pk int64) {
	i, ok := x.pos[pk]
	if !ok {
		return
	}
	last := len(x.meta) - 1
	if i != last {
		x.meta[i] = x.meta[last]
		copy(x.vecs[i*x.dim:(i+1)*x.dim], x.vecs[last*x.dim:(last+1)*x.dim])
		x.pos[x.meta[i].pk] = i
	}
	x.meta = x.meta[:last]
	x.vecs = x.vecs[:last*x.dim]
	delete(x.pos, pk)
}

func (x *vectorIndex) apply(c *indexChange) {
	for _, pk := range c.removed {
		x.remove(pk)
	}
	for _, e := range c.added {
		x.add(e)
	}
	for pk, st := range c.status {
		if i, ok := x.pos[pk]; ok {
			x.meta[i].status = st
		}
	}
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
}

// index returns the bank's vector index, loading or refreshing it from the
// file when it does not reflect the bank's current version.
func (s *Store) index(ctx context.Context, bank string) (*vectorIndex, error) {
	var version int64
	err := s.rdb.QueryRowContext(ctx, `SELECT version FROM banks WHERE id = ?`, bank).Scan(&version)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, unknownBank(bank)
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	x := s.indexes[bank]
	if x == nil {
		x = &vectorIndex{pos: map[int64]int{}, version: -1}
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
	if err := s.refresh(ctx, bank, x); err != nil {
		return nil, fmt.Errorf("load vector index of bank %s: %w", bank, err)
	}
	return x, nil
}

// refresh brings x in line with the file: it loads facts added since the
// index last looked, drops facts that are gone and updates statuses. The
// caller holds x.mu. The version is read in the same read transaction as
// the rows, so the index never claims a version newer than its contents.
func (s *Store) refresh(ctx context.Context, bank string, x *vectorIndex) error {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version int64
	if err := tx.QueryRowContext(ctx, `SELECT version FROM banks WHERE id = ?`, bank).Scan(&version); err != nil {
		return err
	}
	if x.version >= 0 && len(x.meta) > 0 {
		// Reconcile what the index holds: statuses and deletions.
		rows, err := tx.QueryContext(ctx, `SELECT pk, status FROM facts WHERE bank_id = ? AND pk <= ? AND embedding IS NOT NULL`, bank, x.maxPK)
		if err != nil {
			return err
		}
		seen := make(map[int64]bool, len(x.meta))
		for rows.Next() {
			var pk int64
			var st string
			if err := rows.Scan(&pk, &st); err != nil {
				rows.Close()
				return err
			}
			seen[pk] = true
			if i, ok := x.pos[pk]; ok {
				x.meta[i].status = memory.Status(st)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		var gone []int64
		for pk := range x.pos {
			if !seen[pk] {
				gone = append(gone, pk)
			}
		}
		for _, pk := range gone {
			x.remove(pk)
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT pk, id, kind, status, sensitivity, event_time, tags, embedding FROM facts
		WHERE bank_id = ? AND pk > ? AND embedding IS NOT NULL ORDER BY pk`, bank, x.maxPK)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var e indexEntry
		var kind, status, sens, tags string
		var et sql.NullInt64
		var blob []byte
		if err := rows.Scan(&e.pk, &e.id, &kind, &status, &sens, &et, &tags, &blob); err != nil {
			return err
		}
		e.eventTime = noTime
		if et.Valid {
			e.eventTime = et.Int64
		}
		e.kind, e.status, e.sensitive = memory.FactKind(kind), memory.Status(status), sens == string(memory.SensitivitySensitive)
		if tags != "[]" {
			if err := unmarshalJSON(tags, &e.tags); err != nil {
				return err
			}
		}
		e.vec = decodeVector(make([]float32, 0, len(blob)/4), blob)
		x.add(e)
	}
	if err := rows.Err(); err != nil {
		return err
	}
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
	if len(x.meta) == 0 {
		return nil, nil
	}
	if len(vec) != x.dim {
		return nil, memory.Errorf(memory.EINVALID, "query vector has dimension %d, bank %q holds dimension %d", len(vec), bankID, x.dim)
	}
	m := newMatcher(f)
	h := make(hitHeap, 0, k+1)
	d := x.dim
	for i := range x.meta {
		if !m.match(&x.meta[i]) {
			continue
		}
		score := float64(vek32.Dot(vec, x.vecs[i*d:(i+1)*d:(i+1)*d]))
		if len(h) < k {
			heap.Push(&h, scored{i, score})
		} else if score > h[0].score {
			h[0] = scored{i, score}
			heap.Fix(&h, 0)
		}
	}
	out := make([]memory.Hit, len(h))
	for j := len(h) - 1; j >= 0; j-- {
		top := heap.Pop(&h).(scored)
		out[j] = memory.Hit{ID: x.meta[top.i].id, Score: top.score}
	}
	return out, nil
}

// matcher evaluates a memory.Filter against index entries.
type matcher struct {
	f        memory.Filter
	statuses []memory.Status
	timed    bool // a time range is set
	from, to int64
}

func newMatcher(f memory.Filter) matcher {
	m := matcher{f: f, statuses: f.Statuses, from: -1 << 63, to: 1<<63 - 1}
	if len(m.statuses) == 0 {
		m.statuses = []memory.Status{memory.StatusActive}
	}
	if !f.From.IsZero() {
		m.from, m.timed = f.From.UnixMicro(), true
	}
	if !f.To.IsZero() {
		m.to, m.timed = f.To.UnixMicro(), true
	}
	return m
}

func (m *matcher) match(e *indexEntry) bool {
	if m.timed && (e.eventTime == noTime || e.eventTime < m.from || e.eventTime >= m.to) {
		return false
	}
	if e.sensitive && !m.f.Sensitive {
		return false
	}
	if !slices.Contains(m.statuses, e.status) {
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
	i     int
	score float64
}

// hitHeap is a min-heap on score (ties: the later entry is "smaller", so
// earlier entries win ties deterministically).
type hitHeap []scored

func (h hitHeap) Len() int { return len(h) }
func (h hitHeap) Less(a, b int) bool {
	if h[a].score != h[b].score {
		return h[a].score < h[b].score
	}
	return h[a].i > h[b].i
}
func (h hitHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *hitHeap) Push(v any)   { *h = append(*h, v.(scored)) }
func (h *hitHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}
