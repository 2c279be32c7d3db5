package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// TestStore_TwoStoresOneFile checks that a store's cached facts and search
// index follow what another store (another process) does to the same file:
// new facts, recorded accesses, reinforcements and supersessions.
func TestStore_TwoStoresOneFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	a, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := a.CreateBank(ctx, &memory.Bank{ID: "k"}); err != nil {
		t.Fatal(err)
	}
	write := func(s *Store, doc, id, text string) {
		t.Helper()
		w := &memory.WriteBatch{BankID: "k", Document: &memory.Document{ID: doc, Source: "s", ItemID: doc, ContentHash: doc}}
		w.Facts = []*memory.Fact{{ID: id, Text: text}}
		if _, err := s.Write(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	fact := func(s *Store, id string) *memory.Fact {
		t.Helper()
		fs, err := s.Facts(ctx, "k", []string{id})
		if err != nil || len(fs) != 1 {
			t.Fatalf("Facts(%s): %v, %d facts", id, err, len(fs))
		}
		return fs[0]
	}
	write(a, "d1", "f1", "the lighthouse keeper")
	if got := fact(a, "f1").AccessCount; got != 0 { // a caches f1
		t.Fatalf("access count %d, want 0", got)
	}
	at := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := b.RecordAccess(ctx, "k", []string{"f1"}, at); err != nil {
		t.Fatal(err)
	}
	if f := fact(a, "f1"); f.AccessCount != 1 || !f.LastAccessed.Equal(at) {
		t.Errorf("after another store's access: count %d at %v, want 1 at %v", f.AccessCount, f.LastAccessed, at)
	}
	if err := a.RecordAccess(ctx, "k", []string{"f1", "f1"}, at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if f := fact(a, "f1"); f.AccessCount != 2 || !f.LastAccessed.Equal(at.Add(time.Hour)) {
		t.Errorf("after own access: count %d at %v, want 2", f.AccessCount, f.LastAccessed)
	}
	if got := fact(b, "f1").AccessCount; got != 2 {
		t.Errorf("other store sees count %d, want 2", got)
	}
	write(b, "d2", "f2", "the lighthouse painter")
	w := &memory.WriteBatch{BankID: "k", Reinforce: []string{"f1"}, Supersede: []memory.Supersession{{FactID: "f2", SupersededBy: "f1", ExpiredAt: at}}}
	if _, err := b.Write(ctx, w); err != nil {
		t.Fatal(err)
	}
	if f := fact(a, "f1"); f.ReinforcementCount != 1 {
		t.Errorf("reinforcement by another store: %d, want 1", f.ReinforcementCount)
	}
	if f := fact(a, "f2"); f.Status != memory.StatusSuperseded || f.SupersededBy != "f1" {
		t.Errorf("supersession by another store: %s by %q", f.Status, f.SupersededBy)
	}
	hits, err := a.SearchText(ctx, "k", []string{"lighthouse"}, 10, memory.Filter{})
	if err != nil || len(hits) != 1 || hits[0].ID != "f1" {
		t.Errorf("search after supersession: %v %v, want only f1", hits, err)
	}
}

// TestStore_FactWithoutEmbedding checks that a fact written with no
// embedding is found by keyword search whether the bank's index was
// loaded before the write or after it.
func TestStore_FactWithoutEmbedding(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateBank(ctx, &memory.Bank{ID: "k"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SearchText(ctx, "k", []string{"anything"}, 10, memory.Filter{}); err != nil { // loads the index
		t.Fatal(err)
	}
	w := &memory.WriteBatch{BankID: "k", Document: &memory.Document{ID: "d", Source: "s", ItemID: "d", ContentHash: "h"},
		Facts: []*memory.Fact{{ID: "f", Text: "a quiet harbour town"}}}
	if _, err := s.Write(ctx, w); err != nil {
		t.Fatal(err)
	}
	for _, st := range []*Store{s, mustReopen(t, s)} {
		hits, err := st.SearchText(ctx, "k", []string{"harbour"}, 10, memory.Filter{})
		if err != nil || len(hits) != 1 || hits[0].ID != "f" {
			t.Errorf("SearchText(harbour) = %v, %v; want the fact", hits, err)
		}
	}
}

func mustReopen(t *testing.T, s *Store) *Store {
	t.Helper()
	o, err := Open(context.Background(), s.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	return o
}
