package mirror

import (
	"context"
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// TestMirror_Holds checks that a write's words are counted only for a
// bank the mirror holds, and that a change counted by the writer
// (Change.Count, outside the lock) is searched like one Apply counts.
func TestMirror_Holds(t *testing.T) {
	ctx := context.Background()
	src := newFakeSource()
	m := newMirror(t, src)
	_, c := src.write("a", row("f1", "d1", "the quiet lake", nil))
	if m.Holds("a") {
		t.Fatal("Holds before any search loaded the bank")
	}
	if c.added[0].fact == nil || c.added[0].words != nil {
		t.Fatal("Add counted the words of a fact no index may want")
	}
	if _, err := m.PKs(ctx, "a", nil); err != nil { // loads the bank
		t.Fatal(err)
	}
	if !m.Holds("a") {
		t.Fatal("Holds is false for a loaded bank")
	}
	version, c := src.write("a", row("f2", "d1", "a sunrise over the lake", nil))
	c.Count()
	if c.added[0].fact != nil || !slices.ContainsFunc(c.added[0].words, func(w termCount) bool { return w.term == "sunris" || w.term == "sunrise" }) {
		t.Fatalf("Count left the words uncounted: %+v", c.added[0].words)
	}
	m.Apply("a", version, c)
	hits, err := m.SearchText(ctx, "a", []string{"sunrise"}, 5, memory.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(hits); !slices.Equal(got, []string{"f2"}) {
		t.Fatalf("hits %v, want [f2]", got)
	}
}
