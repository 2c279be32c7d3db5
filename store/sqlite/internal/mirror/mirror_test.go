package mirror

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/internal/bm25"
	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/memory"
)

// fakeSource is a Source over banks held in memory: what the store's
// file is to the mirror, without SQL.
type fakeSource struct {
	mu    sync.Mutex
	banks map[string]*fakeBank
	reads int // Read calls: loads of the mirror
}

type fakeBank struct {
	version, created int64
	rows             []Row // in row order
}

func newFakeSource() *fakeSource { return &fakeSource{banks: map[string]*fakeBank{}} }

func (f *fakeSource) Bank(ctx context.Context, bank string) (int64, int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.banks[bank]
	if b == nil {
		return 0, 0, memory.Errorf(memory.ENOTFOUND, "unknown bank %q", bank)
	}
	return b.version, b.created, nil
}

func (f *fakeSource) Read(ctx context.Context, bank string) (Snapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.banks[bank]
	if b == nil {
		return nil, memory.Errorf(memory.ENOTFOUND, "unknown bank %q", bank)
	}
	f.reads++
	return &fakeSnapshot{version: b.version, rows: slices.Clone(b.rows)}, nil
}

// write adds rows to the bank as one write and returns the bank's new
// version and the change a store would hand Apply.
func (f *fakeSource) write(bank string, rows ...Row) (int64, *Change) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.banks[bank]
	if b == nil {
		b = &fakeBank{created: int64(len(f.banks) + 1)}
		f.banks[bank] = b
	}
	var c Change
	for _, r := range rows {
		r.PK = int64(len(b.rows) + 1)
		b.rows = append(b.rows, r)
		fact := &memory.Fact{ID: r.ID, Kind: memory.FactKind(r.Kind), Category: memory.Category(r.Category), Status: memory.Status(r.Status),
			Sensitivity: memory.Sensitivity(r.Sensitivity), Speaker: r.Speaker, Text: r.Text, DocumentID: r.Document,
			CreatedAt: time.UnixMicro(r.CreatedAt), Embedding: decodeVector(nil, r.Embedding)}
		c.Add(r.PK, fact)
	}
	b.version++
	return b.version, &c
}

type fakeSnapshot struct {
	version int64
	rows    []Row
}

func (s *fakeSnapshot) Version(ctx context.Context) (int64, error) { return s.version, nil }

func (s *fakeSnapshot) Statuses(ctx context.Context, upTo int64, fn func(int64, memory.Status, int64)) error {
	for _, r := range s.rows {
		if r.PK <= upTo {
			fn(r.PK, memory.Status(r.Status), r.ExpiredAt)
		}
	}
	return nil
}

func (s *fakeSnapshot) Count(ctx context.Context, upTo int64) (int, error) {
	n := 0
	for _, r := range s.rows {
		if r.PK <= upTo {
			n++
		}
	}
	return n, nil
}

func (s *fakeSnapshot) Facts(ctx context.Context, after int64, fn func(*Row)) error {
	var r Row // reused, as a store may
	for i := range s.rows {
		if s.rows[i].PK > after {
			r = s.rows[i]
			fn(&r)
		}
	}
	return nil
}

func (s *fakeSnapshot) Documents(ctx context.Context, after int64, fn func(int64, string, string, string)) error {
	for _, r := range s.rows {
		if r.PK > after {
			fn(r.PK, r.ID, r.Document, memory.Body(r.Speaker, r.Text))
		}
	}
	return nil
}

func (s *fakeSnapshot) Close() error { return nil }

// newMirror returns a mirror of src that keeps its float vectors in
// memory (no spill file) and builds no graph.
func newMirror(t *testing.T, src Source) *Mirror {
	t.Helper()
	m := New(src, func() Settings { return Settings{FloatVectors: true, IndexWorkers: 1} })
	t.Cleanup(m.Close)
	return m
}

// row returns an active open fact with the given id, text and vector.
func row(id, doc, text string, vec []float32) Row {
	r := Row{ID: id, Kind: string(memory.KindWorld), Status: string(memory.StatusActive), Sensitivity: string(memory.SensitivityOpen),
		Tags: "[]", Text: text, Document: doc, EventTime: NoTime, CreatedAt: 1}
	for _, x := range vec {
		r.Embedding = binary.LittleEndian.AppendUint32(r.Embedding, math.Float32bits(x))
	}
	return r
}

// unitVector returns a random unit vector of dim dimensions.
func unitVector(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	var n float64
	for i := range v {
		v[i] = float32(rng.NormFloat64())
		n += float64(v[i]) * float64(v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// heapAlloc returns the live heap after a full collection.
func heapAlloc() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC() // a second cycle empties the pools' victim caches too
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestMirror_Close checks that Close drops every bank and releases the
// memory of their vectors while the Mirror itself is still referenced,
// and that searches after Close fail as unavailable.
func TestMirror_Close(t *testing.T) {
	ctx := context.Background()
	src := newFakeSource()
	rng := rand.New(rand.NewPCG(3, 4))
	const n, dim = 3000, 256
	rows := make([]Row, n)
	for i := range rows {
		rows[i] = row(fmt.Sprint("f", i), fmt.Sprint("d", i/10), fmt.Sprint("fact number ", i), unitVector(rng, dim))
	}
	src.write("a", rows...)
	m := New(src, func() Settings { return Settings{FloatVectors: true, IndexWorkers: 1} })
	if _, err := m.SearchText(ctx, "a", []string{"fact"}, 5, memory.Filter{}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Neighbours(ctx, "a", []string{"f1"}, 1); err != nil {
		t.Fatal(err)
	}
	st, err := m.Stats(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if st.Live != n || st.VectorBytes < n*dim {
		t.Fatalf("stats %+v, want %d live facts of %d int8 dimensions", st, n, dim)
	}
	if got := m.banks(); got != 1 {
		t.Fatalf("mirror holds %d banks before Close, want 1", got)
	}
	before := heapAlloc()
	m.Close()
	after := heapAlloc()
	if got := m.banks(); got != 0 {
		t.Errorf("mirror holds %d banks after Close, want 0", got)
	}
	// The int8 vectors alone are n·dim bytes, the float32 ones four times
	// that: at least the int8 copies must be gone.
	if freed := int64(before) - int64(after); freed < st.VectorBytes {
		t.Errorf("Close freed %d bytes of heap, want at least the %d of the int8 vectors", freed, st.VectorBytes)
	}
	_, err = m.SearchVector(ctx, "a", unitVector(rng, dim), 5, memory.Filter{})
	if e := (*memory.Error)(nil); !errors.As(err, &e) || e.Code != memory.EUNAVAILABLE {
		t.Errorf("search after Close: %v, want %s", err, memory.EUNAVAILABLE)
	}
	m.Close() // idempotent
	runtime.KeepAlive(m)
}

// TestMirror_CloseAbandonsBuild checks that Close does not wait for a
// graph build to finish (a one-shot recall on a big bank exited only
// when the build was done): the builder is held on its first node until
// Close has begun, and Close must return with the graph unfinished.
func TestMirror_CloseAbandonsBuild(t *testing.T) {
	ctx := context.Background()
	src := newFakeSource()
	rng := rand.New(rand.NewPCG(5, 6))
	const n, dim = 2000, 32
	rows := make([]Row, n)
	for i := range rows {
		rows[i] = row(fmt.Sprint("f", i), fmt.Sprint("d", i/10), fmt.Sprint("fact number ", i), unitVector(rng, dim))
	}
	src.write("a", rows...)
	m := New(src, func() Settings { return Settings{ANNThreshold: 100, FloatVectors: true, IndexWorkers: 1} })
	var count atomic.Int64
	started := make(chan struct{})
	linked = func() {
		if count.Add(1) == 1 {
			close(started)
			<-m.closing // the build outlasts the search: it is still linking when Close begins
		}
	}
	t.Cleanup(func() { linked = nil })
	if _, err := m.SearchVector(ctx, "a", unitVector(rng, dim), 5, memory.Filter{}); err != nil {
		t.Fatal(err)
	}
	<-started
	m.Close()
	if got := count.Load(); got >= n {
		t.Fatalf("Close returned after the builder linked %d of %d nodes: it waited for the whole build", got, n)
	}
}

// TestMirror_Apply checks that a write applied in order is searched
// without a reload, and that a write the mirror missed makes it load
// from the source before the next search.
func TestMirror_Apply(t *testing.T) {
	ctx := context.Background()
	src := newFakeSource()
	m := newMirror(t, src)
	src.write("a", row("f1", "d1", "the quiet lake", nil))
	if _, err := m.PKs(ctx, "a", nil); err != nil { // loads the bank
		t.Fatal(err)
	}
	loads := src.reads
	version, c := src.write("a", row("f2", "d1", "a sunrise over the lake", nil))
	m.Apply("a", version, c)
	hits, err := m.SearchText(ctx, "a", []string{"sunrise"}, 5, memory.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(hits); !slices.Equal(got, []string{"f2"}) || src.reads != loads {
		t.Fatalf("after an applied write: hits %v with %d loads, want [f2] with none", got, src.reads-loads)
	}
	src.write("a", row("f3", "d2", "another sunrise", nil)) // another process: not applied
	version, c = src.write("a", row("f4", "d2", "the last sunrise", nil))
	m.Apply("a", version, c) // a version gap: the mirror stays stale
	hits, err = m.SearchText(ctx, "a", []string{"sunrise"}, 5, memory.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	got := hitIDs(hits)
	slices.Sort(got)
	if !slices.Equal(got, []string{"f2", "f3", "f4"}) {
		t.Fatalf("after a missed write: hits %v, want f2, f3 and f4", got)
	}
	if n, _ := m.Neighbours(ctx, "a", []string{"f4"}, 1); !slices.Equal(n["f4"], []string{"f3", "f4"}) {
		t.Fatalf("neighbours of f4: %v, want [f3 f4]", n["f4"])
	}
}

// TestMirror_SearchTextBM25 checks keyword scores against BM25 computed
// from the rows directly: the bank's live facts, their words and their
// average length.
func TestMirror_SearchTextBM25(t *testing.T) {
	ctx := context.Background()
	src := newFakeSource()
	m := newMirror(t, src)
	texts := []string{
		"Caroline went to the support group on Sunday",
		"Melanie is painting a sunrise by the lake",
		"Caroline and Melanie talked about the support they give",
		"Running by the lake every morning, Caroline felt free",
		"The group met again, and the group grew",
	}
	var rows []Row
	for i, text := range texts {
		rows = append(rows, row(fmt.Sprint("f", i), "d", text, nil))
	}
	src.write("a", rows...)
	query := []string{"caroline", "group", "lake"}
	hits, err := m.SearchText(ctx, "a", query, 10, memory.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	// Expected scores, from the rows.
	var words [][]string
	total := 0
	for _, text := range texts {
		w := lex.Terms(text)
		words = append(words, w)
		total += len(w)
	}
	n, avg := float64(len(texts)), float64(total)/float64(len(texts))
	want := map[string]float64{}
	for _, q := range query {
		term := lex.Terms(q)[0]
		df := 0
		for _, w := range words {
			if slices.Contains(w, term) {
				df++
			}
		}
		for i, w := range words {
			tf := 0
			for _, x := range w {
				if x == term {
					tf++
				}
			}
			if tf > 0 {
				want[fmt.Sprint("f", i)] += bm25.Term(bm25.IDF(n, float64(df)), float64(tf), bm25.Norm(float64(len(w)), avg))
			}
		}
	}
	if len(hits) != len(want) {
		t.Fatalf("hits %v, want %d facts", hitIDs(hits), len(want))
	}
	for i, h := range hits {
		if h.Score != want[h.ID] {
			t.Errorf("%s scored %v, want %v", h.ID, h.Score, want[h.ID])
		}
		if i > 0 && h.Score > hits[i-1].Score {
			t.Errorf("hits out of order: %v", hits)
		}
	}
}

// TestMirror_SearchStems checks that a search by stems (as
// lex.AppendTerms makes them) finds what the search by the words does,
// and that a stem is not stemmed again ("caroline" is "carolin").
func TestMirror_SearchStems(t *testing.T) {
	ctx := context.Background()
	src := newFakeSource()
	m := newMirror(t, src)
	for i, text := range []string{"Caroline went running by the lake", "Runners ran; the group runs", "Nothing here"} {
		src.write("a", row(fmt.Sprint("f", i), "d", text, nil))
	}
	words := []string{"Caroline", "running", "the", "lakes", "group", "runs"}
	var stems []string
	for _, w := range words {
		stems = lex.AppendTerms(stems, w)
	}
	byWords, err := m.SearchText(ctx, "a", words, 10, memory.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	byStems, err := m.SearchStems(ctx, "a", stems, 10, memory.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(byWords) != 2 || !slices.Equal(byStems, byWords) {
		t.Fatalf("by stems %v, by words %v", byStems, byWords)
	}
	if hits, err := m.SearchStems(ctx, "a", []string{"caroline"}, 10, memory.Filter{}); err != nil || len(hits) != 0 {
		t.Fatalf("the word itself as a stem: %v, %v; want no hit", hits, err)
	}
}

// TestMirror_Drop checks that a dropped bank is loaded anew, and that an
// unknown bank is memory.ENOTFOUND.
func TestMirror_Drop(t *testing.T) {
	ctx := context.Background()
	src := newFakeSource()
	m := newMirror(t, src)
	src.write("a", row("f1", "d1", "the quiet lake", nil))
	if _, err := m.PKs(ctx, "a", nil); err != nil {
		t.Fatal(err)
	}
	m.Drop("a")
	if got := m.banks(); got != 0 {
		t.Fatalf("mirror holds %d banks after Drop, want 0", got)
	}
	pks, err := m.PKs(ctx, "a", []string{"f1", "f1", "nope"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pks, []int64{1}) {
		t.Fatalf("PKs %v, want [1]", pks)
	}
	_, err = m.SearchText(ctx, "b", []string{"lake"}, 5, memory.Filter{})
	if e := (*memory.Error)(nil); !errors.As(err, &e) || e.Code != memory.ENOTFOUND {
		t.Fatalf("unknown bank: %v, want %s", err, memory.ENOTFOUND)
	}
}

func hitIDs(hs []memory.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}

// TestMirror_BeginWaitsForApply checks that a search finding the file
// ahead of the mirror while a write of this process is under way waits
// for that write's Apply instead of reloading the bank from the file,
// that a mirror ahead of the version a search read needs no load either,
// and that a gap (an Apply dropped out of order) still ends in a reload.
func TestMirror_BeginWaitsForApply(t *testing.T) {
	ctx := context.Background()
	src := newFakeSource()
	m := newMirror(t, src)
	src.write("a", row("f1", "d1", "the quiet lake", nil))
	if _, err := m.PKs(ctx, "a", nil); err != nil { // loads the bank
		t.Fatal(err)
	}
	loads := src.reads

	// The write commits (the file moves on) before it applies.
	done := m.Begin("a")
	version, c := src.write("a", row("f2", "d1", "a sunrise over the lake", nil))
	found := make(chan []string)
	go func() {
		hits, err := m.SearchText(ctx, "a", []string{"sunrise"}, 5, memory.Filter{})
		if err != nil {
			t.Error(err)
		}
		found <- hitIDs(hits)
	}()
	select {
	case got := <-found:
		t.Fatalf("the search answered %v before the write applied", got)
	case <-time.After(50 * time.Millisecond):
	}
	m.Apply("a", version, c)
	done()
	if got := <-found; !slices.Equal(got, []string{"f2"}) || src.reads != loads {
		t.Fatalf("search during a write: hits %v with %d loads, want [f2] with none", got, src.reads-loads)
	}
	done() // a second call is a no-op

	// A write that fails (no Apply) releases the search to a reload.
	done = m.Begin("a")
	src.write("a", row("f3", "d2", "another sunrise", nil)) // e.g. another process
	go func() {
		hits, _ := m.SearchText(ctx, "a", []string{"sunrise"}, 5, memory.Filter{})
		found <- hitIDs(hits)
	}()
	time.Sleep(20 * time.Millisecond)
	done()
	if got := <-found; len(got) != 2 || src.reads != loads+1 {
		t.Fatalf("after a write that never applied: hits %v with %d loads, want 2 hits with one", got, src.reads-loads)
	}

	// An Apply out of order marks a gap: a waiting search reloads at once.
	loads = src.reads
	done = m.Begin("a")
	defer done()
	src.write("a", row("f4", "d3", "sunrise again", nil))
	version, c = src.write("a", row("f5", "d3", "one more sunrise", nil))
	m.Apply("a", version, c) // the Apply of f4's write has not come
	hits, err := m.SearchText(ctx, "a", []string{"sunrise"}, 10, memory.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 4 || src.reads != loads+1 {
		t.Fatalf("after a gap: %v with %d loads, want 4 hits with one", hitIDs(hits), src.reads-loads)
	}
}
