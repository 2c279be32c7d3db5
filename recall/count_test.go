package recall

import (
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

func TestSpread(t *testing.T) {
	res := func(id, doc string, score float64) memory.Result {
		return memory.Result{Fact: &memory.Fact{ID: id, DocumentID: doc}, Score: score}
	}
	results := []memory.Result{
		res("a1", "A", 1.0), res("a2", "A", 0.95), res("a3", "A", 0.9),
		res("b1", "B", 0.8), res("x", "", 0.79), res("a4", "A", 0.5),
	}
	spread(results, 5, 0.3)
	var ids []string
	for _, r := range results {
		ids = append(ids, r.Fact.ID)
	}
	// a2 × 0.7 = 0.665, a3 × 0.49 = 0.441; b1 and x keep theirs; a4 is
	// beyond the depth and keeps its place and score.
	if want := []string{"a1", "b1", "x", "a2", "a3", "a4"}; !slices.Equal(ids, want) {
		t.Errorf("order %q, want %q", ids, want)
	}
	if got := results[3].Score; got < 0.6649 || got > 0.6651 {
		t.Errorf("a2 scores %g, want 0.665", got)
	}
	if results[5].Score != 0.5 {
		t.Errorf("a4 beyond the depth changed: %g", results[5].Score)
	}
	spread(nil, 5, 0.3) // nothing to do, no panic
}

func TestAnalyse_Count(t *testing.T) {
	p := &Pipeline{}
	for _, tt := range []struct {
		q    string
		want bool
	}{
		{"How many children does Melanie have?", true},
		{"how many times has John injured his ankle", true},
		{"How often does John go to the park?", false},
		{"How did Gina promote her store?", false},
		{"many how", false},
	} {
		if got := p.analyse(memory.Query{Text: tt.q}).count; got != tt.want {
			t.Errorf("analyse(%q).count = %v, want %v", tt.q, got, tt.want)
		}
	}
}
