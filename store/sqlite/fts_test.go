package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// TestStore_FTSMatchesIndex checks that the file's FTS5 index and the
// in-process keyword index agree on which facts a term matches, through
// writes, a replacement and bank isolation.
func TestStore_FTSMatchesIndex(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	texts := []string{
		"Caroline went to the LGBTQ support group",
		"Melanie is painting a sunrise by the lake",
		"They were running a charity race for mental health",
		"Caroline runs every morning before work",
		"The support from her friends kept Melanie going",
	}
	for _, bank := range []string{"a", "b"} {
		if err := s.CreateBank(ctx, &memory.Bank{ID: bank}); err != nil {
			t.Fatal(err)
		}
		for v, hash := range []string{"h1", "h2"} { // the second version replaces the first
			w := &memory.WriteBatch{BankID: bank, Document: &memory.Document{ID: fmt.Sprintf("d%d", v), Source: "s", ItemID: "i", ContentHash: hash}}
			for i, text := range texts[v:] {
				w.Facts = append(w.Facts, &memory.Fact{ID: fmt.Sprintf("%s-%d-%d", bank, v, i), Text: text, Speaker: "Narrator"})
			}
			if _, err := s.Write(ctx, w); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, term := range []string{"caroline", "support", "running", "runs", "melanie", "narrator", "lake", "absent"} {
		for _, bank := range []string{"a", "b"} {
			rows, err := s.rdb.QueryContext(ctx, `SELECT f.id FROM facts_fts JOIN facts f ON f.pk = facts_fts.rowid WHERE facts_fts MATCH ? ORDER BY f.id`, ftsQuery(bank, []string{term}))
			if err != nil {
				t.Fatal(err)
			}
			fts, err := scanStrings(rows)
			if err != nil {
				t.Fatal(err)
			}
			hits, err := s.SearchText(ctx, bank, []string{term}, 100, memory.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, h.ID)
			}
			slices.Sort(got)
			if !slices.Equal(got, fts) {
				t.Errorf("bank %s, term %q: index matches %q, FTS5 matches %q", bank, term, got, fts)
			}
		}
	}
}

// TestStore_WriteManyFTS checks that the full-text rows WriteMany holds
// back until the end of its transaction land for exactly the facts that
// do: through an item replaced within the transaction (A, then B, then A
// again, whose document removes A's first facts), and a batch that fails
// after such a replacement flushed the rows held so far.
func TestStore_WriteManyFTS(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateBank(ctx, &memory.Bank{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	batch := func(doc, item, hash string, ids ...string) *memory.WriteBatch {
		w := &memory.WriteBatch{BankID: "a", Document: &memory.Document{ID: doc, Source: "s", ItemID: item, ContentHash: hash}}
		for _, id := range ids {
			w.Facts = append(w.Facts, &memory.Fact{ID: id, DocumentID: doc, Text: "word" + id + " shared", Speaker: "Narrator"})
		}
		return w
	}
	ws := []*memory.WriteBatch{
		batch("dA", "x", "hA", "a1", "a2"),
		batch("dB", "x", "hB", "b1"),
		batch("dA", "x", "hA", "a1", "a2", "a3"), // A again: its first facts go
		batch("dA", "x", "hC", "c1", "c1"),       // replaces dA, then fails on a repeated id
		batch("dZ", "z", "hZ", "z1"),
	}
	out := s.WriteMany(ctx, ws)
	for i, want := range []bool{true, true, true, false, true} {
		if (out[i].Err == nil) != want {
			t.Fatalf("batch %d: err = %v, want success %v", i, out[i].Err, want)
		}
	}
	pks, err := scanInts(s.rdb.QueryContext(ctx, `SELECT pk FROM facts ORDER BY pk`))
	if err != nil {
		t.Fatal(err)
	}
	rowids, err := scanInts(s.rdb.QueryContext(ctx, `SELECT rowid FROM facts_fts ORDER BY rowid`))
	if err != nil {
		t.Fatal(err)
	}
	if len(pks) != 5 || !slices.Equal(rowids, pks) {
		t.Errorf("full-text rowids %v, want the 5 facts' pks %v", rowids, pks)
	}
	for _, id := range []string{"a1", "a2", "a3", "b1", "z1"} {
		rows, err := s.rdb.QueryContext(ctx, `SELECT f.id FROM facts_fts JOIN facts f ON f.pk = facts_fts.rowid WHERE facts_fts MATCH ?`, ftsQuery("a", []string{"word" + id}))
		if err != nil {
			t.Fatal(err)
		}
		got, err := scanStrings(rows)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, []string{id}) {
			t.Errorf("full-text match of %s: %q, want [%s]", id, got, id)
		}
	}
}

// scanInts collects the single integer column of rows.
func scanInts(rows *sql.Rows, err error) ([]int64, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}
