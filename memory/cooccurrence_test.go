package memory_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

func TestRankEntities(t *testing.T) {
	ids := []string{"speaker", "a", "b", "c", "d"}
	mentions := []int{1, 2, 0, 3, 2} // 0: not counted, ranks as one
	memory.RankEntities(ids, mentions)
	if want := []string{"c", "a", "d", "speaker", "b"}; !slices.Equal(ids, want) {
		t.Errorf("ranked ids = %v, want %v", ids, want)
	}
	if want := []int{3, 2, 2, 1, 1}; !slices.Equal(mentions, want) {
		t.Errorf("ranked mentions = %v, want %v", mentions, want)
	}
}

// pairs collects what memory.Cooccurring yields for ranked.
func pairs(ranked []string) [][2]string {
	var out [][2]string
	memory.Cooccurring(ranked, func(a, b string) { out = append(out, [2]string{a, b}) })
	return out
}

func TestCooccurring(t *testing.T) {
	t.Run("Short", func(t *testing.T) {
		// A fact of a chat turn's size pairs every entity, keyed in id order.
		got := pairs([]string{"c", "a", "b"})
		want := [][2]string{{"a", "c"}, {"b", "c"}, {"a", "b"}}
		if !slices.Equal(got, want) {
			t.Errorf("pairs = %v, want %v", got, want)
		}
	})
	t.Run("Bounded", func(t *testing.T) {
		// However many entities a fact names, it adds at most
		// CooccurrenceTop·(CooccurrenceTop−1)/2 pairs, all among its
		// most salient ones; every pair would grow with the square.
		limit := memory.CooccurrenceTop * (memory.CooccurrenceTop - 1) / 2
		for _, n := range []int{0, 1, 2, memory.CooccurrenceTop, memory.CooccurrenceTop + 1, 100, 3000} {
			ids := make([]string, n)
			for i := range ids {
				ids[i] = fmt.Sprintf("e%05d", i)
			}
			got := pairs(ids)
			want := min(n, memory.CooccurrenceTop)
			if len(got) != want*(want-1)/2 || len(got) > limit {
				t.Errorf("%d entities: %d pairs, want %d (at most %d)", n, len(got), want*(want-1)/2, limit)
			}
			top := ids[:min(n, memory.CooccurrenceTop)]
			for _, p := range got {
				if !slices.Contains(top, p[0]) || !slices.Contains(top, p[1]) || p[0] >= p[1] {
					t.Errorf("%d entities: pair %v is not an ordered pair of the top %d", n, p, memory.CooccurrenceTop)
				}
			}
		}
	})
}

func TestForgetCooccurrences(t *testing.T) {
	long := make([]string, memory.CooccurrenceTop+4)
	for i := range long {
		long[i] = fmt.Sprintf("e%02d", i)
	}
	ranked := func(ids []string, unknown ...int) []memory.RankedRef {
		refs := make([]memory.RankedRef, len(ids))
		for i, id := range ids {
			refs[i] = memory.RankedRef{EntityID: id, Rank: i}
		}
		for _, i := range unknown {
			refs[i].Rank = -1
		}
		// A store reads refs back in any order.
		slices.Reverse(refs)
		return refs
	}
	added := map[[2]string]int{}
	for _, ids := range [][]string{long, {"e00", "x", "y"}} {
		memory.Cooccurring(ids, func(a, b string) { added[[2]string{a, b}]++ })
	}
	got := memory.ForgetCooccurrences(map[string][]memory.RankedRef{"f1": ranked(long), "f2": ranked([]string{"e00", "x", "y"})})
	if !maps.Equal(got, added) {
		t.Errorf("ForgetCooccurrences = %v, want what Cooccurring added: %v", got, added)
	}

	// Unknown ranks: a short fact is counted whole (every rule paired
	// all of its entities), a long one not at all (its pairs are unknown).
	got = memory.ForgetCooccurrences(map[string][]memory.RankedRef{
		"long":  ranked(long, 0),
		"short": ranked([]string{"b", "a", "c"}, 0, 1, 2),
	})
	want := map[[2]string]int{{"a", "b"}: 1, {"a", "c"}: 1, {"b", "c"}: 1}
	if !maps.Equal(got, want) {
		t.Errorf("ForgetCooccurrences with unknown ranks = %v, want %v", got, want)
	}
}

// BenchmarkCooccurring pairs the entities of facts naming 5 (a chat
// turn), 50 and 500 (long answers): the cost stays flat past
// CooccurrenceTop, where every pair grew with the square.
func BenchmarkCooccurring(b *testing.B) {
	for _, n := range []int{5, 50, 500} {
		ids := make([]string, n)
		mentions := make([]int, n)
		for i := range ids {
			ids[i], mentions[i] = fmt.Sprintf("ent_%016x", i*7919), 1+i%3
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			pairs := 0
			for b.Loop() {
				memory.RankEntities(ids, mentions)
				memory.Cooccurring(ids, func(a, c string) { pairs++ })
			}
			b.ReportMetric(float64(pairs)/float64(b.N), "pairs/fact")
		})
	}
}
