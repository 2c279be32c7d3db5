package retain_test

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// longTurn is one message naming n distinct made-up names, the first
// three of them again and again (the turn is about them), as a long
// assistant answer does.
func longTurn(n int) string {
	var b strings.Builder
	name := func(i int) string { return fmt.Sprintf("Zor%c%cvan", 'a'+i/26, 'a'+i%26) }
	for i := range n {
		fmt.Fprintf(&b, "Then we talked with %s about it. ", name(i))
		if i%4 == 0 {
			fmt.Fprintf(&b, "Later %s, %s and %s came back. ", name(0), name(1), name(2))
		}
	}
	return b.String()
}

// cooccurrences reads a bank's co-occurrence counts through its export.
func (e *env) cooccurrences(bank string) map[[2]string]int {
	e.t.Helper()
	out := map[[2]string]int{}
	err := e.store.Export(e.ctx, bank, func(r *memory.ExportRecord) error {
		if r.Kind == memory.RecordCooccurrence {
			out[[2]string{r.Cooccurrence.EntityA, r.Cooccurrence.EntityB}] = r.Cooccurrence.Count
		}
		return nil
	})
	if err != nil {
		e.t.Fatalf("Export: %v", err)
	}
	return out
}

// TestPipeline_Retain_CooccurrenceBounded: a long turn adds a bounded
// number of co-occurrences, among its most mentioned entities, where
// every pair of its entities would grow with the square of its length.
func TestPipeline_Retain_CooccurrenceBounded(t *testing.T) {
	e := newEnv(t)
	const names = 60
	e.retain(memory.RetainRequest{BankID: "b", ItemID: "long", Messages: []memory.Message{{Speaker: "Assistant", Text: longTurn(names)}}})
	fs := facts(t, e.store, "b")
	if len(fs) != 1 {
		t.Fatalf("%d facts, want the turn as one", len(fs))
	}
	refs, err := e.store.EntityRefs(e.ctx, "b", factIDs(fs))
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) < names {
		t.Fatalf("%d entity refs, want at least the %d names", len(refs), names)
	}
	got := e.cooccurrences("b")
	total := 0
	for _, n := range got {
		total += n
	}
	limit := memory.CooccurrenceTop * (memory.CooccurrenceTop - 1) / 2
	if total == 0 || total > limit {
		t.Errorf("one fact added %d co-occurrences (%d pairs), want 1 to %d", total, len(got), limit)
	}
	// The names the turn keeps coming back to are paired with each other.
	a, b := memory.EntityID("zoraavan"), memory.EntityID("zorabvan")
	if got[[2]string{min(a, b), max(a, b)}] != 1 {
		t.Errorf("the two most mentioned names are not paired: %v", got)
	}
}

// TestPipeline_Retain_CooccurrenceForget: forgetting a long fact takes
// off exactly the co-occurrences it added, and no other fact's.
func TestPipeline_Retain_CooccurrenceForget(t *testing.T) {
	e := newEnv(t)
	// Zorbevan is named once in the long turn: not among its top entities,
	// so the long turn adds no pair of it, and its forget must take none.
	short := "Zoraavan met Zorabvan, Zoracvan and Zorbevan in Lisbon."
	e.retain(memory.RetainRequest{BankID: "b", ItemID: "short", Messages: []memory.Message{{Speaker: "Mel", Text: short}}})
	before := e.cooccurrences("b")
	res := e.retain(memory.RetainRequest{BankID: "b", ItemID: "long", Messages: []memory.Message{{Speaker: "Assistant", Text: longTurn(40)}}})
	if after := e.cooccurrences("b"); maps.Equal(after, before) {
		t.Fatal("the long turn added no co-occurrence")
	}
	var ids []string
	for _, f := range facts(t, e.store, "b") {
		if f.DocumentID == res.DocumentID {
			ids = append(ids, f.ID)
		}
	}
	if _, err := e.store.Forget(e.ctx, "b", ids, &memory.ForgetRecord{ID: "fg1", BankID: "b", At: monday, Actor: "test"}); err != nil {
		t.Fatalf("Forget: %v", err)
	}
	if got := e.cooccurrences("b"); !maps.Equal(got, before) {
		t.Errorf("after forgetting the long turn: %v, want the short one's %v", got, before)
	}
}
