package postgres_test

import (
	"context"
	"math"
	"testing"

	"github.com/mnemo-ai/mnemo/internal/bm25"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestStore_SearchBodyIsMemoryBody: the facts table's generated search
// columns (tsv, words), which spell a fact's body in SQL, hold what
// memory.Body gives for the fact's speaker and text.
func TestStore_SearchBodyIsMemoryBody(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, schemaURL(t))
	if err := s.CreateBank(ctx, &memory.Bank{ID: "b", Name: "b"}); err != nil {
		t.Fatal(err)
	}
	said := []struct{ speaker, text string }{
		{"", "Oolong is a tea"},
		{"Priya", "I like green tea"},
		{"Dr. Jane-Doe", "the meeting moved to Tuesday"},
		{"Tom", "Tom says: coffee, always"},
		{"   ", "a speaker of spaces"},
	}
	texts := make([]string, len(said))
	for i, x := range said {
		texts[i] = x.text
	}
	w := storetest.NewTestBatch("b", "doc", texts...)
	for i, x := range said {
		w.Facts[i].Speaker = x.speaker
	}
	if _, err := s.Write(ctx, w); err != nil {
		t.Fatal(err)
	}
	for _, f := range w.Facts {
		body := memory.Body(f.Speaker, f.Text)
		var same, sameWords bool
		err := s.Pool().QueryRow(ctx, `SELECT tsv = to_tsvector('english'::regconfig, $2::text),
				words = mnemo_tsvector_words(to_tsvector('english'::regconfig, $2::text))
			FROM facts WHERE bank_id = 'b' AND id = $1`, f.ID, body).Scan(&same, &sameWords)
		if err != nil {
			t.Fatalf("fact %s: %v", f.ID, err)
		}
		if !same || !sameWords {
			t.Errorf("fact %s (speaker %q, text %q): tsv equal %v, words equal %v to those of memory.Body %q; want both",
				f.ID, f.Speaker, f.Text, same, sameWords, body)
		}
	}
}

// TestStore_SearchTextScoresAreBM25: SearchText's scores, computed in
// SQL, are package bm25's formula over the statistics the store keeps.
func TestStore_SearchTextScoresAreBM25(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, schemaURL(t))
	if err := s.CreateBank(ctx, &memory.Bank{ID: "b", Name: "b"}); err != nil {
		t.Fatal(err)
	}
	w := storetest.NewTestBatch("b", "doc",
		"coffee with breakfast every single morning",
		"coffee coffee coffee every morning",
		"tea with breakfast",
		"a long fact about tea and coffee and cake and the morning walk to the bakery",
		"zebras graze quietly",
	)
	if _, err := s.Write(ctx, w); err != nil {
		t.Fatal(err)
	}
	terms := []string{"coffee", "breakfast", "mornings"}
	hits, err := s.SearchText(ctx, "b", terms, 10, memory.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 4 {
		t.Fatalf("SearchText(%q): got %d hits, want 4", terms, len(hits))
	}
	var n, words float64
	if err := s.Pool().QueryRow(ctx, `SELECT fact_count, fact_words FROM banks WHERE id = 'b'`).Scan(&n, &words); err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		rows, err := s.Pool().Query(ctx, `SELECT l.df, t.tf, t.words
			FROM (SELECT DISTINCT lexeme FROM unnest(to_tsvector('english'::regconfig, $2::text))) q
			JOIN lexemes l ON l.bank_id = 'b' AND l.lexeme = q.lexeme
			JOIN facts f ON f.bank_id = 'b' AND f.id = $1
			JOIN fact_lexemes t ON t.bank_id = 'b' AND t.seq = f.seq AND t.lexeme = q.lexeme`, h.ID, "coffee breakfast mornings")
		if err != nil {
			t.Fatal(err)
		}
		var want float64
		for rows.Next() {
			var df, tf, length float64
			if err := rows.Scan(&df, &tf, &length); err != nil {
				t.Fatal(err)
			}
			want += bm25.Term(bm25.IDF(n, df), tf, bm25.Norm(length, words/n))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if want <= 0 || math.Abs(h.Score-want) > 1e-9*want {
			t.Errorf("SearchText score of %s: got %.12g, want bm25's %.12g", h.ID, h.Score, want)
		}
	}
}
