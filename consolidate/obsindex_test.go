package consolidate

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// TestObsIndex checks the in-memory search against a full sort of every
// score, through puts, replacements and removals.
func TestObsIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vec := func() []float32 {
		v := make([]float32, 8)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	all := map[string][]float32{}
	for i := range 40 {
		all[string(rune('a'+i%26))+string(rune('a'+i/26))] = vec()
	}
	x := newObsIndex(all)
	for step := range 60 {
		id := string(rune('a'+step%26)) + string(rune('a'+step%3))
		switch step % 3 {
		case 0:
			all[id] = vec()
			x.put(id, all[id])
		case 1:
			delete(all, id)
			x.remove(id)
		}
		q := vec()
		var want []memory.Hit
		for id, v := range all {
			var dot float32
			for i := range v {
				dot += v[i] * q[i]
			}
			want = append(want, memory.Hit{ID: id, Score: float64(dot)})
		}
		sort.Slice(want, func(i, j int) bool {
			if want[i].Score != want[j].Score {
				return want[i].Score > want[j].Score
			}
			return want[i].ID < want[j].ID
		})
		got := x.search(q, 5)
		if x.len() != len(all) || len(got) != min(5, len(all)) {
			t.Fatalf("step %d: %d held, %d hits; want %d and %d", step, x.len(), len(got), len(all), min(5, len(all)))
		}
		for i := range got {
			if got[i].ID != want[i].ID || !near(got[i].Score, want[i].Score) {
				t.Fatalf("step %d: hits %v, want %v", step, got, want[:len(got)])
			}
		}
	}
	if got := x.search(nil, 5); len(got) != 0 || !slices.Equal(x.search([]float32{1}, 3), nil) {
		t.Errorf("a nil or mismatched query found %v", got)
	}
}

func near(a, b float64) bool { return a-b < 1e-4 && b-a < 1e-4 }
