package recall_test

import (
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/recall"
)

// TestValidate_Categories checks that a query may name any known category
// and that an unknown one is EINVALID.
func TestValidate_Categories(t *testing.T) {
	for _, tt := range []struct {
		name string
		cats []memory.Category
		code string
	}{
		{"OK/Nil", nil, ""},
		{"OK/Every", memory.Categories(), ""},
		{"OK/One", []memory.Category{memory.CategoryDecision}, ""},
		{"Unknown", []memory.Category{memory.CategoryPersonal, "misc"}, memory.EINVALID},
		{"Empty", []memory.Category{""}, memory.EINVALID},
		{"Case", []memory.Category{"Personal"}, memory.EINVALID},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := memory.Query{BankID: "b", Text: "what did Melanie paint?", Filter: memory.Filter{Categories: tt.cats}}
			err := recall.Validate(&q)
			if got := memory.ErrorCode(err); (err == nil) != (tt.code == "") || (err != nil && got != tt.code) {
				t.Errorf("Validate: got %v (code %q), want code %q", err, got, tt.code)
			}
		})
	}
}

// TestMatches_Categories checks the filter's categories against a fact:
// any of them, nil for all, and together with the other conditions.
func TestMatches_Categories(t *testing.T) {
	f := &memory.Fact{ID: "f", Kind: memory.KindWorld, Category: memory.CategoryProject, Status: memory.StatusActive}
	for _, tt := range []struct {
		name string
		flt  memory.Filter
		want bool
	}{
		{"nil", memory.Filter{}, true},
		{"same", memory.Filter{Categories: []memory.Category{memory.CategoryProject}}, true},
		{"any of", memory.Filter{Categories: []memory.Category{memory.CategoryPersonal, memory.CategoryProject}}, true},
		{"other", memory.Filter{Categories: []memory.Category{memory.CategoryPersonal}}, false},
		{"same, other kind", memory.Filter{Categories: []memory.Category{memory.CategoryProject}, Kinds: []memory.FactKind{memory.KindExperience}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := recall.Matches(f, tt.flt); got != tt.want {
				t.Errorf("Matches(%s fact, %v): got %v, want %v", f.Category, tt.flt.Categories, got, tt.want)
			}
		})
	}
}

// TestPipeline_Recall_FilterCategories checks that the filter's
// categories bound every result and every bundled fact, through every
// strategy (the graph and neighbours bring facts the searches did not
// filter).
func TestPipeline_Recall_FilterCategories(t *testing.T) {
	b := newBank(t)
	byCat := map[memory.Category]int{}
	for _, f := range b.facts {
		byCat[f.Category]++
	}
	t.Logf("categories of the test bank: %v", byCat)
	const query = "What did Alice, Bob, Caroline and Melanie do?"
	all := b.recall(memory.Query{Text: query, Limit: 50, Explain: true})
	for _, c := range memory.Categories() {
		flt := memory.Filter{Categories: []memory.Category{c}}
		rec := b.recall(memory.Query{Text: query, Limit: 50, Filter: flt, Explain: true})
		var want []string
		for _, r := range all.Results {
			if r.Fact.Category == c {
				want = append(want, r.Fact.ID)
			}
		}
		got := resultIDs(rec.Results)
		for _, r := range rec.Results {
			if r.Fact.Category != c {
				t.Errorf("category %s: result %q is %s (found by %v)", c, r.Fact.Text, r.Fact.Category, r.Explain)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("category %s: got %v, want the unfiltered results of that category %v", c, got, want)
		}
	}
}
