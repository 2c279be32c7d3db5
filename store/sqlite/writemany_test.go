package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// TestStore_WriteManyReplaced checks that the facts a WriteMany leaves
// are exactly the ones keyword search finds, through an item replaced
// within the transaction (A, then B, then A again, whose document removes
// A's first facts) and a batch that fails after such a replacement.
func TestStore_WriteManyReplaced(t *testing.T) {
	ctx := context.Background()
	s := openBank(t, filepath.Join(t.TempDir(), "x.db"), "a")
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
	rows, err := s.rdb.QueryContext(ctx, `SELECT id FROM facts ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := scanStrings(rows)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a1", "a2", "a3", "b1", "z1"}; !slices.Equal(ids, want) {
		t.Fatalf("facts %q, want %q", ids, want)
	}
	for _, id := range []string{"a1", "a2", "a3", "b1", "c1", "z1"} {
		// b1 is stored superseded (A came back after B).
		every := memory.Filter{Statuses: []memory.Status{memory.StatusActive, memory.StatusSuperseded}}
		hits, err := s.SearchText(ctx, "a", []string{"word" + id}, 10, every)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.ID)
		}
		want := []string{id}
		if id == "c1" {
			want = nil // its batch was rolled back
		}
		if !slices.Equal(got, want) {
			t.Errorf("search for word%s: %q, want %q", id, got, want)
		}
	}
}

// TestStore_Migration031 opens a database as migration 031 found it —
// the facts' FTS5 table full, no partial index of masked facts — and
// checks that the upgrade drops the table, makes the index, and that
// Stats counts the masked facts, per bank, through it (its query names
// the index: SQLite refuses it if the index cannot serve it).
func TestStore_Migration031(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, bank := range []string{"a", "b"} {
		if err := s.CreateBank(ctx, &memory.Bank{ID: bank}); err != nil {
			t.Fatal(err)
		}
		w := &memory.WriteBatch{BankID: bank, Document: &memory.Document{ID: "d", Source: "s", ItemID: "i", ContentHash: "h"}}
		for i, text := range []string{"the key is [REDACTED:api_key]", "a redacted memo", "mail [REDACTED:email] and [REDACTED:phone]", "plain"} {
			if bank == "b" && i > 0 {
				break
			}
			w.Facts = append(w.Facts, &memory.Fact{ID: fmt.Sprint(bank, i), Text: text})
		}
		if _, err := s.Write(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	// Back to the schema before 031.
	for _, q := range []string{
		`DROP INDEX facts_redacted`,
		`CREATE VIRTUAL TABLE facts_fts USING fts5(bank, body, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2')`,
		`INSERT INTO facts_fts (rowid, bank, body) SELECT pk, bank_id, text FROM facts`,
		`DELETE FROM migrations WHERE name = '031_no_facts_fts.sql'`,
	} {
		if _, err := s.wdb.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	if err := s.rdb.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_schema WHERE name LIKE 'facts_fts%'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("facts_fts tables after the upgrade: %d (%v), want none", n, err)
	}
	for bank, want := range map[string]int{"a": 2, "b": 1} {
		st, err := s.Stats(ctx, bank)
		if err != nil {
			t.Fatal(err)
		}
		if st.Redacted != want {
			t.Errorf("bank %s: %d redacted, want %d", bank, st.Redacted, want)
		}
	}
}
