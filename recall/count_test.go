package recall

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/internal/lex"
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

func TestMergeKinds(t *testing.T) {
	hits := []memory.Hit{{ID: "a", Score: 4}, {ID: "b", Score: 2}}
	kinds := []memory.Hit{{ID: "k", Score: 10}, {ID: "b", Score: 5}}
	got := mergeKinds(hits, kinds, 1)
	// k: 1·4·10/10 = 4; b: 2 + 1·4·5/10 = 4; a keeps 4: ties keep a, b, k.
	want := []memory.Hit{{ID: "a", Score: 4}, {ID: "b", Score: 4}, {ID: "k", Score: 4}}
	if !slices.Equal(got, want) {
		t.Errorf("mergeKinds = %v, want %v", got, want)
	}
	if hits[1].Score != 2 {
		t.Error("mergeKinds changed its input")
	}
	if got := mergeKinds(hits, nil, 1); !slices.Equal(got, hits) {
		t.Errorf("no kind hits: %v", got)
	}
	if got := mergeKinds(nil, kinds, 0.5); len(got) != 2 || got[0].ID != "k" || got[0].Score != 0.5 {
		t.Errorf("no keyword hits: %v, want k at 0.5 first", got)
	}
	if got := kindTerms(map[string][]string{"arts": {"karate", "art", "judo"}}, []string{"art"}); !slices.Equal(got, []string{"karate", "judo"}) {
		t.Errorf("kindTerms = %q", got)
	}
	if got := kindTerms(map[string][]string{"b": {"x", "y"}, "a": {"y", "z"}}, nil); !slices.Equal(got, []string{"y", "z", "x"}) {
		t.Errorf("kindTerms of two words = %q", got)
	}
}

// TestKindTerms_Random checks kindTerms against its definition on random
// lists: the lists in the order of their words, each word once where it
// first appears, none of the terms.
func TestKindTerms_Random(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		kinds := map[string][]string{}
		for range 1 + rng.IntN(4) {
			var l []string
			for _, i := range rng.Perm(30)[:rng.IntN(30)] { // repeat-free
				l = append(l, fmt.Sprint("w", i))
			}
			kinds[fmt.Sprint("k", rng.IntN(6))] = l
		}
		terms := []string{fmt.Sprint("w", rng.IntN(30)), "other"}
		var want []string
		for _, w := range slices.Sorted(maps.Keys(kinds)) {
			for _, k := range kinds[w] {
				if !slices.Contains(want, k) && !slices.Contains(terms, k) {
					want = append(want, k)
				}
			}
		}
		if got := kindTerms(kinds, terms); !slices.Equal(got, want) {
			t.Fatalf("kindTerms(%q, %q) = %q, want %q", kinds, terms, got, want)
		}
	}
	if got := kindTerms(nil, nil); len(got) != 0 {
		t.Errorf("no kinds: %q", got)
	}
}

// TestKindStems checks that the kind search by stems looks up what the
// search by words does: the stems of kindTerms' words in their order,
// also after a list changed in place (the kept stems are not reused).
func TestKindStems(t *testing.T) {
	kinds := map[string][]string{
		"arts":   {"karate", "judo", "running", "the", "Mel's", "x-ray"},
		"events": {"races", "running", "galas"},
	}
	check := func() {
		t.Helper()
		var want []string
		for _, w := range kindTerms(kinds, []string{"judo"}) {
			want = lex.AppendTerms(want, w)
		}
		if got := kindStems(kinds, []string{"judo"}); !slices.Equal(got, want) {
			t.Fatalf("kindStems = %q, want %q", got, want)
		}
	}
	check()
	check()                      // from the kept stems
	kinds["arts"][2] = "dancing" // the same list, changed in place
	check()
	if got := kindStems(nil, nil); len(got) != 0 {
		t.Errorf("no kinds: %q", got)
	}
}
