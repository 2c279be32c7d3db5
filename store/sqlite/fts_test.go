package sqlite

import (
	"context"
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
