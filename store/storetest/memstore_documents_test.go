package storetest

import (
	"cmp"
	"context"
	"slices"

	"github.com/mnemo-ai/mnemo/internal/bm25"
	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.DocumentSearcher = (*memStore)(nil)

// SearchDocuments scores with BM25 (package internal/bm25) over the
// bank's documents, each the words of all its facts' bodies
// (memory.Fact.Body), whatever their status.
func (s *memStore) SearchDocuments(_ context.Context, bankID string, terms []string, k int) ([]memory.Hit, error) {
	return with(s, bankID, func(b *memBank) ([]memory.Hit, error) {
		query := map[string]bool{}
		for _, t := range terms {
			for _, w := range words(t) {
				query[w] = true
			}
		}
		tfs := map[string]map[string]int{} // document id → word → count
		lens := map[string]int{}
		first := map[string]int64{} // document id → its first fact's Seq
		var total int
		for _, x := range b.facts {
			if x.DocumentID == "" {
				continue
			}
			d := x.DocumentID
			if tfs[d] == nil {
				tfs[d] = map[string]int{}
				first[d] = x.Seq
			}
			first[d] = min(first[d], x.Seq)
			for _, w := range words(x.Body()) {
				tfs[d][w]++
				lens[d]++
				total++
			}
		}
		df := map[string]int{}
		for _, tf := range tfs {
			for w := range tf {
				df[w]++
			}
		}
		n := float64(len(tfs))
		avg := float64(total) / max(n, 1)
		var hits []memory.Hit
		for d, tf := range tfs {
			var score float64
			for q := range query {
				f := float64(tf[q])
				if f == 0 {
					continue
				}
				score += bm25.Term(bm25.IDF(n, float64(df[q])), f, bm25.Norm(float64(lens[d]), avg))
			}
			if score > 0 {
				hits = append(hits, memory.Hit{ID: d, Score: score})
			}
		}
		slices.SortFunc(hits, func(a, b memory.Hit) int {
			if c := cmp.Compare(b.Score, a.Score); c != 0 {
				return c
			}
			return cmp.Compare(first[a.ID], first[b.ID])
		})
		if k <= 0 {
			return nil, nil
		}
		return hits[:min(k, len(hits))], nil
	})
}
