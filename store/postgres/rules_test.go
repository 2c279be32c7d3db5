package postgres_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/internal/bm25"
	"github.com/mnemo-ai/mnemo/internal/lex"
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
		{"", "私は京都に住んでいます"},
		{"美咲", "Tom去了Kyoto京都。서울에 살아요"},
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
		err := s.Pool().QueryRow(ctx, `SELECT tsv = to_tsvector('english'::regconfig, mnemo_cjk($2::text)),
				words = mnemo_tsvector_words(to_tsvector('english'::regconfig, mnemo_cjk($2::text)))
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

// TestStore_CJKIsLex: mnemo_cjk splits text where package lex does —
// every code point up to past the last CJK block is a CJK character to
// both or to neither (a CJK
// character between two Latin letters stands alone) — and a run of CJK
// characters gives lex.Words' character pairs.
func TestStore_CJKIsLex(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, schemaURL(t))
	var got []int32
	err := s.Pool().QueryRow(ctx, `SELECT coalesce(array_agg(cp ORDER BY cp), '{}') FROM generate_series(1, 212991) cp
		WHERE (cp < 55296 OR cp > 57343) AND mnemo_cjk('a' || chr(cp) || 'b') <> 'a' || chr(cp) || 'b'`).Scan(&got)
	if err != nil {
		t.Fatal(err)
	}
	var want []int32
	for r := rune(1); r <= 0x33FFF; r++ { // past the last CJK block
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		if w := lex.Words("a" + string(r) + "b"); len(w) == 3 && w[1] == string(r) {
			want = append(want, r)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("mnemo_cjk splits %d code points, lex %d: they differ", len(got), len(want))
	}
	for _, text := range []string{"東京都に行った", "서울에 살아요", "Tom去了Kyoto京都", "京", "no cjk here"} {
		var lexemes []string
		if err := s.Pool().QueryRow(ctx, `SELECT coalesce(array_agg(lexeme ORDER BY lexeme), '{}') FROM unnest(to_tsvector('simple'::regconfig, mnemo_cjk($1)))`, text).Scan(&lexemes); err != nil {
			t.Fatal(err)
		}
		words := slices.Compact(slices.Sorted(slices.Values(lex.Words(text))))
		if !slices.Equal(lexemes, words) {
			t.Errorf("lexemes of %q: got %q, want lex's words %q", text, lexemes, words)
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
			FROM (SELECT DISTINCT lexeme FROM unnest(to_tsvector('english'::regconfig, mnemo_cjk($2::text)))) q
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
