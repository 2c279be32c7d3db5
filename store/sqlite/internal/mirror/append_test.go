package mirror

import (
	"context"
	"fmt"
	"math"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// fileView reads the index file at path as a load takes it: the whole
// file's header and the headers of the blocks appended after it that
// are whole.
func fileView(path string) (fileHeader, []blockHeader, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileHeader{}, nil, err
	}
	defer f.Close()
	h, err := readHeader(f)
	if err != nil {
		return h, nil, err
	}
	mem, err := os.ReadFile(path)
	if err != nil {
		return h, nil, err
	}
	end, err := h.checkLayout(int64(len(mem)))
	if err != nil {
		return h, nil, err
	}
	blocks, _ := readBlocks(mem, uint64(end), h.crc, math.MaxInt64)
	var out []blockHeader
	for _, b := range blocks {
		out = append(out, b.h)
	}
	return h, out, nil
}

// docRows counts the rows countingSnapshot's Documents hands a document
// mirror's load.
var docRows atomic.Int64

// Documents implements Snapshot, counting the rows.
func (s countingSnapshot) Documents(ctx context.Context, after int64, fn func(pk int64, id, document, body string)) error {
	return s.Snapshot.Documents(ctx, after, func(pk int64, id, document, body string) {
		docRows.Add(1)
		fn(pk, id, document, body)
	})
}

// saveNow writes the bank's index file as a background write would, at
// once, and waits for it.
func saveNow(m *Mirror, bank string) {
	m.mu.Lock()
	x, d := m.facts[bank], m.docs[bank]
	m.mu.Unlock()
	x.mu.Lock()
	m.startSave(bank, x, d)
	x.mu.Unlock()
	m.saves.Wait()
}

// appendedBank makes a bank of 400 facts with its whole index file in
// dir, then, in a mirror loaded from that file, rounds times: another
// process adds 40 facts and changes statuses (of the file's facts and
// of facts added since), the mirror takes them, and its file is written.
// It checks each write appended a block, leaving the bytes before it as
// they were, and that a load then reads no row and answers as a load
// from the rows; it returns the source and the file.
func appendedBank(t *testing.T, dir string, floats bool, rounds, dim int) (*fakeSource, []byte) {
	t.Helper()
	src := newFakeSource()
	src.write("a", persistRows(1, 0, 400, dim)...)
	src.setStatus("a", "f10", memory.StatusSuperseded, 1_700_000_000_000_000+300*1_000_000)
	src.setStatus("a", "f11", memory.StatusArchived, 0)
	m := persistMirror(src, dir, floats)
	answers(t, m, "a", dim)
	m.Close()
	path := indexPath(dir, "a")
	prev, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w := persistMirror(src, dir, floats)
	defer w.Close()
	answers(t, w, "a", dim)
	for r := range rounds {
		src.add("a", persistRows(30+uint64(r), 400+40*r, 40, dim)...)
		src.setStatus("a", fmt.Sprint("f", 30+r), memory.StatusArchived, 0)
		src.setStatus("a", "f10", []memory.Status{memory.StatusActive, memory.StatusSuperseded}[r%2], 0)
		if r > 0 {
			src.setStatus("a", fmt.Sprint("f", 400+40*(r-1)+3), memory.StatusSuperseded, 1_700_000_000_000_000+500*1_000_000)
		}
		answers(t, w, "a", dim) // w takes the rows and statuses
		saveNow(w, "a")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) <= len(prev) || !slices.Equal(b[:len(prev)], prev) {
			t.Fatalf("round %d: the file was rewritten (%d bytes, %d before), not appended to", r, len(b), len(prev))
		}
		if _, blocks, err := fileView(path); err != nil || len(blocks) != r+1 || blocks[r].added != 40 {
			t.Fatalf("round %d: %d blocks (%v), want %d, the last of 40 facts", r, len(blocks), err, r+1)
		}
		prev = b
		want := fresh(t, src, "a", dim)
		cs := &countingSource{Source: src}
		m := persistMirror(cs, dir, floats)
		docRows.Store(0)
		got := answers(t, m, "a", dim)
		m.Close()
		if cs.rows != 0 || docRows.Load() != 0 {
			t.Errorf("round %d: a load from the file with its blocks read %d rows and %d for the documents, want 0", r, cs.rows, docRows.Load())
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: answers from the file with its blocks differ from the rows':\n got %v\nwant %v", r, got, want)
		}
	}
	return src, prev
}

// TestIndexFile_Appended checks that a mirror ahead of its index file by
// rows added and statuses changed appends blocks to the file rather than
// rewrite it, and that a load reads the file and its blocks without a
// row and answers exactly as a load from the rows (vectors in memory or
// read from the file); that a deletion makes the next write append a
// block too (TestIndexFile_AppendedDeletions has the cases); and that
// more facts added than maxAppended make the next write whole.
func TestIndexFile_Appended(t *testing.T) {
	for _, floats := range []bool{false, true} {
		t.Run(fmt.Sprint("FloatVectors=", floats), func(t *testing.T) {
			const dim = 24
			dir := t.TempDir()
			src, _ := appendedBank(t, dir, floats, 3, dim)
			// A deletion since: the next write appends a block that
			// carries it.
			w := persistMirror(src, dir, floats)
			answers(t, w, "a", dim)
			src.remove("a", "f7")
			src.add("a", persistRows(77, 900, 5, dim)...)
			answers(t, w, "a", dim)
			saveNow(w, "a")
			w.Close()
			if _, blocks, err := fileView(indexPath(dir, "a")); err != nil || len(blocks) != 4 || blocks[3].added != 5 {
				t.Fatalf("after a deletion: %d blocks (%v), want 4, the last of 5 facts", len(blocks), err)
			}
			want := fresh(t, src, "a", dim)
			cs := &countingSource{Source: src}
			m := persistMirror(cs, dir, floats)
			got := answers(t, m, "a", dim)
			m.Close()
			if cs.rows != 0 || !reflect.DeepEqual(got, want) {
				t.Fatalf("after a deletion: read %d rows, answers equal the rows' %v", cs.rows, reflect.DeepEqual(got, want))
			}

			// More facts than blocks may add: whole again, however small
			// the blocks would be beside the file.
			defer func(s float64) { appendShare = s }(appendShare)
			appendShare = 1e9
			w = persistMirror(src, dir, floats)
			answers(t, w, "a", dim)
			src.add("a", persistRows(78, 1000, maxAppended(440)+1, dim)...)
			answers(t, w, "a", dim)
			saveNow(w, "a")
			w.Close()
			if _, blocks, err := fileView(indexPath(dir, "a")); err != nil || len(blocks) != 0 {
				t.Fatalf("after %d facts added: %d blocks (%v), want a whole file", maxAppended(440)+1, len(blocks), err)
			}
		})
	}
}

// TestIndexFile_AppendedTorn cuts and damages the blocks appended to an
// index file: truncated at the start, inside the header, at the start,
// middle and end of each section and before the end mark of every
// block, a byte flipped in its header, record and end mark. The load
// takes the blocks before the damaged one and reads the rows they lack
// from the database, answering as a load from the rows; a float32
// vector flipped is read from the database when a search reaches it.
func TestIndexFile_AppendedTorn(t *testing.T) {
	const dim = 16
	dir := t.TempDir()
	src, good := appendedBank(t, dir, false, 3, dim)
	path := indexPath(dir, "a")
	_, blocks, err := fileView(path)
	if err != nil || len(blocks) != 3 {
		t.Fatalf("%d blocks (%v), want 3", len(blocks), err)
	}
	want := fresh(t, src, "a", dim)
	type damage struct {
		name string
		file []byte
		rows int // rows the load reads
	}
	var cases []damage
	after := 0 // facts the blocks from k on add
	for _, b := range blocks {
		after += int(b.added)
	}
	for k, b := range blocks {
		cut := func(name string, at uint64) {
			cases = append(cases, damage{fmt.Sprintf("Block%d/Truncated%s@%d", k, name, at), slices.Clone(good[:at]), after})
		}
		flip := func(name string, at uint64) {
			f := slices.Clone(good)
			f[at] ^= 0x20
			cases = append(cases, damage{fmt.Sprintf("Block%d/Flipped%s@%d", k, name, at), f, after})
		}
		cut("Start", b.start)
		cut("Magic", b.start+3)
		cut("Header", b.start+uint64(blockFixed)/2)
		flip("Magic", b.start+3)
		flip("Header", b.start+uint64(blockFixed)/2)
		flip("HeaderChecksum", b.sec[blkRecord].off-1-(b.sec[blkRecord].off-(b.start+uint64(blockFixed+len(b.lastID)+4))))
		for i, s := range b.sec {
			if s.len == 0 {
				continue
			}
			name := []string{"Record", "Float", "Graph"}[i]
			for _, at := range []uint64{s.off, s.off + s.len/2, s.off + s.len - 1} {
				cut(name, at)
				if i != blkFloat {
					flip(name, at)
				}
			}
		}
		cut("EndMark", b.end-1)
		flip("EndMark", b.end-1)
		after -= int(b.added)
	}
	last := blocks[len(blocks)-1]
	f := slices.Clone(good)
	f[last.sec[blkFloat].off+5] ^= 0x40
	cases = append(cases, damage{"FlippedVector", f, 0})
	// The same blocks after another whole file of the bank (its header
	// changed, its checksum made again): they chain to another header.
	h, _, err := fileView(path)
	if err != nil {
		t.Fatal(err)
	}
	h.version--
	other := append(appendHeader(nil, &h), good[h.headerLen:]...)
	all := 0
	for _, b := range blocks {
		all += int(b.added)
	}
	cases = append(cases, damage{"BlocksOfAnotherHeader", other, all})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rows := loadFileAnswers(t, path, c.file, src, dir, dim, want, "a damaged block")
			if rows != c.rows {
				t.Errorf("read %d rows, want the %d the damaged block and those after it add", rows, c.rows)
			}
		})
	}
}

// TestIndexFile_AppendedGraph checks that a block appended once the
// graph has linked saveAfter slots the file lacks carries the graph, which
// the next load searches at once without linking a node, answering as a
// graph built from the rows; and that a block without a graph (fewer
// slots linked since) leaves the file's last graph, its slots after it
// linked by the load.
func TestIndexFile_AppendedGraph(t *testing.T) {
	defer func(s float64) { appendShare = s }(appendShare)
	appendShare = 4 // a small bank's graph is most of a block
	defer func(s float64) { appendedSaves = s }(appendedSaves)
	appendedSaves = 2 // two blocks of more than saveAfter facts together
	defer func(d time.Duration) { saveDelay = d }(saveDelay)
	saveDelay = time.Hour // only the test's writes: none in the background
	const dim = 24
	ctx := context.Background()
	src := newFakeSource()
	src.write("a", graphRows(12, 0, 2000, dim)...)
	dir := t.TempDir()
	path := indexPath(dir, "a")
	m := graphMirror(src, dir)
	graphAnswers(t, m, "a", dim)
	m.Close()
	base, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w := graphMirror(src, dir)
	defer w.Close()
	graphAnswers(t, w, "a", dim)
	for r, add := range []int{600, 40} {
		from := 2000 + 600*r
		src.add("a", graphRows(13+uint64(r), from, add, dim)...)
		graphAnswers(t, w, "a", dim) // takes the rows and links them
		saveNow(w, "a")
		b, err := os.ReadFile(path)
		if err != nil || !slices.Equal(b[:len(base)], base) {
			t.Fatalf("round %d: the file was rewritten (%v)", r, err)
		}
		_, blocks, err := fileView(path)
		if err != nil || len(blocks) != r+1 {
			t.Fatalf("round %d: %d blocks (%v), want %d", r, len(blocks), err, r+1)
		}
		if hasGraph := blocks[r].sec[blkGraph].len > 0; hasGraph != (add >= saveAfter(0)) {
			t.Fatalf("round %d: block of %d facts with a graph %v", r, add, hasGraph)
		}
		rows := graphMirror(src, "")
		want := graphAnswers(t, rows, "a", dim)
		rows.Close()
		n := countLinked(t)
		cs := &countingSource{Source: src}
		m := graphMirror(cs, dir)
		st, err := m.Stats(ctx, "a")
		if err != nil || st.Linked != 2600 {
			t.Errorf("round %d: graph covers %d slots at the first search (%v), want the last graph's 2600", r, st.Linked, err)
		}
		got := graphAnswers(t, m, "a", dim)
		m.Close()
		if cs.rows != 0 || n.Load() != int64(from+add-2600) {
			t.Errorf("round %d: the load read %d rows and linked %d nodes, want none and %d", r, cs.rows, n.Load(), from+add-2600)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: answers of the appended graph differ from a graph built from the rows:\n got %v\nwant %v", r, got, want)
		}
	}
}

// TestIndexFile_AppendedForgot checks that after Mirror.Forgot the next
// write of a bank whose file had blocks is a whole file, not a block
// after bytes that held forgotten facts.
func TestIndexFile_AppendedForgot(t *testing.T) {
	const dim = 16
	dir := t.TempDir()
	src, _ := appendedBank(t, dir, false, 2, dim)
	path := indexPath(dir, "a")
	w := persistMirror(src, dir, false)
	defer w.Close()
	answers(t, w, "a", dim)
	src.add("a", persistRows(90, 800, 10, dim)...)
	answers(t, w, "a", dim)
	w.Forgot("a")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("index file after Forgot: %v, want none", err)
	}
	src.add("a", persistRows(91, 810, 10, dim)...)
	answers(t, w, "a", dim)
	saveNow(w, "a")
	h, blocks, err := fileView(path)
	if err != nil || len(blocks) != 0 || h.version != src.banks["a"].version {
		t.Fatalf("after Forgot: %d blocks (%v), version %d; want a whole file at %d", len(blocks), err, h.version, src.banks["a"].version)
	}
}

// BenchmarkIndexFileAppend times the write of a bank's index file after
// facts were added to a bank of 100k facts of 384 dimensions
// (MNEMO_BENCH_FACTS sets another size; no graph: the benchmark's
// threshold is 0) — 1,000 facts, saveAfter (the write the mirror makes,
// and the most blocks may add: maxAppended) and 4·saveAfter (blocks
// allowed that many here) — or 100 facts deleted (whole documents, and
// facts of none: the document mirror takes them from the block): a
// block appended (Append) against the whole file written again (Whole),
// each reporting the bytes it wrote; and the load, as a first search
// does, of the file with that block (LoadAppended) against the whole
// file (LoadWhole).
//
//	go test ./store/sqlite/internal/mirror -run X -bench IndexFileAppend -benchtime 3x
func BenchmarkIndexFileAppend(b *testing.B) {
	defer func(d time.Duration) { saveDelay = d }(saveDelay)
	saveDelay = time.Hour // no background write: only the timed ones
	const dim = 384
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("MNEMO_BENCH_FACTS")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	defer func(s float64) { appendedSaves = s }(appendedSaves)
	appendedSaves = 4
	type change struct{ added, deleted int }
	for _, c := range []change{{1_000, 0}, {saveAfter(n), 0}, {4 * saveAfter(n), 0}, {0, 100}} {
		name := fmt.Sprintf("Added=%d", c.added)
		if c.deleted > 0 {
			name = fmt.Sprintf("Deleted=%d", c.deleted)
		}
		src := newFakeSource()
		src.write("a", persistRows(8, 0, n, dim)...)
		dir := b.TempDir()
		path := indexPath(dir, "a")
		m := persistMirror(src, dir, false)
		if _, err := m.PKs(ctx, "a", nil); err != nil {
			b.Fatal(err)
		}
		saveNow(m, "a")
		base, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		if c.added > 0 {
			src.add("a", persistRows(9, n, c.added, dim)...)
		}
		if c.deleted > 0 {
			// Whole documents from the middle of the bank, then facts of
			// none, c.deleted in all.
			var gone []string
			for d := n / 12; len(gone) < c.deleted; d++ {
				ids := src.idsOf("a", ofDocument(fmt.Sprint("d", d)))
				if len(gone)+len(ids) > c.deleted {
					break
				}
				gone = append(gone, ids...)
			}
			for k := n / 2; len(gone) < c.deleted; k++ {
				if k%11 == 5 {
					gone = append(gone, fmt.Sprint("f", k))
				}
			}
			src.removeAll("a", gone)
		}
		if _, err := m.PKs(ctx, "a", nil); err != nil { // takes the rows
			b.Fatal(err)
		}
		x := m.facts["a"]
		x.mu.Lock()
		file, fileVersion, since, delLog := x.file, x.fileVersion, x.sinceFile, x.delLog
		x.mu.Unlock()
		// restore puts the whole file back as it was before the rows were
		// added or deleted, and the index's knowledge of it.
		restore := func(b *testing.B) {
			if err := os.WriteFile(path, base, 0o600); err != nil {
				b.Fatal(err)
			}
			info, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			x.mu.Lock()
			x.file, x.fileVersion, x.sinceFile, x.delLog = file, fileVersion, since, delLog
			x.file.info = info
			x.mu.Unlock()
		}
		load := func(b *testing.B) { benchLoad(b, src, dir) }
		runtime.GC() // the set-up's garbage is not the timed loads' to collect
		b.Run(name+"/Append", func(b *testing.B) {
			var wrote int64
			for b.Loop() {
				b.StopTimer()
				restore(b)
				before := appended.Load()
				b.StartTimer()
				saveNow(m, "a")
				wrote += appended.Load() - before
			}
			if _, blocks, err := fileView(path); err != nil || len(blocks) != 1 {
				b.Fatalf("%d blocks (%v), want 1", len(blocks), err)
			}
			// The loads time the file and its block alone: no row read,
			// for the facts or the documents.
			cs := &countingSource{Source: src}
			docRows.Store(0)
			m := persistMirror(cs, dir, false)
			if _, err := m.SearchDocuments(ctx, "a", []string{"lake"}, 5); err != nil {
				b.Fatal(err)
			}
			m.mu.Lock()
			m.closed = true
			m.mu.Unlock()
			m.Close()
			if cs.rows != 0 || docRows.Load() != 0 {
				b.Fatalf("a load of the file with its block read %d rows and %d for the documents", cs.rows, docRows.Load())
			}
			b.ReportMetric(float64(wrote)/float64(b.N)/1e6, "MB/write")
		})
		b.Run(name+"/LoadAppended", load)
		b.Run(name+"/Whole", func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				restore(b)
				x.mu.Lock()
				x.file.info = nil // written whole
				x.mu.Unlock()
				b.StartTimer()
				saveNow(m, "a")
			}
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			if _, blocks, err := fileView(path); err != nil || len(blocks) != 0 {
				b.Fatalf("%d blocks (%v), want a whole file", len(blocks), err)
			}
			b.ReportMetric(float64(st.Size())/1e6, "MB/write")
		})
		b.Run(name+"/LoadWhole", load)
		m.Close()
	}
}
