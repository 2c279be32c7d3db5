package mirror

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// lastBlock returns the last whole block appended to the index file at
// path, decoded as a load decodes it (nil: none).
func lastBlock(t *testing.T, path string) *block {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := readHeader(f)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	end, err := h.checkLayout(int64(len(mem)))
	if err != nil {
		t.Fatal(err)
	}
	blocks, _ := readBlocks(mem, uint64(end), h.crc, math.MaxInt64)
	if len(blocks) == 0 {
		return nil
	}
	return blocks[len(blocks)-1]
}

// idsOf returns the ids of the bank's facts that keep holds, in row order.
func (f *fakeSource) idsOf(bank string, keep func(Row) bool) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ids []string
	for _, r := range f.banks[bank].rows {
		if keep(r) {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// pkOf returns the row of fact id in bank (0: none).
func (f *fakeSource) pkOf(bank, id string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.banks[bank].rows {
		if r.ID == id {
			return r.PK
		}
	}
	return 0
}

// ofDocument returns a filter of the facts of document doc.
func ofDocument(doc string) func(Row) bool { return func(r Row) bool { return r.Document == doc } }

// removeAll deletes the facts ids as another process would.
func (f *fakeSource) removeAll(bank string, ids []string) {
	for _, id := range ids {
		f.remove(bank, id)
	}
}

// keptRows is a Source whose LastRow is the highest row ever given in
// the test (top), as the store's is: the fake's is the highest row it
// holds, which a deletion of the last row lowers, so the load would
// take the database for one put back from a backup.
type keptRows struct {
	Source
	top int64
}

// Read implements Source.
func (k *keptRows) Read(ctx context.Context, bank string) (Snapshot, error) {
	s, err := k.Source.Read(ctx, bank)
	if err != nil {
		return nil, err
	}
	return keptRowsSnapshot{s, k.top}, nil
}

type keptRowsSnapshot struct {
	Snapshot
	top int64
}

// LastRow implements Snapshot.
func (s keptRowsSnapshot) LastRow(ctx context.Context) (int64, error) {
	last, err := s.Snapshot.LastRow(ctx)
	return max(last, s.top), err
}

// deletion is a case of facts deleted (and maybe others added) since an
// index file with a block: change makes it, in src or, when apply, in
// this process through w (Mirror.Apply); dels is the rows the next
// block must carry, docs whether the document mirror takes them from
// the block (else it loads from the rows).
type deletion struct {
	name   string
	change func(t *testing.T, src *fakeSource, w *Mirror)
	dels   int
	docs   bool
	top    bool // the source keeps the last row ever given (keptRows)
}

// deletions are the cases of TestIndexFile_AppendedDeletions and the
// tests after it, on appendedBank with one round (440 facts; document
// dN holds fN*6…fN*6+5, but every fK with K%11 == 5, of no document).
var deletions = []deletion{
	{name: "Document", dels: 5, docs: true, change: func(t *testing.T, src *fakeSource, w *Mirror) {
		src.removeAll("a", src.idsOf("a", ofDocument("d2")))
	}},
	{name: "Replaced", dels: 6, docs: true, change: func(t *testing.T, src *fakeSource, w *Mirror) {
		// As the store replaces a document: its facts deleted, the new
		// version's stored under the same ids.
		ids := src.idsOf("a", ofDocument("d3"))
		src.removeAll("a", ids)
		rows := persistRows(61, 3*6, len(ids), 24)
		for i := range rows {
			rows[i].ID, rows[i].Document = ids[i], "d3"
		}
		src.add("a", rows...)
	}},
	{name: "NoDocument", dels: 2, docs: true, change: func(t *testing.T, src *fakeSource, w *Mirror) {
		src.removeAll("a", []string{"f5", "f38"})
	}},
	{name: "FactOfDocument", dels: 1, docs: false, change: func(t *testing.T, src *fakeSource, w *Mirror) {
		src.remove("a", "f7")
	}},
	{name: "AddedSinceAndDeleted", dels: 1, docs: true, change: func(t *testing.T, src *fakeSource, w *Mirror) {
		src.add("a", persistRows(62, 600, 10, 24)...)
		answers(t, w, "a", 24) // w takes them before one goes
		src.removeAll("a", []string{"f27", "f603"})
	}},
	{name: "StatusThenDeleted", dels: 7, docs: true, change: func(t *testing.T, src *fakeSource, w *Mirror) {
		src.setStatus("a", "f31", memory.StatusArchived, 0)
		src.setStatus("a", "f38", memory.StatusSuperseded, 1_700_000_000_000_000+900*1_000_000)
		src.setStatus("a", "f200", memory.StatusSuperseded, 1_700_000_000_000_000+900*1_000_000)
		answers(t, w, "a", 24) // w logs the statuses
		src.removeAll("a", src.idsOf("a", ofDocument("d5")))
		src.remove("a", "f38")
	}},
	{name: "LastFact", dels: 2, docs: true, top: true, change: func(t *testing.T, src *fakeSource, w *Mirror) {
		// The file's last facts (document d73): the block names the last
		// one left, which the load finds in the database.
		src.removeAll("a", []string{"f438", "f439"})
	}},
	{name: "Applied", dels: 5, docs: true, change: func(t *testing.T, src *fakeSource, w *Mirror) {
		// This process's write: the deletions reach the index by Apply.
		var c Change
		ids := src.idsOf("a", ofDocument("d6"))
		for _, id := range ids {
			c.Remove(src.pkOf("a", id))
			src.remove("a", id)
		}
		src.mu.Lock()
		src.banks["a"].version -= int64(len(ids) - 1) // one write
		v := src.banks["a"].version
		src.mu.Unlock()
		w.Apply("a", v, &c)
		w.mu.Lock()
		x := w.facts["a"]
		w.mu.Unlock()
		x.mu.RLock()
		defer x.mu.RUnlock()
		if x.version != v || x.live != 440-len(ids) {
			t.Fatalf("Apply left the index at version %d with %d facts, want %d and %d", x.version, x.live, v, 440-len(ids))
		}
	}},
}

// deletedBank makes appendedBank's bank and file with one block in dir,
// then, in a mirror loaded from that file, makes the deletion c and
// writes the file. It checks the write appended a block, leaving the
// bytes before it as they were, that carries c.dels rows deleted; it
// returns the source (keptRows when c.top) and the file.
func deletedBank(t *testing.T, dir string, floats bool, c deletion) (Source, *fakeSource, []byte) {
	t.Helper()
	const dim = 24
	fake, prev := appendedBank(t, dir, floats, 1, dim)
	var src Source = fake
	if c.top {
		src = &keptRows{Source: fake, top: 1 << 40}
	}
	path := indexPath(dir, "a")
	w := persistMirror(src, dir, floats)
	defer w.Close()
	answers(t, w, "a", dim)
	c.change(t, fake, w)
	answers(t, w, "a", dim) // w takes the deletions
	saveNow(w, "a")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) <= len(prev) || !slices.Equal(b[:len(prev)], prev) {
		t.Fatalf("the file was rewritten (%d bytes, %d before), not appended to", len(b), len(prev))
	}
	if _, blocks, err := fileView(path); err != nil || len(blocks) != 2 {
		t.Fatalf("%d blocks (%v), want 2", len(blocks), err)
	}
	if got := len(lastBlock(t, path).dels); got != c.dels {
		t.Fatalf("the block carries %d deletions, want %d", got, c.dels)
	}
	return src, fake, b
}

// TestIndexFile_AppendedDeletions checks that facts deleted since an
// index file (by another process or this one, whole documents or not,
// facts of the file or added since, the file's last fact) make the next
// write append a block that carries them, not rewrite the file; and that
// a load from the file and its blocks reads no row (the count and sum of
// the rows up to the file's last see the deletions it carries) and
// answers exactly as a load from the rows: the same hits and scores of
// SearchText and SearchVector (no deleted fact, its vector or its words
// in the statistics), the same documents and neighbours. The document
// mirror takes the deletions from the block unless they are not whole
// documents.
func TestIndexFile_AppendedDeletions(t *testing.T) {
	const dim = 24
	for _, c := range deletions {
		for _, floats := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/FloatVectors=%v", c.name, floats), func(t *testing.T) {
				dir := t.TempDir()
				src, fake, _ := deletedBank(t, dir, floats, c)
				want := fresh(t, fake, "a", dim)
				cs := &countingSource{Source: src}
				m := persistMirror(cs, dir, floats)
				docRows.Store(0)
				got := answers(t, m, "a", dim)
				m.Close()
				if cs.rows != 0 {
					t.Errorf("a load from the file with its blocks read %d rows, want 0", cs.rows)
				}
				if fromFile := docRows.Load() == 0; fromFile != c.docs {
					t.Errorf("the document mirror read %d rows: from the file %v, want %v", docRows.Load(), fromFile, c.docs)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("answers from the file with its blocks differ from the rows':\n got %v\nwant %v", got, want)
				}
			})
		}
	}
}

// TestIndexFile_AppendedDeletionsNotCarried checks that a fact deleted
// after the block that carries other deletions was written (by a
// process that wrote no file) is still seen by a load of the file and
// its blocks: the count and sum of the rows differ, every status is
// read, and the answers are the rows'.
func TestIndexFile_AppendedDeletionsNotCarried(t *testing.T) {
	const dim = 24
	for _, c := range deletions {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src, fake, _ := deletedBank(t, dir, false, c)
			fake.removeAll("a", []string{"f100", "f101", "f102", "f103", "f104", "f105"}) // d17, whole
			fake.remove("a", "f61")
			fake.setStatus("a", "f62", memory.StatusArchived, 0)
			want := fresh(t, fake, "a", dim)
			got, cs := loadAnswers(t, src, dir, dim)
			if cs.rows != 0 || cs.statuses == 0 {
				t.Errorf("read %d rows and %d statuses, want no row and every status", cs.rows, cs.statuses)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("answers with a deletion the file lacks differ from the rows':\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestIndexFile_AppendedDeletionsDamaged damages the deletions of a
// block: a byte of a deleted row flipped, the record cut inside them, a
// row listed twice, its checksums made again (the block is not whole:
// the load takes the blocks before it and reads the rows it adds), and
// a deleted row the file does not hold, its checksums made again (the
// block is whole but does not apply: the file is not used). The answers
// are the rows' in every case.
func TestIndexFile_AppendedDeletionsDamaged(t *testing.T) {
	const dim = 24
	dir := t.TempDir()
	c := deletions[slices.IndexFunc(deletions, func(d deletion) bool { return d.name == "Replaced" })]
	src, fake, good := deletedBank(t, dir, false, c)
	path := indexPath(dir, "a")
	b := lastBlock(t, path)
	want := fresh(t, fake, "a", dim)
	rec := b.h.sec[blkRecord]
	at := rec.off + rec.len - 4*uint64(b.h.added) - 8*uint64(len(b.dels)) // the first deleted row
	if binary.LittleEndian.Uint64(good[at:]) != uint64(b.dels[0]) {
		t.Fatalf("no deleted row at %d", at)
	}
	// rewritten returns the file with the block's first deleted row set
	// to pk, the record's and the header's checksums made again.
	rewritten := func(pk int64) []byte {
		f := slices.Clone(good)
		binary.LittleEndian.PutUint64(f[at:], uint64(pk))
		h := b.h
		h.sec[blkRecord].crc = crc32.Checksum(f[rec.off:rec.off+rec.len], castagnoli())
		hdr, _ := appendBlockHeader(nil, &h)
		copy(f[h.start:], hdr)
		return f
	}
	flipped := slices.Clone(good)
	flipped[at+2] ^= 0x10
	all := len(fake.banks["a"].rows)
	cases := []struct {
		name string
		file []byte
		rows int // rows the load reads
	}{
		{"FlippedRow", flipped, int(b.h.added)},
		{"TruncatedInRows", slices.Clone(good[:at+4]), int(b.h.added)},
		{"TruncatedAtCount", slices.Clone(good[:at-2]), int(b.h.added)},
		{"RowTheFileLacks", rewritten(0), all},
		{"RowTwice", rewritten(b.dels[1]), int(b.h.added)},
	}
	for _, dc := range cases {
		t.Run(dc.name, func(t *testing.T) {
			rows := loadFileAnswers(t, path, dc.file, src, dir, dim, want, "damaged deletions")
			if rows != dc.rows {
				t.Errorf("read %d rows, want %d", rows, dc.rows)
			}
		})
	}
}

// TestIndexFile_AppendedDeletionsCompacted checks that deletions that
// make the index compact its slots make the next write whole, even once
// facts added since give it as many slots as the file, and that the
// whole file answers as the rows.
func TestIndexFile_AppendedDeletionsCompacted(t *testing.T) {
	const dim = 24
	dir := t.TempDir()
	c := deletions[0]
	_, fake, _ := deletedBank(t, dir, false, c)
	path := indexPath(dir, "a")
	w := persistMirror(fake, dir, false)
	answers(t, w, "a", dim)
	// A quarter of the slots and more dead: the index compacts.
	var gone []string
	for d := 10; d < 30; d++ {
		gone = append(gone, fake.idsOf("a", ofDocument(fmt.Sprint("d", d)))...)
	}
	fake.removeAll("a", gone)
	answers(t, w, "a", dim)
	w.mu.Lock()
	x := w.facts["a"]
	w.mu.Unlock()
	x.mu.RLock()
	compacted := len(x.meta) == x.live
	x.mu.RUnlock()
	if !compacted {
		t.Fatalf("%d facts deleted and the index did not compact", len(gone))
	}
	// As many slots again as the file's, and more: only the
	// renumbering tells the file is not the index's first slots.
	fake.add("a", persistRows(63, 700, 150, dim)...)
	answers(t, w, "a", dim)
	saveNow(w, "a")
	w.Close()
	if _, blocks, err := fileView(path); err != nil || len(blocks) != 0 {
		t.Fatalf("after compaction: %d blocks (%v), want a whole file", len(blocks), err)
	}
	want := fresh(t, fake, "a", dim)
	got, cs := loadAnswers(t, fake, dir, dim)
	if cs.rows != 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("after compaction: read %d rows, answers equal the rows' %v", cs.rows, reflect.DeepEqual(got, want))
	}
}

// TestIndexFile_AppendedGraphDeleted checks a block that carries a graph
// and deletions of the file's facts: the graph is numbered as the
// file's slots, the deleted ones included, so the load searches it at
// once without linking a node or reading a row, never returns a deleted
// fact, and finds the exact search's best.
func TestIndexFile_AppendedGraphDeleted(t *testing.T) {
	defer func(s float64) { appendShare = s }(appendShare)
	appendShare = 4
	defer func(d time.Duration) { saveDelay = d }(saveDelay)
	saveDelay = time.Hour
	const dim = 24
	ctx := context.Background()
	src := newFakeSource()
	src.write("a", graphRows(12, 0, 2000, dim)...)
	dir := t.TempDir()
	path := indexPath(dir, "a")
	m := graphMirror(src, dir)
	graphAnswers(t, m, "a", dim)
	m.Close()
	w := graphMirror(src, dir)
	graphAnswers(t, w, "a", dim)
	// Deleted before and after facts are added, and one of those.
	gone := []string{"f0", "f1", "f2", "f3", "f4", "f5", "f700", "f1500", "f2003"}
	src.removeAll("a", gone[:8])
	src.add("a", graphRows(13, 2000, 600, dim)...)
	graphAnswers(t, w, "a", dim)
	src.removeAll("a", gone[8:])
	graphAnswers(t, w, "a", dim)
	saveNow(w, "a")
	w.Close()
	b := lastBlock(t, path)
	if b == nil || len(b.dels) != 8 || b.h.sec[blkGraph].len == 0 {
		t.Fatalf("no block with 8 deletions and a graph: %+v", b)
	}
	n := countLinked(t)
	cs := &countingSource{Source: src}
	m = graphMirror(cs, dir)
	defer m.Close()
	st, err := m.Stats(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	// The file's slots: the 2,000, the 599 the block adds (not the one
	// deleted since), the deleted ones dead.
	if st.Slots != 2599 || st.Live != 2600-len(gone) || st.Linked != 2599 {
		t.Errorf("%d slots, %d live, %d linked; want 2599, %d, 2599", st.Slots, st.Live, st.Linked, 2600-len(gone))
	}
	r := vectorRecall(t, m, rand.New(rand.NewPCG(5, 6)), rowVector(graphRows(12, 0, 1, dim)[0]), gone)
	if cs.rows != 0 || n.Load() != 0 {
		t.Errorf("the load read %d rows and linked %d nodes, want none", cs.rows, n.Load())
	}
	if r < 0.9 {
		t.Errorf("recall@10 of the appended graph = %.3f, want ≥ 0.9", r)
	}
}

// TestIndexFile_DeletionLogBound checks that a deletion log past its
// bound is dropped and makes the next write whole, which answers as the
// rows.
func TestIndexFile_DeletionLogBound(t *testing.T) {
	const dim = 24
	dir := t.TempDir()
	_, fake, _ := deletedBank(t, dir, false, deletions[0])
	w := persistMirror(fake, dir, false)
	answers(t, w, "a", dim)
	fake.remove("a", "f50")
	answers(t, w, "a", dim)
	w.mu.Lock()
	x := w.facts["a"]
	w.mu.Unlock()
	x.mu.Lock()
	for range 1 << 16 {
		x.logDelete(len(x.meta)) // slots the file never held: no block would carry them
	}
	n := len(x.delLog)
	x.mu.Unlock()
	if n != 0 {
		t.Fatalf("a log of %d deletions past its bound, want it dropped", n)
	}
	saveNow(w, "a")
	w.Close()
	if _, blocks, err := fileView(indexPath(dir, "a")); err != nil || len(blocks) != 0 {
		t.Fatalf("after the log's bound: %d blocks (%v), want a whole file", len(blocks), err)
	}
	want := fresh(t, fake, "a", dim)
	got, cs := loadAnswers(t, fake, dir, dim)
	if cs.rows != 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("after the log's bound: read %d rows, answers equal the rows' %v", cs.rows, reflect.DeepEqual(got, want))
	}
}
