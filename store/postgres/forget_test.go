package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/postgres"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestStore_ForgetLeavesNoTrace forgets a fact whose word is also an
// entity's name, a relation's and an observation's, then finds neither
// the word (as written or lower-cased) nor the fact's id in any row of
// any table of the schema, and the BM25 statistics (bank counters,
// document frequencies, postings, document lengths) equal a count of the
// facts left.
func TestStore_ForgetLeavesNoTrace(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, schemaURL(t))
	const word, id = "Zanzibarquokka", "fact-zq-7781"
	if err := s.CreateBank(ctx, &memory.Bank{ID: "b", Name: "b"}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		w := storetest.NewTestBatch("b", fmt.Sprintf("filler%d", i), "Alice walks the dog in the park", fmt.Sprintf("Bob counts to %d twice", i))
		if _, err := s.Write(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	w := storetest.NewTestBatch("b", "d1", "Caroline met "+word+" at the harbour", "Caroline likes sailing at the harbour")
	w.Facts[0].ID = id
	ent, car := memory.EntityID(word), memory.EntityID("Caroline")
	w.Entities = []memory.EntityUpsert{
		{Entity: memory.Entity{ID: ent, Name: word, Type: memory.EntityPerson}, Mentions: 1, Episodes: 1, Embedding: storetest.TestVector(word, storetest.TestDimension)},
		{Entity: memory.Entity{ID: car, Name: "Caroline", Type: memory.EntityPerson}, Mentions: 2, Episodes: 1},
	}
	w.Refs = []memory.EntityRef{{FactID: id, EntityID: ent}, {FactID: id, EntityID: car}, {FactID: w.Facts[1].ID, EntityID: car}}
	w.Cooccurrences = []memory.Cooccurrence{{EntityA: min(ent, car), EntityB: max(ent, car), Count: 1}}
	w.Links = []memory.Link{{FromID: id, ToID: w.Facts[1].ID, Kind: memory.LinkTemporal, Weight: 1}, {FromID: w.Facts[1].ID, ToID: id, Kind: memory.LinkTemporal, Weight: 1}}
	w.Relations = []*memory.Relation{{ID: "r1", BankID: "b", SubjectID: car, Predicate: "met", ObjectID: ent, Confidence: 1, FactIDs: []string{id}}}
	if _, err := s.Write(ctx, w); err != nil {
		t.Fatal(err)
	}
	if err := s.PutObservations(ctx, "b", []*memory.Observation{{ID: "o1", Text: "Caroline keeps meeting " + word, SourceFactIDs: []string{id}, Status: memory.StatusActive, CreatedAt: time.Now(), UpdatedAt: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	needles := []string{word, strings.ToLower(word), id}
	if n := scanSchema(t, s, needles); n == 0 {
		t.Fatal("before forget: no row holds the word; the scan cannot fail")
	}
	if _, err := s.Forget(ctx, "b", []string{id}, &memory.ForgetRecord{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	if n := scanSchema(t, s, needles); n != 0 {
		t.Errorf("after forget: %d row(s) still hold the forgotten word or id", n)
	}
	checkBankStats(t, s, "b")
	checkDocStats(t, s, "b")
	// The forget vacuumed the tables it deleted from.
	var vacuumed bool
	if err := s.Pool().QueryRow(ctx, `SELECT last_vacuum IS NOT NULL FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = 'facts'`).Scan(&vacuumed); err != nil {
		t.Fatal(err)
	}
	if !vacuumed {
		t.Error("facts was not vacuumed after the forget")
	}
	hits, err := s.SearchText(ctx, "b", []string{"harbour"}, 10, memory.Filter{})
	if err != nil || len(hits) != 1 || hits[0].ID != w.Facts[1].ID {
		t.Errorf("SearchText(harbour) after forget: %v, %v; want %s only", hits, err, w.Facts[1].ID)
	}
}

// checkDocStats checks the postings and document statistics of a bank
// against a count of its facts.
func checkDocStats(t *testing.T, s *postgres.Store, bank string) {
	t.Helper()
	for name, q := range map[string]string{
		"fact_lexemes": `SELECT count(*) FROM (
			(SELECT lexeme, seq, tf FROM fact_lexemes WHERE bank_id = $1
			EXCEPT SELECT u.lexeme, f.seq, cardinality(u.positions) FROM facts f, unnest(f.tsv) u WHERE f.bank_id = $1)
			UNION ALL
			(SELECT u.lexeme, f.seq, cardinality(u.positions) FROM facts f, unnest(f.tsv) u WHERE f.bank_id = $1
			EXCEPT SELECT lexeme, seq, tf FROM fact_lexemes WHERE bank_id = $1)) x`,
		"doc_lexemes": `SELECT count(*) FROM (
			(SELECT lexeme, document_id, tf::bigint FROM doc_lexemes WHERE bank_id = $1
			EXCEPT SELECT u.lexeme, f.document_id, sum(cardinality(u.positions)) FROM facts f, unnest(f.tsv) u WHERE f.bank_id = $1 AND f.document_id <> '' GROUP BY 1, 2)
			UNION ALL
			(SELECT u.lexeme, f.document_id, sum(cardinality(u.positions)) FROM facts f, unnest(f.tsv) u WHERE f.bank_id = $1 AND f.document_id <> '' GROUP BY 1, 2
			EXCEPT SELECT lexeme, document_id, tf::bigint FROM doc_lexemes WHERE bank_id = $1)) x`,
		"doc_stats": `SELECT count(*) FROM (
			(SELECT document_id, words, first_seq FROM doc_stats WHERE bank_id = $1
			EXCEPT SELECT document_id, sum(words), min(seq) FROM facts WHERE bank_id = $1 AND document_id <> '' GROUP BY 1)
			UNION ALL
			(SELECT document_id, sum(words), min(seq) FROM facts WHERE bank_id = $1 AND document_id <> '' GROUP BY 1
			EXCEPT SELECT document_id, words, first_seq FROM doc_stats WHERE bank_id = $1)) x`,
	} {
		var wrong int
		if err := s.Pool().QueryRow(context.Background(), q, bank).Scan(&wrong); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if wrong != 0 {
			t.Errorf("%s: %d rows differ from a count of the facts", name, wrong)
		}
	}
}

// scanSchema reads every row of every table of the store's schema as text
// and returns how many hold one of needles, logging each.
func scanSchema(t *testing.T, s *postgres.Store, needles []string) int {
	t.Helper()
	ctx := context.Background()
	rows, err := s.Pool().Query(ctx, `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)
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
	if len(tables) < 10 {
		t.Fatalf("found %d tables in the schema: %v", len(tables), tables)
	}
	found := 0
	for _, table := range tables {
		rs, err := s.Pool().Query(ctx, `SELECT x::text FROM "`+table+`" x`)
		if err != nil {
			t.Fatalf("scan %s: %v", table, err)
		}
		for rs.Next() {
			var row string
			if err := rs.Scan(&row); err != nil {
				t.Fatal(err)
			}
			for _, n := range needles {
				if strings.Contains(row, n) {
					t.Logf("table %s holds %q", table, n)
					found++
				}
			}
		}
		rs.Close()
	}
	return found
}
