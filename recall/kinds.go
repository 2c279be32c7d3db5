package recall

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

// kindSearch is the keyword search for the words naming kinds of what
// the query asks for (Pipeline.Kinds), run beside the keyword search. It
// returns no hits when the search is off (no Kinds, KindWeight off) or
// the query asks for no kind.
func (p *Pipeline) kindSearch(ctx context.Context, q memory.Query, a *analysis) ([]memory.Hit, error) {
	if p.Kinds == nil || p.KindWeight <= 0 {
		return nil, nil
	}
	terms := kindTerms(p.Kinds(a.words), a.Terms)
	if len(terms) == 0 {
		return nil, nil
	}
	hits, err := p.Store.SearchText(ctx, q.BankID, terms, max(p.Candidates, q.Limit), q.Filter)
	if err != nil {
		return nil, fmt.Errorf("kind search: %w", err)
	}
	return hits, nil
}

// kindTerms are the words of kinds (by query word) that are not already
// among the query's terms, each once, in a fixed order: the lists in the
// order of their query words, each in its own order, a word where it
// first appears. The lists are long (thousands of words) and each is
// free of repeats already, so the longest one is never put in a set:
// only the others are (first), and the longest is scanned once against
// them.
func kindTerms(kinds map[string][]string, terms []string) []string {
	if len(kinds) == 0 {
		return nil
	}
	lists := make([][]string, 0, len(kinds))
	for _, w := range slices.Sorted(maps.Keys(kinds)) {
		lists = append(lists, kinds[w])
	}
	total, longest := 0, 0
	for i, l := range lists {
		total += len(l)
		if len(l) > len(lists[longest]) {
			longest = i
		}
	}
	// first: the list where each word of the other lists first appears,
	// the longest one counted once it is scanned.
	first := make(map[string]int, total-len(lists[longest]))
	for i, l := range lists {
		if i == longest {
			continue
		}
		for _, k := range l {
			if _, ok := first[k]; !ok {
				first[k] = i
			}
		}
	}
	if len(first) > 0 {
		for _, k := range lists[longest] {
			if i, ok := first[k]; ok && longest < i {
				first[k] = longest
			}
		}
	}
	out := make([]string, 0, total)
	for i, l := range lists {
		for _, k := range l {
			at, ok := first[k]
			if !ok {
				at = longest // only the longest list holds k
			}
			if at == i && !slices.Contains(terms, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// mergeKinds adds the hits of the kind search to the keyword hits (best
// first), scaled so the best kind hit scores weight × the best keyword
// hit, and returns them best first; without kind hits, the keyword hits
// as they are.
func mergeKinds(hits, ex []memory.Hit, weight float64) []memory.Hit {
	if len(ex) == 0 || ex[0].Score <= 0 {
		return hits
	}
	top := 1.0
	if len(hits) > 0 && hits[0].Score > 0 {
		top = hits[0].Score
	}
	at := make(map[string]int, len(hits))
	for i, h := range hits {
		at[h.ID] = i
	}
	out := slices.Clone(hits)
	for _, h := range ex {
		s := weight * top * h.Score / ex[0].Score
		if i, ok := at[h.ID]; ok {
			out[i].Score += s
		} else {
			at[h.ID] = len(out)
			out = append(out, memory.Hit{ID: h.ID, Score: s})
		}
	}
	slices.SortStableFunc(out, func(a, b memory.Hit) int {
		if a.Score > b.Score {
			return -1
		}
		if a.Score < b.Score {
			return 1
		}
		return 0
	})
	return out
}
