package mirror

import (
	"context"

	"github.com/mnemo-ai/mnemo/internal/bm25"
	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/memory"
)

// SearchText returns the bank's k facts that best match the terms and
// pass f, best first: Okapi BM25 (internal/bm25) over the words of each
// fact's body ([memory.Body]), stemmed with stopwords dropped
// (internal/lex), with the bank's own statistics. Terms are plain words:
// nothing in them is ever read as query syntax. Equal scores go to the
// fact written first.
func (m *Mirror) SearchText(ctx context.Context, bank string, terms []string, k int, f memory.Filter) ([]memory.Hit, error) {
	return m.searchText(ctx, bank, terms, true, k, f)
}

// SearchStems is SearchText for terms stemmed already, as
// lex.AppendTerms gives them: each is looked up as it is. A kind search
// passes thousands of words, the same lists query after query, and
// stemming them was most of its cost.
func (m *Mirror) SearchStems(ctx context.Context, bank string, stems []string, k int, f memory.Filter) ([]memory.Hit, error) {
	return m.searchText(ctx, bank, stems, false, k, f)
}

// searchText is SearchText, or SearchStems when stem is false.
func (m *Mirror) searchText(ctx context.Context, bank string, terms []string, stem bool, k int, f memory.Filter) ([]memory.Hit, error) {
	x, err := m.index(ctx, bank)
	if err != nil {
		return nil, err
	}
	if k <= 0 || len(terms) == 0 {
		return nil, nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.live == 0 {
		return nil, nil
	}
	var ids []int32
	seen := map[int32]bool{}
	var stems []string // reused: a kind search resolves thousands of words
	for _, t := range terms {
		if stem {
			stems = lex.AppendTerms(stems[:0], t)
		} else {
			stems = append(stems[:0], t)
		}
		for _, w := range stems {
			if id, ok := x.termID[w]; ok && !seen[id] && x.df[id] > 0 {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	n := float64(x.live)
	avg := float64(x.totalLen) / n
	// Accumulate in a dense array (a map costs more than the scoring), and
	// remember which slots were touched.
	buf := m.scores.Get().(*scoreBuf)
	defer m.scores.Put(buf)
	if cap(buf.score) < len(x.meta) {
		buf.score = make([]float64, len(x.meta))
	}
	scores := buf.score[:len(x.meta)]
	touched := buf.touched[:0]
	for _, id := range ids {
		idf := bm25.IDF(n, float64(x.df[id]))
		for _, p := range x.postings[id] {
			if x.state[p.slot]&stLive == 0 {
				continue
			}
			if scores[p.slot] == 0 {
				touched = append(touched, p.slot)
			}
			scores[p.slot] += bm25.Term(idf, float64(p.tf), bm25.Norm(float64(x.length[p.slot]), avg))
		}
	}
	mt := newMatcher(f)
	h := make(hitHeap, 0, k+1)
	for _, slot := range touched {
		sc := scores[slot]
		scores[slot] = 0 // leave the buffer clean for the next search
		if mt.simple {
			if x.state[slot]&(stLive|stActive|stSensitive) != stLive|stActive {
				continue
			}
		} else if !mt.match(&x.meta[slot]) {
			continue
		}
		h.offer(k, scored{int(slot), sc})
	}
	buf.touched = touched
	return h.hits(x.id), nil
}

// scoreBuf is a keyword search's scratch space, reused across searches.
type scoreBuf struct {
	score   []float64
	touched []int32
}
