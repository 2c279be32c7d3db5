package storetest

import (
	"context"
	"fmt"
	"maps"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// CheckCooccurrenceForget checks that a store keeps the rank of each
// entity ref (the order of a fact's refs in its batch) so that
// forgetting a fact takes off exactly the co-occurrences
// memory.Cooccurring had it add, and no other fact's: a fact naming more
// than memory.CooccurrenceTop entities pairs only its first ones, so a
// store that took every pair off would take the count of a pair another
// fact added. s must be empty, implement memory.Forgetter and
// memory.Exporter, and belong to t.
func CheckCooccurrenceForget(t *testing.T, s memory.Store) {
	t.Helper()
	ctx := context.Background()
	if err := s.CreateBank(ctx, &memory.Bank{ID: "cooc", Name: "cooc"}); err != nil {
		t.Fatalf("CreateBank: %v", err)
	}
	ent := func(i int) string { return memory.EntityID(fmt.Sprintf("name%02d", i)) }
	// Fact 0 names CooccurrenceTop+4 entities; fact 1 the first and the
	// last of them (a pair fact 0 does not add: all pairs taken off
	// would take its count) and one more; fact 2 two of fact 0's first
	// (a pair both add: kept alive, so pairs fact 0 failed to take off
	// would stay).
	var long []string
	for i := range memory.CooccurrenceTop + 4 {
		long = append(long, ent(i))
	}
	short := []string{ent(0), ent(memory.CooccurrenceTop + 3), ent(99)}
	other := []string{ent(1), ent(2)}
	w := NewTestBatch("cooc", "d1", "a long answer", "a short one", "another")
	mentions := map[string]int{}
	for i, ids := range [][]string{long, short, other} {
		for _, id := range ids {
			w.Refs = append(w.Refs, memory.EntityRef{FactID: w.Facts[i].ID, EntityID: id})
			mentions[id]++
		}
		memory.Cooccurring(ids, func(a, b string) {
			w.Cooccurrences = append(w.Cooccurrences, memory.Cooccurrence{EntityA: a, EntityB: b, Count: 1})
		})
	}
	for _, id := range append(long, ent(99)) {
		w.Entities = append(w.Entities, memory.EntityUpsert{Entity: memory.Entity{ID: id, Name: id, Type: memory.EntityThing}, Mentions: mentions[id], Episodes: 1})
	}
	if _, err := s.Write(ctx, w); err != nil {
		t.Fatalf("Write: %v", err)
	}
	want := map[[2]string]int{}
	for _, ids := range [][]string{short, other} {
		memory.Cooccurring(ids, func(a, b string) { want[[2]string{a, b}]++ })
	}

	f, ok := s.(memory.Forgetter)
	if !ok {
		t.Fatalf("%T is not a memory.Forgetter", s)
	}
	if _, err := f.Forget(ctx, "cooc", []string{w.Facts[0].ID}, &memory.ForgetRecord{Actor: "test", At: testTime}); err != nil {
		t.Fatalf("Forget: %v", err)
	}
	ex, ok := s.(memory.Exporter)
	if !ok {
		t.Fatalf("%T is not a memory.Exporter", s)
	}
	got := map[[2]string]int{}
	err := ex.Export(ctx, "cooc", func(r *memory.ExportRecord) error {
		if r.Kind == memory.RecordCooccurrence {
			got[[2]string{r.Cooccurrence.EntityA, r.Cooccurrence.EntityB}] = r.Cooccurrence.Count
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Export: %v", err)
	}
	if !maps.Equal(got, want) {
		t.Errorf("co-occurrences after forgetting the long fact = %v, want the other facts' %v", got, want)
	}
}
