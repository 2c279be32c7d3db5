package recall

import "github.com/mnemo-ai/mnemo/memory"

// spread reorders the best depth results (sorted) so that the n-th of a
// document (n from 0) scores × (1 − d)^n: results from other documents
// move up. Results without a document are left as they are. Recall
// applies it, with d = CountSpread, to a question that counts ("how
// many…"): each occurrence counts, and they are seldom told in one
// document.
func spread(results []memory.Result, depth int, d float64) {
	head := results[:min(depth, len(results))]
	seen := map[string]int{}
	for i := range head {
		doc := head[i].Fact.DocumentID
		if doc == "" {
			continue
		}
		n := seen[doc]
		seen[doc] = n + 1
		for ; n > 0; n-- {
			head[i].Score *= 1 - d
		}
	}
	sortResults(head)
}
