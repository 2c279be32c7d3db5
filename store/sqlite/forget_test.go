package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/sqlite"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// forgetWord and forgetID are the forgotten fact's distinctive word and
// id, looked for in every table and every byte of the files.
const (
	forgetWord = "Zanzibarquokka"
	forgetID   = "fact-zq-7781"
)

// writeForgettable fills bank b of s with a document whose one fact
// carries forgetWord (in its text, its entity's name, a relation and an
// observation) among many others, so the full-text index has segments
// to merge.
func writeForgettable(t *testing.T, ctx context.Context, s *sqlite.Store) {
	t.Helper()
	if err := s.CreateBank(ctx, &memory.Bank{ID: "b", Name: "b"}); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		w := storetest.NewTestBatch("b", fmt.Sprintf("filler%d", i), "Alice walks the dog in the park", fmt.Sprintf("Bob counts to %d twice", i))
		if _, err := s.Write(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	w := storetest.NewTestBatch("b", "d1", "Caroline met "+forgetWord+" at the harbour", "Caroline likes sailing")
	w.Facts[0].ID = forgetID
	w.Facts[0].Evidence = "she said " + strings.ToLower(forgetWord)
	ent := memory.EntityID(forgetWord)
	car := memory.EntityID("Caroline")
	w.Entities = []memory.EntityUpsert{
		{Entity: memory.Entity{ID: ent, Name: forgetWord, Type: memory.EntityPerson}, Mentions: 1, Episodes: 1, Embedding: storetest.TestVector(forgetWord, storetest.TestDimension)},
		{Entity: memory.Entity{ID: car, Name: "Caroline", Type: memory.EntityPerson}, Mentions: 2, Episodes: 1},
	}
	w.Refs = []memory.EntityRef{{FactID: forgetID, EntityID: ent}, {FactID: forgetID, EntityID: car}, {FactID: w.Facts[1].ID, EntityID: car}}
	w.Cooccurrences = []memory.Cooccurrence{{EntityA: min(ent, car), EntityB: max(ent, car), Count: 1}}
	w.Links = []memory.Link{{FromID: forgetID, ToID: w.Facts[1].ID, Kind: memory.LinkTemporal, Weight: 1}, {FromID: w.Facts[1].ID, ToID: forgetID, Kind: memory.LinkTemporal, Weight: 1}}
	w.Relations = []*memory.Relation{{ID: "r1", BankID: "b", SubjectID: car, Predicate: "met", ObjectID: ent, Confidence: 1, FactIDs: []string{forgetID}}}
	if _, err := s.Write(ctx, w); err != nil {
		t.Fatal(err)
	}
	if err := s.PutObservations(ctx, "b", []*memory.Observation{{ID: "o1", Text: "Caroline keeps meeting " + forgetWord, SourceFactIDs: []string{forgetID}, Status: memory.StatusActive}}); err != nil {
		t.Fatal(err)
	}
	// Load the search mirror, so the forget must reach it too.
	hits, err := s.SearchText(ctx, "b", []string{strings.ToLower(forgetWord)}, 5, memory.Filter{})
	if err != nil || len(hits) != 1 {
		t.Fatalf("SearchText(%s) before forget: %v, %v", forgetWord, hits, err)
	}
}

// TestStore_ForgetLeavesNoTrace forgets a fact, then finds neither its
// distinctive word (as written or lower-cased) nor its id in any row of
// any table (FTS shadow tables included), nor anywhere in the bytes of
// the database file and its WAL once the store is closed.
func TestStore_ForgetLeavesNoTrace(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mnemo.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	writeForgettable(t, ctx, s)
	needles := [][]byte{[]byte(forgetWord), []byte(strings.ToLower(forgetWord)), []byte(forgetID)}
	// The needles are on disk before: the test can fail.
	if n := scanTables(t, path, needles); n == 0 {
		t.Fatal("before forget: no table holds the word; the scan cannot fail")
	}
	rec, err := s.Forget(ctx, "b", []string{forgetID}, &memory.ForgetRecord{Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Counts.Entities != 1 || rec.Counts.Relations != 1 || rec.Counts.Observations != 1 {
		t.Errorf("Forget counts: %+v, want the entity, relation and observation gone", rec.Counts)
	}
	if hits, err := s.SearchText(ctx, "b", []string{strings.ToLower(forgetWord)}, 5, memory.Filter{}); err != nil || len(hits) != 0 {
		t.Errorf("SearchText after forget: %v, %v; want none", hits, err)
	}
	if n := scanTables(t, path, needles); n != 0 {
		t.Errorf("after forget: %d row(s) still hold the forgotten word or id", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(name)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range needles {
			if i := bytes.Index(b, n); i >= 0 {
				t.Errorf("%s holds %q at byte %d after forget", filepath.Base(name), n, i)
			}
		}
	}
}

// scanTables reads every column of every row of every table of the file
// at path and returns how many rows hold one of needles, logging each.
func scanTables(t *testing.T, path string, needles [][]byte) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	found := 0
	for _, table := range tables {
		rs, err := db.Query(`SELECT * FROM "` + table + `"`)
		if err != nil {
			// Virtual tables (contentless FTS5) have no readable columns;
			// their shadow tables (…_data, …_idx) are scanned instead.
			continue
		}
		cols, _ := rs.Columns()
		for rs.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rs.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				var b []byte
				switch v := v.(type) {
				case []byte:
					b = v
				case string:
					b = []byte(v)
				}
				for _, n := range needles {
					if bytes.Contains(b, n) {
						t.Logf("table %s column %s holds %q", table, cols[i], n)
						found++
					}
				}
			}
		}
		rs.Close()
	}
	return found
}

// TestStore_ForgetLeavesNoTraceInIndexFile forgets a fact of a bank whose
// search index has its index file beside the database, and finds neither
// the forgotten word nor the fact's id in any file of the index folder,
// whether the forget was the store's only change or it closes at once.
func TestStore_ForgetLeavesNoTraceInIndexFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mnemo.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	writeForgettable(t, ctx, s)
	if err := s.Close(); err != nil { // writes the index file
		t.Fatal(err)
	}
	needles := [][]byte{[]byte(strings.ToLower(forgetWord)), []byte(forgetID)}
	// The needles are in the index file before: the test can fail.
	if n := scanFiles(t, sqlite.IndexDir(path), needles); n == 0 {
		t.Fatal("before forget: no index file holds the word or the id; the scan cannot fail")
	}
	s, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if hits, err := s.SearchText(ctx, "b", []string{"alice"}, 5, memory.Filter{}); err != nil || len(hits) == 0 {
		t.Fatalf("SearchText from the index file: %v, %v", hits, err)
	}
	if _, err := s.Forget(ctx, "b", []string{forgetID}, nil); err != nil {
		t.Fatal(err)
	}
	if n := scanFiles(t, sqlite.IndexDir(path), needles); n != 0 {
		t.Errorf("after forget: %d index file(s) still hold the forgotten word or id", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := scanFiles(t, sqlite.IndexDir(path), needles); n != 0 {
		t.Errorf("after forget and close: %d index file(s) still hold the forgotten word or id", n)
	}
	if entries, err := os.ReadDir(sqlite.IndexDir(path)); err != nil || len(entries) != 1 {
		t.Errorf("index folder after close: %v, %v; want the file written again, without the forgotten fact", entries, err)
	}
	// The next process still answers from the rows or a rewritten file.
	s, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if hits, err := s.SearchText(ctx, "b", []string{"alice"}, 50, memory.Filter{}); err != nil || len(hits) != 30 {
		t.Errorf("SearchText after forget, new store: %d hits, %v; want 30", len(hits), err)
	}
}

// scanFiles reads every file of dir and returns how many hold one of
// needles, logging each.
func scanFiles(t *testing.T, dir string, needles [][]byte) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	found := 0
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range needles {
			if i := bytes.Index(b, n); i >= 0 {
				t.Logf("%s holds %q at byte %d", e.Name(), n, i)
				found++
				break
			}
		}
	}
	return found
}
