package mirror

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// FactID implements Snapshot for the fake.
func (s *fakeSnapshot) FactID(ctx context.Context, pk int64) (string, bool, error) {
	for _, r := range s.rows {
		if r.PK == pk {
			return r.ID, true, nil
		}
	}
	return "", false, nil
}

// LastRow implements Snapshot for the fake: the bank's highest row held
// (the fake gives rows after it, as AUTOINCREMENT would after the highest
// ever given).
func (s *fakeSnapshot) LastRow(ctx context.Context) (int64, error) {
	var last int64
	for _, r := range s.rows {
		last = max(last, r.PK)
	}
	return last, nil
}

// Rows implements Snapshot for the fake.
func (s *fakeSnapshot) Rows(ctx context.Context, upTo int64) (n int, sum int64, err error) {
	for _, r := range s.rows {
		if r.PK <= upTo {
			n++
			sum += r.PK
		}
	}
	return n, sum, nil
}

// Changed implements Snapshot for the fake.
func (s *fakeSnapshot) Changed(ctx context.Context, upTo int64, fn func(int64, memory.Status, int64)) error {
	for _, r := range s.rows {
		if r.PK <= upTo && (r.Status != string(memory.StatusActive) || r.ExpiredAt != 0) {
			fn(r.PK, memory.Status(r.Status), r.ExpiredAt)
		}
	}
	return nil
}

// Embedding implements Source for the fake.
func (f *fakeSource) Embedding(ctx context.Context, bank string, pk int64) ([]float32, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.banks[bank].rows {
		if r.PK == pk {
			return decodeVector(nil, r.Embedding), nil
		}
	}
	return nil, nil
}

// countingSource counts the fact rows its snapshots hand a load.
type countingSource struct {
	Source
	rows     int
	statuses int // rows Statuses gave
}

func (c *countingSource) Read(ctx context.Context, bank string) (Snapshot, error) {
	s, err := c.Source.Read(ctx, bank)
	if err != nil {
		return nil, err
	}
	return countingSnapshot{s, c}, nil
}

type countingSnapshot struct {
	Snapshot
	c *countingSource
}

func (s countingSnapshot) Statuses(ctx context.Context, upTo int64, fn func(int64, memory.Status, int64)) error {
	return s.Snapshot.Statuses(ctx, upTo, func(pk int64, st memory.Status, exp int64) { s.c.statuses++; fn(pk, st, exp) })
}

func (s countingSnapshot) Facts(ctx context.Context, after int64, fn func(*Row)) error {
	return s.Snapshot.Facts(ctx, after, func(r *Row) { s.c.rows++; fn(r) })
}

// setStatus changes a fact's status as another process would: the
// version moves, no Apply.
func (f *fakeSource) setStatus(bank, id string, st memory.Status, expiredAt int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.banks[bank]
	for i := range b.rows {
		if b.rows[i].ID == id {
			b.rows[i].Status, b.rows[i].ExpiredAt = string(st), expiredAt
		}
	}
	b.version++
}

// add appends rows as another process would, numbered after the last
// row ever given (the store's rows are AUTOINCREMENT: never reused).
func (f *fakeSource) add(bank string, rows ...Row) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.banks[bank]
	last := int64(0)
	for _, r := range b.rows {
		last = max(last, r.PK)
	}
	for _, r := range rows {
		last++
		r.PK = last
		b.rows = append(b.rows, r)
	}
	b.version++
}

// remove deletes a fact as another process would.
func (f *fakeSource) remove(bank, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.banks[bank]
	b.rows = slices.DeleteFunc(b.rows, func(r Row) bool { return r.ID == id })
	b.version++
}

// persistWords are the words of the test banks' facts: few, so terms
// repeat across facts and documents as in a real bank.
var persistWords = []string{"lake", "sunrise", "dog", "adopted", "Caroline", "support", "group", "painting", "Lisbon",
	"robotics", "startup", "quiet", "running", "meeting", "garden", "violin", "train", "museum", "river", "coffee"}

// persistRows returns n facts with vectors of dim dimensions (every
// seventh without one), tags, kinds, categories, event times, documents
// and a few sensitive ones, from seed.
func persistRows(seed uint64, from, n, dim int) []Row {
	rng := rand.New(rand.NewPCG(seed, 7))
	rows := make([]Row, n)
	for i := range rows {
		k := from + i
		var text string
		for range 4 + rng.IntN(8) {
			text += persistWords[rng.IntN(len(persistWords))] + " "
		}
		var vec []float32
		if k%7 != 3 {
			vec = unitVector(rng, dim)
		}
		doc := fmt.Sprint("d", k/6)
		if k%11 == 5 {
			doc = ""
		}
		r := row(fmt.Sprint("f", k), doc, text, vec)
		r.Speaker = []string{"", "Mel", "Tom"}[k%3]
		if k%4 == 1 {
			r.Tags = `["work","t` + fmt.Sprint(k%3) + `"]`
		}
		if k%5 == 2 {
			r.Kind = string(memory.KindExperience)
		}
		r.Category = string(memory.Categories()[k%len(memory.Categories())])
		if k%13 == 0 {
			r.Sensitivity = string(memory.SensitivitySensitive)
		}
		if k%3 != 0 {
			r.EventTime = int64(1_700_000_000_000_000 + k*3_600_000_000)
		}
		r.CreatedAt = int64(1_700_000_000_000_000 + k*1_000_000)
		rows[i] = r
	}
	return rows
}

// persistMirror returns a mirror of src with its index files in dir ("":
// none).
func persistMirror(src Source, dir string, floats bool) *Mirror {
	return New(src, func() Settings {
		return Settings{FloatVectors: floats, IndexWorkers: 1, SpillDir: os.TempDir(), IndexDir: dir, IndexTag: "test-schema"}
	})
}

// loadFileAnswers writes file as bank a's index file at path, loads the
// bank from it (the rows from src), fails the test unless its answers
// are want (those of a load from the rows; what names the damage), and
// returns how many rows the load read.
func loadFileAnswers(t *testing.T, path string, file []byte, src Source, dir string, dim int, want []any, what string) int {
	t.Helper()
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	got, cs := loadAnswers(t, src, dir, dim)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("answers with %s differ from the rows':\n got %v\nwant %v", what, got, want)
	}
	return cs.rows
}

// loadAnswers loads bank a from the index file in dir (the rows from
// src, counted) as a new process's first search does, and returns the
// answers and what the load read from src.
func loadAnswers(t *testing.T, src Source, dir string, dim int) ([]any, *countingSource) {
	t.Helper()
	cs := &countingSource{Source: src}
	m := persistMirror(cs, dir, false)
	defer m.Close()
	return answers(t, m, "a", dim), cs
}

// answers runs a fixed set of searches and lookups on bank and returns
// everything they answered, hits with their exact scores.
func answers(t *testing.T, m *Mirror, bank string, dim int) []any {
	t.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(99, 1))
	filters := []memory.Filter{
		{},
		{Tags: []string{"t1"}},
		{Kinds: []memory.FactKind{memory.KindExperience}},
		{Statuses: []memory.Status{memory.StatusActive, memory.StatusSuperseded}, Sensitive: true},
		{From: time.UnixMicro(1_700_000_000_000_000 + 100*3_600_000_000), To: time.UnixMicro(1_700_000_000_000_000 + 700*3_600_000_000)},
		{AsOf: time.UnixMicro(1_700_000_000_000_000 + 400*1_000_000)},
	}
	var out []any
	for _, f := range filters {
		for _, q := range [][]string{{"lake"}, {"dog", "adopted"}, {"Caroline support group"}, {"violin", "nothing"}} {
			hits, err := m.SearchText(ctx, bank, q, 10, f)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, hits)
		}
		for range 4 {
			hits, err := m.SearchVector(ctx, bank, unitVector(rng, dim), 10, f)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, hits)
		}
	}
	for _, q := range [][]string{{"lake"}, {"robotics startup"}, {"coffee", "river"}} {
		hits, err := m.SearchDocuments(ctx, bank, q, 5)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, hits)
	}
	nb, err := m.Neighbours(ctx, bank, []string{"f0", "f5", "f17", "f200", "f301", "nope"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	pks, err := m.PKs(ctx, bank, []string{"f3", "f250", "f9", "nope"})
	if err != nil {
		t.Fatal(err)
	}
	inactive, err := m.Inactive(ctx, bank)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, nb, pks, inactive)
}

// fresh returns the answers of a mirror with no index file.
func fresh(t *testing.T, src Source, bank string, dim int) []any {
	t.Helper()
	m := persistMirror(src, "", true)
	defer m.Close()
	return answers(t, m, bank, dim)
}

// TestIndexFile_SameAnswers checks that a mirror loaded from a bank's
// index file answers exactly as one loaded from the rows (same hits,
// same scores, same neighbours, rows and counts), with its vectors in
// memory or read from the file, without reading a row; that a file
// behind the database is brought level with only the rows added since
// (statuses changed and facts deleted by another process included); and
// that the files and their folder are private.
func TestIndexFile_SameAnswers(t *testing.T) {
	for _, floats := range []bool{false, true} {
		t.Run(fmt.Sprint("FloatVectors=", floats), func(t *testing.T) {
			const dim = 24
			src := newFakeSource()
			src.write("a", persistRows(1, 0, 400, dim)...)
			src.setStatus("a", "f10", memory.StatusSuperseded, 1_700_000_000_000_000+300*1_000_000)
			src.setStatus("a", "f11", memory.StatusArchived, 0)
			src.remove("a", "f12")
			dir := filepath.Join(t.TempDir(), "idx")

			m := persistMirror(src, dir, floats)
			answers(t, m, "a", dim) // loads from the rows
			m.Close()               // and writes the file
			path := indexPath(dir, "a")
			if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
				t.Fatalf("index file: %v, mode %v; want 0600", err, st.Mode().Perm())
			}
			if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
				t.Fatalf("index folder mode %v, want 0700", st.Mode().Perm())
			}

			want := fresh(t, src, "a", dim)
			cs := &countingSource{Source: src}
			m = persistMirror(cs, dir, floats)
			got := answers(t, m, "a", dim)
			m.Close()
			if cs.rows != 0 {
				t.Errorf("load from the file read %d rows, want 0", cs.rows)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("answers from the file differ from the rows':\n got %v\nwant %v", got, want)
			}

			// Another process writes: new facts, a status, a deletion.
			src.add("a", persistRows(2, 400, 30, dim)...)
			src.setStatus("a", "f20", memory.StatusArchived, 0)
			src.setStatus("a", "f10", memory.StatusActive, 0)
			src.remove("a", "f21")
			want = fresh(t, src, "a", dim)
			cs = &countingSource{Source: src}
			m = persistMirror(cs, dir, floats)
			got = answers(t, m, "a", dim)
			m.Close()
			if cs.rows != 30 {
				t.Errorf("load from a file behind the database read %d rows, want the 30 added since", cs.rows)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("answers from a stale file differ from the rows':\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestIndexFile_StatusesChanged checks that a file behind a database in
// which facts changed status (to active again with or without their
// expiry, superseded, archived) but none was deleted is brought level
// without reading every fact's status, and answers as a load from the
// rows; and that a deletion makes it read them all.
func TestIndexFile_StatusesChanged(t *testing.T) {
	const dim = 16
	src := newFakeSource()
	src.write("a", persistRows(6, 0, 300, dim)...)
	src.setStatus("a", "f1", memory.StatusSuperseded, 1_700_000_000_000_000+50*1_000_000)
	src.setStatus("a", "f2", memory.StatusArchived, 0)
	src.setStatus("a", "f3", memory.StatusSuperseded, 1_700_000_000_000_000+70*1_000_000)
	dir := t.TempDir()
	m := persistMirror(src, dir, false)
	answers(t, m, "a", dim)
	m.Close()

	src.setStatus("a", "f1", memory.StatusActive, 1_700_000_000_000_000+50*1_000_000) // active, still expired
	src.setStatus("a", "f2", memory.StatusActive, 0)
	src.setStatus("a", "f7", memory.StatusArchived, 0)
	src.setStatus("a", "f8", memory.StatusSuperseded, 1_700_000_000_000_000+200*1_000_000)
	src.add("a", persistRows(7, 300, 12, dim)...)
	want := fresh(t, src, "a", dim)
	got, cs := loadAnswers(t, src, dir, dim)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("answers after status changes differ from the rows':\n got %v\nwant %v", got, want)
	}
	if cs.rows != 12 || cs.statuses != 0 {
		t.Errorf("read %d rows and %d statuses, want the 12 new rows and no status", cs.rows, cs.statuses)
	}

	src.remove("a", "f9")
	want = fresh(t, src, "a", dim)
	got, cs = loadAnswers(t, src, dir, dim)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("answers after a deletion differ from the rows':\n got %v\nwant %v", got, want)
	}
	if cs.statuses != 299 {
		t.Errorf("read %d statuses after a deletion, want the 299 rows left of the file's 300", cs.statuses)
	}
}

// TestIndexFile_Corrupt checks that a torn, corrupted, foreign or stale
// index file is never trusted: the answers are those of a load from the
// rows, and the file is replaced by a good one.
func TestIndexFile_Corrupt(t *testing.T) {
	const dim = 16
	src := newFakeSource()
	src.write("a", persistRows(3, 0, 300, dim)...)
	src.write("b", persistRows(4, 0, 300, dim)...)
	want := fresh(t, src, "a", dim)
	dir := filepath.Join(t.TempDir(), "idx")
	m := persistMirror(src, dir, false)
	answers(t, m, "a", dim)
	answers(t, m, "b", dim)
	m.Close()
	path := indexPath(dir, "a")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.ReadFile(indexPath(dir, "b"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := func() (fileHeader, error) {
		f, err := os.Open(path)
		if err != nil {
			return fileHeader{}, err
		}
		defer f.Close()
		return readHeader(f)
	}()
	if err != nil {
		t.Fatal(err)
	}
	idxAt, idxEnd := int(h.sec[secIndex].off), int(h.sec[secIndex].off+h.sec[secIndex].len)
	floatAt := int(h.sec[secFloat].off)
	flip := func(at int) func([]byte) []byte {
		return func(b []byte) []byte { b = slices.Clone(b); b[at] ^= 0x10; return b }
	}
	type damage struct {
		name string
		file func([]byte) []byte
		// lazy: the damage is in the float32 vectors, which the load
		// does not read.
		lazy bool
		// tail: bytes after the end mark, a block torn by a crash or
		// bytes someone appended: the load ignores them and takes the
		// file, which stays.
		tail bool
	}
	cases := []damage{
		{"Empty", func([]byte) []byte { return nil }, false, false},
		{"TruncatedHeader", func(b []byte) []byte { return b[:20] }, false, false},
		{"TruncatedIndex", func(b []byte) []byte { return b[:idxAt+(idxEnd-idxAt)/2] }, false, false},
		{"TruncatedVectors", func(b []byte) []byte { return b[:floatAt+100] }, false, false},
		{"TruncatedTrailer", func(b []byte) []byte { return b[:len(b)-3] }, false, false},
		{"FlippedVersion", flip(len(fileMagic) + 4 + 4 + 8 + 8), false, false},
		{"FlippedHeaderChecksum", flip(int(h.headerLen) - 2), false, false},
		{"FlippedString", flip(idxAt + 12), false, false},
		{"FlippedEntry", flip(idxAt + (idxEnd-idxAt)/3), false, false},
		// A vector is checked when a search reads it: the load takes the
		// rest of the file, the bad vectors come from the database, and
		// the file is replaced.
		{"FlippedVector", flip(floatAt + 77), true, false},
		{"FlippedEveryVector", func(b []byte) []byte {
			b = slices.Clone(b)
			for at := floatAt + 5; at < floatAt+4*dim*300; at += 4 * dim {
				b[at] ^= 0x40
			}
			return b
		}, true, false},
		{"FlippedEndMark", flip(len(good) - 1), false, false},
		{"Appended", func(b []byte) []byte { return append(slices.Clone(b), 0) }, true, true},
		{"AppendedBlockMagic", func(b []byte) []byte {
			return append(append(slices.Clone(b), make([]byte, int(alignUp(uint64(len(b))))-len(b))...), blockMagic...)
		}, true, true},
		{"OtherBank", func([]byte) []byte { return other }, false, false},
	}
	// Every section but the vectors is checked whole on load: a byte
	// flipped at its start, middle or end is found there. The int8
	// vectors are checked a group at a time as a search reads them: the
	// load takes the file, the bad group is made again from the float32
	// vectors, and the file is replaced.
	for i, sec := range h.sec {
		if i == secFloat || sec.len == 0 {
			continue
		}
		for _, at := range []int{int(sec.off), int(sec.off + sec.len/2), int(sec.off+sec.len) - 1} {
			cases = append(cases, damage{fmt.Sprintf("Flipped%s@%d", sectionNames[i], at), flip(at), lazySection(i), false})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rows := loadFileAnswers(t, path, c.file(good), src, dir, dim, want, "a bad file")
			if want := map[bool]int{false: 300, true: 0}[c.lazy]; rows != want {
				t.Errorf("read %d rows, want %d", rows, want)
			}
			if b, err := os.ReadFile(path); err != nil || !slices.Equal(b, good) && !(c.tail && slices.Equal(b, c.file(good))) {
				t.Errorf("the bad file was not replaced by a good one (%v)", err)
			}
		})
	}

	t.Run("Ahead", func(t *testing.T) {
		// A file newer than the database (put back from a backup): not
		// used, and left for the process that wrote it.
		ahead := newFakeSource()
		ahead.write("a", persistRows(3, 0, 300, dim)...)
		ahead.banks["a"].version = 0
		if err := os.WriteFile(path, good, 0o600); err != nil {
			t.Fatal(err)
		}
		_, cs := loadAnswers(t, ahead, dir, dim)
		if cs.rows != 300 {
			t.Errorf("read %d rows, want all 300", cs.rows)
		}
	})

	t.Run("OtherDatabase", func(t *testing.T) {
		// The same bank, version and rows, but another fact in the last
		// row: the file is another database's.
		alt := newFakeSource()
		rows := persistRows(3, 0, 300, dim)
		rows[299].ID = "someone-else"
		alt.write("a", rows...)
		if err := os.WriteFile(path, good, 0o600); err != nil {
			t.Fatal(err)
		}
		wantAlt := fresh(t, alt, "a", dim)
		got, cs := loadAnswers(t, alt, dir, dim)
		if cs.rows != 300 || !reflect.DeepEqual(got, wantAlt) {
			t.Errorf("read %d rows (want 300); answers equal a fresh load's: %v", cs.rows, reflect.DeepEqual(got, wantAlt))
		}
	})

	t.Run("Restored", func(t *testing.T) {
		// A database put back from a backup taken before the file's last
		// rows, then written to: rows of the file's are other facts now.
		restored := newFakeSource()
		rows := persistRows(3, 0, 300, dim)
		restored.write("a", rows[:250]...)
		restored.banks["a"].created = src.banks["a"].created
		more := persistRows(21, 1000, 20, dim)
		restored.add("a", more...)
		restored.banks["a"].version = src.banks["a"].version + 5
		if err := os.WriteFile(path, good, 0o600); err != nil {
			t.Fatal(err)
		}
		wantR := fresh(t, restored, "a", dim)
		got, cs := loadAnswers(t, restored, dir, dim)
		if cs.rows != 270 || !reflect.DeepEqual(got, wantR) {
			t.Errorf("read %d rows (want 270); answers equal a fresh load's: %v", cs.rows, reflect.DeepEqual(got, wantR))
		}
	})

	t.Run("RestoredBeforeDeletion", func(t *testing.T) {
		// The file's history deleted a fact; the database was put back
		// from before that and written to: it holds a row the file never
		// saw, up to the file's last.
		dir := t.TempDir()
		after := newFakeSource()
		after.write("a", persistRows(3, 0, 300, dim)...)
		after.remove("a", "f50")
		m := persistMirror(after, dir, false)
		answers(t, m, "a", dim)
		m.Close()
		before := newFakeSource()
		before.write("a", persistRows(3, 0, 300, dim)...)
		before.banks["a"].created = after.banks["a"].created
		before.setStatus("a", "f60", memory.StatusArchived, 0)
		before.banks["a"].version = after.banks["a"].version + 3
		wantB := fresh(t, before, "a", dim)
		got, cs := loadAnswers(t, before, dir, dim)
		if cs.rows != 300 || !reflect.DeepEqual(got, wantB) {
			t.Errorf("read %d rows (want 300); answers equal a fresh load's: %v", cs.rows, reflect.DeepEqual(got, wantB))
		}
	})

	t.Run("OtherBuild", func(t *testing.T) {
		if err := os.WriteFile(path, good, 0o600); err != nil {
			t.Fatal(err)
		}
		cs := &countingSource{Source: src}
		m := New(cs, func() Settings { return Settings{IndexWorkers: 1, IndexDir: dir, IndexTag: "another-schema"} })
		got := answers(t, m, "a", dim)
		m.Close()
		if cs.rows != 300 || !reflect.DeepEqual(got, want) {
			t.Errorf("a file of another schema: read %d rows (want 300)", cs.rows)
		}
	})
}

// TestIndexFile_Drop checks that dropping a bank (the store deleted it)
// removes its index file, and that a bank made again under the same
// name does not read the old one.
func TestIndexFile_Drop(t *testing.T) {
	const dim = 8
	src := newFakeSource()
	src.write("a", persistRows(5, 0, 50, dim)...)
	dir := t.TempDir()
	m := persistMirror(src, dir, false)
	answers(t, m, "a", dim)
	m.Close()
	path := indexPath(dir, "a")
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	m = persistMirror(src, dir, false)
	defer m.Close()
	answers(t, m, "a", dim)
	m.Drop("a")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("index file after Drop: %v, want none", err)
	}
}

// benchLoad times bank a's first load by a new mirror over src with its
// index files in dir ("": none), to its first document search; the
// mirror is closed without writing, untimed.
func benchLoad(b *testing.B, src Source, dir string) {
	for b.Loop() {
		m := persistMirror(src, dir, false)
		if _, err := m.SearchDocuments(context.Background(), "a", []string{"lake"}, 5); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		m.mu.Lock()
		m.closed = true // no write on Close: only the load is timed
		m.mu.Unlock()
		m.Close()
		b.StartTimer()
	}
}

// BenchmarkIndexFile measures a bank's first load at 10k facts of 384
// dimensions: from the rows (Rows), from its index file (File), from its
// index file with the graph (FileGraph), and the file's write (Write).
//
//	go test ./store/sqlite/internal/mirror -run X -bench IndexFile -benchmem
func BenchmarkIndexFile(b *testing.B) {
	const n, dim = 10_000, 384
	src := newFakeSource()
	src.write("a", persistRows(8, 0, n, dim)...)
	dir := b.TempDir()
	ctx := context.Background()
	m := persistMirror(src, dir, false)
	if _, err := m.PKs(ctx, "a", nil); err != nil {
		b.Fatal(err)
	}
	m.Close()
	load := func(b *testing.B, dir string) { benchLoad(b, src, dir) }
	b.Run("Rows", func(b *testing.B) { load(b, "") })
	b.Run("File", func(b *testing.B) { load(b, dir) })
	b.Run("FileGraph", func(b *testing.B) {
		// The same bank with its graph (built once, written with the
		// file): the load reads it instead of linking 10k nodes.
		gdir := b.TempDir()
		m := graphMirror(src, gdir)
		if err := m.WaitIndexed(ctx, "a"); err != nil {
			b.Fatal(err)
		}
		m.Close()
		for b.Loop() {
			m := graphMirror(src, gdir)
			st, err := m.Stats(ctx, "a")
			if err != nil || st.Linked != n {
				b.Fatalf("graph of %d slots (%v), want %d from the file", st.Linked, err, n)
			}
			b.StopTimer()
			m.Close() // writes nothing: the file holds the whole graph
			b.StartTimer()
		}
	})
	b.Run("Write", func(b *testing.B) {
		m := persistMirror(src, "", false)
		defer m.Close()
		x, err := m.index(ctx, "a")
		if err != nil {
			b.Fatal(err)
		}
		x.indexDir, x.fp = b.TempDir(), fingerprint("test-schema")
		for b.Loop() {
			x.mu.Lock()
			x.fileVersion, x.saving = -1, false
			m.startSave("a", x, nil)
			x.mu.Unlock()
			m.saves.Wait()
			if x.fileVersion != x.version {
				b.Fatal("no file written")
			}
		}
	})
}

// TestIndexFile_ReadOnly checks that a mirror of a database opened
// read-only reads a bank's index file but never writes or removes one.
func TestIndexFile_ReadOnly(t *testing.T) {
	const dim = 8
	src := newFakeSource()
	src.write("a", persistRows(9, 0, 80, dim)...)
	dir := t.TempDir()
	readOnly := func(src Source) *Mirror {
		return New(src, func() Settings {
			return Settings{IndexWorkers: 1, IndexDir: dir, IndexTag: "test-schema", IndexReadOnly: true}
		})
	}
	m := readOnly(src)
	answers(t, m, "a", dim)
	m.Close()
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 0 {
		t.Fatalf("a read-only mirror wrote %v", names)
	}
	m = persistMirror(src, dir, false)
	answers(t, m, "a", dim)
	m.Close()
	good, err := os.ReadFile(indexPath(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	cs := &countingSource{Source: src}
	m = readOnly(cs)
	answers(t, m, "a", dim)
	m.Close()
	if cs.rows != 0 {
		t.Errorf("a read-only mirror read %d rows, want the file's", cs.rows)
	}
	bad := slices.Clone(good)
	bad[len(bad)/3] ^= 1
	if err := os.WriteFile(indexPath(dir, "a"), bad, 0o600); err != nil {
		t.Fatal(err)
	}
	m = readOnly(src)
	answers(t, m, "a", dim)
	m.Close()
	if b, _ := os.ReadFile(indexPath(dir, "a")); !slices.Equal(b, bad) {
		t.Error("a read-only mirror replaced or removed a bad file")
	}
}

// TestIndexFile_Background checks that a mirror that stays open writes
// a bank's index file by itself after a load from the rows, and again
// once enough facts came in through Apply, without a Close.
func TestIndexFile_Background(t *testing.T) {
	defer func(d time.Duration) { saveDelay = d }(saveDelay)
	saveDelay = 10 * time.Millisecond
	const dim = 8
	src := newFakeSource()
	src.write("a", persistRows(10, 0, 100, dim)...)
	dir := t.TempDir()
	m := persistMirror(src, dir, false)
	defer m.Close()
	answers(t, m, "a", dim)
	version := func() int64 {
		h, blocks, err := fileView(indexPath(dir, "a"))
		if err != nil {
			return -1
		}
		if n := len(blocks); n > 0 {
			return blocks[n-1].version
		}
		return h.version
	}
	wait := func(want int64) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); version() != want; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("index file at version %d, want %d", version(), want)
			}
		}
	}
	wait(1)
	var v int64
	for i := range saveAfter(0) - 1 {
		var c *Change
		v, c = src.write("a", persistRows(11+uint64(i), 100+i, 1, dim)...)
		m.Apply("a", v, c)
	}
	time.Sleep(50 * time.Millisecond)
	if got := version(); got != 1 {
		t.Fatalf("index file rewritten at version %d after %d facts, want it left until %d", got, saveAfter(0)-1, saveAfter(0))
	}
	v, c := src.write("a", persistRows(9999, 5000, 1, dim)...)
	m.Apply("a", v, c)
	wait(v)
}

// graphMirror returns a mirror of src with its index files in dir ("":
// none) that builds a graph from 50 vectors, with one builder, so a
// bank's graph is the same however it is built.
func graphMirror(src Source, dir string) *Mirror {
	return New(src, func() Settings {
		return Settings{ANNThreshold: 50, IndexWorkers: 1, SpillDir: os.TempDir(), IndexDir: dir, IndexTag: "test-schema"}
	})
}

// graphAnswers loads bank, waits for its graph and returns answers.
func graphAnswers(t *testing.T, m *Mirror, bank string, dim int) []any {
	t.Helper()
	if err := m.WaitIndexed(context.Background(), bank); err != nil {
		t.Fatal(err)
	}
	return answers(t, m, bank, dim)
}

// graphRows returns persistRows with every ninth vector a copy of the
// first, so the graph holds copies too.
func graphRows(seed uint64, from, n, dim int) []Row {
	rows := persistRows(seed, from, n, dim)
	for i := range rows {
		if (from+i)%9 == 4 {
			rows[i].Embedding = rows[0].Embedding
		}
	}
	return rows
}

// countLinked counts the nodes graph builders link until the test ends.
func countLinked(t *testing.T) *atomic.Int64 {
	var n atomic.Int64
	linked = func() { n.Add(1) }
	t.Cleanup(func() { linked = nil })
	return &n
}

// fileHeaderOf reads the header of the bank's index file in dir.
func fileHeaderOf(t *testing.T, dir, bank string) fileHeader {
	t.Helper()
	f, err := os.Open(indexPath(dir, bank))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := readHeader(f)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestIndexFile_Graph checks that a bank's graph is written with its
// index file and searched from it at once, without linking a node, with
// the answers of a graph built from the rows; and that a file behind
// the database gets the facts added since linked into its graph, which
// then answers as one built from all the rows.
func TestIndexFile_Graph(t *testing.T) {
	const dim = 24
	ctx := context.Background()
	src := newFakeSource()
	src.write("a", graphRows(12, 0, 700, dim)...)
	dir := t.TempDir()
	m := graphMirror(src, dir)
	want := graphAnswers(t, m, "a", dim)
	m.Close()
	// The graph is in the whole file, or in a block appended once it
	// was linked (a background write may have come before).
	h, blocks, err := fileView(indexPath(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	graph := h.sec[secGraph].len
	for _, b := range blocks {
		graph = max(graph, b.sec[blkGraph].len)
	}
	if graph == 0 {
		t.Fatal("the index file holds no graph")
	}

	n := countLinked(t)
	cs := &countingSource{Source: src}
	m = graphMirror(cs, dir)
	st, err := m.Stats(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if st.Linked != 700 {
		t.Errorf("graph covers %d slots at the first search, want the file's 700", st.Linked)
	}
	got := graphAnswers(t, m, "a", dim)
	m.Close()
	if cs.rows != 0 || n.Load() != 0 {
		t.Errorf("load from the file read %d rows and linked %d nodes, want none", cs.rows, n.Load())
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("answers from the file's graph differ from a graph built from the rows:\n got %v\nwant %v", got, want)
	}

	// Another process writes 60 facts: the next load links only them.
	src.add("a", graphRows(13, 700, 60, dim)...)
	m = graphMirror(src, "")
	want = graphAnswers(t, m, "a", dim)
	m.Close()
	n.Store(0)
	m = graphMirror(src, dir)
	got = graphAnswers(t, m, "a", dim)
	if st, err := m.Stats(ctx, "a"); err != nil || st.Linked != 760 {
		t.Errorf("graph covers %d slots (%v), want 760", st.Linked, err)
	}
	m.Close()
	if n.Load() != 60 {
		t.Errorf("linked %d nodes into the file's graph, want the 60 added", n.Load())
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("answers of the file's graph grown by the new facts differ from one built from the rows:\n got %v\nwant %v", got, want)
	}
}

// TestIndexFile_GraphRecall checks the graph read from the file finds
// what an exact search finds, and goes on doing so with new vectors.
func TestIndexFile_GraphRecall(t *testing.T) {
	const dim = 32
	ctx := context.Background()
	src := newFakeSource()
	src.write("a", graphRows(14, 0, 3000, dim)...)
	dir := t.TempDir()
	m := graphMirror(src, dir)
	graphAnswers(t, m, "a", dim)
	m.Close()
	src.add("a", graphRows(15, 3000, 600, dim)...)
	m = graphMirror(src, dir)
	defer m.Close()
	graphAnswers(t, m, "a", dim)
	rng := rand.New(rand.NewPCG(3, 4))
	var sum float64
	const queries = 100
	for range queries {
		q := unitVector(rng, dim)
		got, err := m.SearchVector(ctx, "a", q, 10, memory.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		exact, err := m.SearchVectorExact(ctx, "a", q, 10, memory.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		ids := hitIDs(exact)
		for _, h := range got {
			if slices.Contains(ids, h.ID) {
				sum += 0.1
			}
		}
	}
	if r := sum / queries; r < 0.95 {
		t.Errorf("recall@10 of the file's graph grown by 600 vectors = %.3f, want ≥ 0.95", r)
	}
}

// TestIndexFile_GraphCorrupt checks that an index file with a graph that
// is torn at any section, has a byte flipped in its graph, or is ahead
// of the database is never trusted: the answers are those of a graph
// built from the rows, and a bad file is replaced by a good one.
func TestIndexFile_GraphCorrupt(t *testing.T) {
	defer func(d time.Duration) { saveDelay = d }(saveDelay)
	saveDelay = time.Hour // Close writes the file whole, graph included
	const dim = 16
	src := newFakeSource()
	src.write("a", graphRows(16, 0, 600, dim)...)
	dir := t.TempDir()
	m := graphMirror(src, dir)
	want := graphAnswers(t, m, "a", dim)
	m.Close()
	path := indexPath(dir, "a")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := fileHeaderOf(t, dir, "a")
	graph := h.sec[secGraph]
	graphAt, graphEnd := int(graph.off), int(graph.off+graph.len)
	if graph.len == 0 || int(h.sec[secSums].off+h.sec[secSums].len)+trailerLen != len(good) {
		t.Fatalf("graph of %d bytes, sections end at %d of %d", graph.len, h.sec[secSums].off+h.sec[secSums].len, len(good))
	}
	type damage struct {
		name string
		file func([]byte) []byte
	}
	var cases []damage
	truncate := func(name string, at int) {
		cases = append(cases, damage{fmt.Sprintf("Truncated%s@%d", name, at), func(b []byte) []byte { return b[:at] }})
	}
	for _, at := range []int{0, int(h.headerLen) / 2, int(h.headerLen) - 1} {
		truncate("Header", at)
	}
	for i, sec := range h.sec {
		if sec.len > 0 {
			for _, at := range []int{int(sec.off), int(sec.off + sec.len/2), int(sec.off+sec.len) - 1} {
				truncate(sectionNames[i], at)
			}
		}
	}
	truncate("Trailer", len(good)-1)
	for _, at := range []int{graphAt, graphAt + 9, graphAt + 30, graphAt + 40, (graphAt + graphEnd) / 2, graphEnd - 5} {
		cases = append(cases, damage{fmt.Sprintf("FlippedGraph@%d", at), func(b []byte) []byte {
			b = slices.Clone(b)
			b[at] ^= 0x04
			return b
		}})
	}
	// The header changed and its checksum made again: what it says of
	// the sections must still agree with the file and the sections.
	header := func(name string, change func(h *fileHeader)) {
		cases = append(cases, damage{name, func(b []byte) []byte {
			b = slices.Clone(b)
			h2 := h
			change(&h2)
			copy(b, appendHeader(nil, &h2))
			return b
		}})
	}
	header("GraphLength", func(h *fileHeader) {
		// A graph a few bytes longer, the float32 vectors that much
		// shorter: the lengths still add up.
		h.sec[secGraph].len += 8
		h.sec[secFloat].len -= 8
	})
	header("GraphMoved", func(h *fileHeader) { h.sec[secGraph].off += sectionAlign })
	for i := range h.sec {
		header("SectionChecksum-"+sectionNames[i], func(h *fileHeader) { h.sec[i].crc ^= 1 })
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(path, c.file(good), 0o600); err != nil {
				t.Fatal(err)
			}
			cs := &countingSource{Source: src}
			m := graphMirror(cs, dir)
			got := graphAnswers(t, m, "a", dim)
			m.Close()
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("answers with a bad file differ from a graph built from the rows:\n got %v\nwant %v", got, want)
			}
			if cs.rows != 600 {
				t.Errorf("read %d rows, want all 600", cs.rows)
			}
			if b, err := os.ReadFile(path); err != nil || !slices.Equal(b, good) {
				t.Errorf("the bad file was not replaced by a good one (%v)", err)
			}
		})
	}
	t.Run("Ahead", func(t *testing.T) {
		// The file is newer than the database (put back from a backup):
		// its graph is not used either.
		ahead := newFakeSource()
		ahead.write("a", graphRows(16, 0, 600, dim)...)
		ahead.banks["a"].version = 0
		if err := os.WriteFile(path, good, 0o600); err != nil {
			t.Fatal(err)
		}
		cs := &countingSource{Source: ahead}
		m := graphMirror(cs, dir)
		got := graphAnswers(t, m, "a", dim)
		m.Close()
		if cs.rows != 600 || !reflect.DeepEqual(got, want) {
			t.Errorf("read %d rows (want 600); answers equal a graph built from the rows: %v", cs.rows, reflect.DeepEqual(got, want))
		}
	})
	t.Run("Deleted", func(t *testing.T) {
		// Facts deleted since the file: the graph read is the file's,
		// the answers those of the rows left.
		if err := os.WriteFile(path, good, 0o600); err != nil {
			t.Fatal(err)
		}
		del := newFakeSource()
		del.write("a", graphRows(16, 0, 600, dim)...)
		del.banks["a"].created = src.banks["a"].created
		del.remove("a", "f100")
		del.remove("a", "f598")
		del.banks["a"].version = src.banks["a"].version + 2
		m := graphMirror(del, dir)
		got := graphAnswers(t, m, "a", dim)
		m.Close()
		for _, hs := range got {
			if hits, ok := hs.([]memory.Hit); ok {
				for _, h := range hits {
					if h.ID == "f100" || h.ID == "f598" {
						t.Fatalf("a deleted fact found: %v", hits)
					}
				}
			}
		}
	})
}

// TestIndexFile_GraphBackground checks that a mirror that stays open
// writes the graph into the bank's index file once the graph has linked
// every slot, though the file was written before it (without one).
func TestIndexFile_GraphBackground(t *testing.T) {
	defer func(d time.Duration) { saveDelay = d }(saveDelay)
	saveDelay = 10 * time.Millisecond
	const dim = 16
	src := newFakeSource()
	src.write("a", graphRows(17, 0, 700, dim)...)
	dir := t.TempDir()
	gate := make(chan struct{})
	var once sync.Once
	linked = func() { once.Do(func() { <-gate }) } // the build waits for the first file
	t.Cleanup(func() { linked = nil })
	m := graphMirror(src, dir)
	defer m.Close()
	if _, err := m.PKs(context.Background(), "a", nil); err != nil {
		t.Fatal(err)
	}
	graphLen := func() int64 {
		h, blocks, err := fileView(indexPath(dir, "a"))
		if err != nil {
			return -1
		}
		n := int64(h.sec[secGraph].len)
		for _, b := range blocks {
			if b.sec[blkGraph].len > 0 {
				n = int64(b.sec[blkGraph].len)
			}
		}
		return n
	}
	wait := func(ok func(int64) bool, what string) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !ok(graphLen()); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no index file %s (graph of %d bytes)", what, graphLen())
			}
		}
	}
	wait(func(n int64) bool { return n == 0 }, "without a graph while the graph builds")
	close(gate)
	wait(func(n int64) bool { return n > 0 }, "with the graph once it is linked")
}

// TestIndexFile_GraphDeleted checks that a graph with dead slots (facts
// deleted after it linked them, the first of them a node others copy)
// is written renumbered as the file's slots: the next load searches it
// whole at once, without linking a node, never finds a deleted fact and
// finds what an exact search finds.
func TestIndexFile_GraphDeleted(t *testing.T) {
	const dim = 24
	ctx := context.Background()
	src := newFakeSource()
	src.write("a", graphRows(18, 0, 900, dim)...)
	dir := t.TempDir()
	m := graphMirror(src, dir)
	graphAnswers(t, m, "a", dim)
	// f0's vector is copied by every ninth; the last row stays (the
	// fake's rows would look put back from a backup without it).
	gone := []string{"f0", "f3", "f4", "f100", "f500", "f700"}
	for _, id := range gone {
		src.remove("a", id)
	}
	graphAnswers(t, m, "a", dim) // the deletions reach the index as dead slots
	m.Close()

	n := countLinked(t)
	m = graphMirror(src, dir)
	defer m.Close()
	st, err := m.Stats(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if want := 900 - len(gone); st.Linked != want || st.Slots != want {
		t.Errorf("graph covers %d of %d slots at the first search, want all %d", st.Linked, st.Slots, want)
	}
	r := vectorRecall(t, m, rand.New(rand.NewPCG(5, 5)), rowVector(graphRows(18, 0, 1, dim)[0]), gone)
	if n.Load() != 0 {
		t.Errorf("linked %d nodes, want none: the file's graph holds every live slot", n.Load())
	}
	if r < 0.9 {
		t.Errorf("recall@10 of the renumbered graph = %.3f, want ≥ 0.9", r)
	}
}

// vectorRecall returns the recall@10 of m's SearchVector on bank a
// against its exact search over 100 queries: random unit vectors from
// rng, every fourth one copied, a vector several facts share. A hit
// among gone (facts deleted) fails the test.
func vectorRecall(t *testing.T, m *Mirror, rng *rand.Rand, copied []float32, gone []string) float64 {
	t.Helper()
	ctx := context.Background()
	dim := len(copied)
	var sum float64
	const queries = 100
	for j := range queries {
		q := unitVector(rng, dim)
		if j%4 == 0 {
			q = copied
		}
		got, err := m.SearchVector(ctx, "a", q, 10, memory.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		exact, err := m.SearchVectorExact(ctx, "a", q, 10, memory.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		ids := hitIDs(exact)
		for _, h := range got {
			if slices.Contains(gone, h.ID) {
				t.Fatalf("deleted fact %s found", h.ID)
			}
			if slices.Contains(ids, h.ID) {
				sum += 0.1
			}
		}
	}
	return sum / queries
}

// rowVector returns r's embedding as float32s.
func rowVector(r Row) []float32 {
	v := make([]float32, len(r.Embedding)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(r.Embedding[4*i:]))
	}
	return v
}

// TestIndexFile_Stale checks a file behind a newer database — rows added
// since, facts deleted, a status changed, by another process — is used
// for what it holds and brought level by the load: the answers are those
// of a load from the rows, and only the rows added since are read.
func TestIndexFile_Stale(t *testing.T) {
	const dim = 16
	src := newFakeSource()
	src.write("a", persistRows(3, 0, 300, dim)...)
	dir := t.TempDir()
	m := persistMirror(src, dir, false)
	answers(t, m, "a", dim)
	m.Close()
	src.add("a", persistRows(23, 1000, 25, dim)...)
	src.remove("a", "f10")
	src.remove("a", "f200")
	src.setStatus("a", "f20", memory.StatusArchived, 0)
	src.setStatus("a", "f21", memory.StatusSuperseded, 1_700_000_500_000_000)
	want := fresh(t, src, "a", dim)
	got, cs := loadAnswers(t, src, dir, dim)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("answers from a stale file differ from the rows':\n got %v\nwant %v", got, want)
	}
	if cs.rows != 25 {
		t.Errorf("read %d rows, want the 25 added since the file", cs.rows)
	}
}

// TestIndexFile_MappedWrites checks an index loaded from its mapped file
// takes writes as one loaded from the rows: facts added (appended to
// arrays that are the file's), then a third of them deleted until
// compaction makes every array anew and lets the file go; at each step
// the answers are those of a mirror loaded from the rows that took the
// same writes, and the file is never changed by them.
func TestIndexFile_MappedWrites(t *testing.T) {
	const dim = 16
	src := newFakeSource()
	src.write("a", persistRows(3, 0, 300, dim)...)
	dir := t.TempDir()
	m := persistMirror(src, dir, false)
	answers(t, m, "a", dim)
	m.Close()
	good, err := os.ReadFile(indexPath(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	cs := &countingSource{Source: src}
	m = persistMirror(cs, dir, false)
	defer m.Close()
	rows := persistMirror(src, "", false)
	defer rows.Close()
	same := func(step string) {
		t.Helper()
		if got, want := answers(t, m, "a", dim), answers(t, rows, "a", dim); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s, answers differ from the rows':\n got %v\nwant %v", step, got, want)
		}
	}
	same("loaded")
	mapped := func() bool {
		m.mu.Lock()
		x := m.facts["a"]
		m.mu.Unlock()
		x.mu.RLock()
		defer x.mu.RUnlock()
		return x.mapped != nil
	}
	if cs.rows != 0 || !mapped() {
		t.Fatalf("read %d rows, mapped %v: want the file, mapped", cs.rows, mapped())
	}
	for i := range 40 {
		v, c := src.write("a", persistRows(40+uint64(i), 300+i, 1, dim)...)
		c.Count()
		m.Apply("a", v, c)
		rows.Apply("a", v, c)
	}
	same("after adding facts")
	for k := 0; k < 300; k += 3 {
		src.remove("a", fmt.Sprint("f", k))
		var c Change
		c.Remove(int64(k + 1))
		m.Apply("a", src.banks["a"].version, &c)
		rows.Apply("a", src.banks["a"].version, &c)
	}
	st, err := m.Stats(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	if st.Slots >= 340 || mapped() {
		t.Fatalf("%d slots for %d live facts, mapped %v: want compacted (340 slots before), the file let go", st.Slots, st.Live, mapped())
	}
	same("after compaction")
	if cs.rows != 0 {
		t.Errorf("read %d rows: the writes should have applied", cs.rows)
	}
	if b, err := os.ReadFile(indexPath(dir, "a")); err != nil || !slices.Equal(b, good) {
		t.Errorf("the index file changed under the writes (%v)", err)
	}
}
