package mirror

import (
	"context"
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// catRow is row with a category and a fixed vector.
func catRow(id string, c memory.Category) Row {
	r := row(id, "d", "the garden "+id, []float32{1, 0})
	r.Category = string(c)
	return r
}

// TestMirror_FilterCategories checks that a category filter keeps the
// facts of any of its categories, whether the mirror loaded them from
// the file or had them applied from a write, in keyword and vector
// search, and that a filter of only categories is not taken for the zero
// filter.
func TestMirror_FilterCategories(t *testing.T) {
	ctx := context.Background()
	src := newFakeSource()
	m := newMirror(t, src)
	src.write("a", catRow("loaded-personal", memory.CategoryPersonal), catRow("loaded-project", memory.CategoryProject),
		catRow("loaded-none", ""))
	if _, err := m.PKs(ctx, "a", nil); err != nil { // loads the bank
		t.Fatal(err)
	}
	version, c := src.write("a", catRow("applied-personal", memory.CategoryPersonal), catRow("applied-decision", memory.CategoryDecision))
	m.Apply("a", version, c)
	cases := []struct {
		name string
		cats []memory.Category
		want []string
	}{
		{"nil: every category", nil, []string{"applied-decision", "applied-personal", "loaded-none", "loaded-personal", "loaded-project"}},
		{"personal", []memory.Category{memory.CategoryPersonal}, []string{"applied-personal", "loaded-personal"}},
		{"project, decision", []memory.Category{memory.CategoryProject, memory.CategoryDecision}, []string{"applied-decision", "loaded-project"}},
		{"contact: none", []memory.Category{memory.CategoryContact}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			flt := memory.Filter{Categories: tc.cats}
			text, err := m.SearchText(ctx, "a", []string{"garden"}, 10, flt)
			if err != nil {
				t.Fatal(err)
			}
			vec, err := m.SearchVector(ctx, "a", []float32{1, 0}, 10, flt)
			if err != nil {
				t.Fatal(err)
			}
			for what, hits := range map[string][]memory.Hit{"SearchText": text, "SearchVector": vec} {
				got := hitIDs(hits)
				slices.Sort(got)
				if !slices.Equal(got, tc.want) {
					t.Errorf("%s: got %v, want %v", what, got, tc.want)
				}
			}
		})
	}
}
