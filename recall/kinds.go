package recall

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/internal/wordnet"
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
	kinds, k := p.Kinds(a.words), max(p.Candidates, q.Limit)
	var hits []memory.Hit
	var err error
	if ss, ok := p.Store.(stemSearcher); ok {
		stems := kindStems(kinds, a.Terms)
		if len(stems) == 0 {
			return nil, nil
		}
		hits, err = ss.SearchStems(ctx, q.BankID, stems, k, q.Filter)
	} else {
		terms := kindTerms(kinds, a.Terms)
		if len(terms) == 0 {
			return nil, nil
		}
		hits, err = p.Store.SearchText(ctx, q.BankID, terms, k, q.Filter)
	}
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
	lists := sortedLists(kinds)
	var out []string
	eachKind(lists, terms, func(i, j int) { out = append(out, lists[i][j]) })
	return out
}

// sortedLists are the lists of kinds in the order of their query words.
func sortedLists(kinds map[string][]string) [][]string {
	lists := make([][]string, 0, len(kinds))
	for _, w := range slices.Sorted(maps.Keys(kinds)) {
		lists = append(lists, kinds[w])
	}
	return lists
}

// eachKind calls fn(i, j) for each word lists[i][j] kindTerms returns, in
// its order.
func eachKind(lists [][]string, terms []string, fn func(i, j int)) {
	if len(lists) == 0 {
		return
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
	for i, l := range lists {
		for j, k := range l {
			at, ok := first[k]
			if !ok {
				at = longest // only the longest list holds k
			}
			if at == i && !slices.Contains(terms, k) {
				fn(i, j)
			}
		}
	}
}

// stemSearcher is a Store whose keyword search also takes terms stemmed
// already (lex.AppendTerms), looked up as they are: the kind search then
// stems each kind list once, not on every query (sqlite.Store.SearchStems).
type stemSearcher interface {
	SearchStems(ctx context.Context, bankID string, stems []string, k int, f memory.Filter) ([]memory.Hit, error)
}

// kindStems are the stems of kindTerms(kinds, terms), word by word in
// its order, as lex.AppendTerms gives them: searched by stems, they
// find what the words find. Each list's stems are made once
// (stemmedKinds).
func kindStems(kinds map[string][]string, terms []string) []string {
	lists := sortedLists(kinds)
	stemmed := make([]*stemmedList, len(lists))
	for i, l := range lists {
		stemmed[i] = stemmedKinds.of(l)
	}
	var out []string
	eachKind(lists, terms, func(i, j int) { out = append(out, stemmed[i].stems(j)...) })
	return out
}

// stemmedList is a word list with each word's stems (lex.AppendTerms):
// word j's are stems[off[j]:off[j+1]].
type stemmedList struct {
	words []string
	off   []int32
	all   []string
}

func (l *stemmedList) stems(j int) []string { return l.all[l.off[j]:l.off[j+1]] }

// stemCache keeps the stems of the kind lists searched lately, by their
// first word and length; an entry serves a list only when it holds the
// same words (the lists are WordNet's, the same slices query after
// query, so the check is mostly pointer compares). It keeps at most
// maxStemmedWords words, and starts afresh beyond. It is safe for
// concurrent use.
type stemCache struct {
	mu    sync.Mutex
	lists map[stemKey]*stemmedList
	words int
}

type stemKey struct {
	first string
	n     int
}

// maxStemmedWords bounds the words stemCache keeps (about 40 bytes each).
const maxStemmedWords = 1 << 18

var stemmedKinds stemCache

// of returns l with its stems, made now or kept from before.
func (c *stemCache) of(l []string) *stemmedList {
	if len(l) == 0 {
		return &stemmedList{off: []int32{0}}
	}
	key := stemKey{l[0], len(l)}
	c.mu.Lock()
	s := c.lists[key]
	c.mu.Unlock()
	if s != nil && slices.Equal(s.words, l) {
		return s
	}
	vocab := kindVocab.stems.Load()
	s = &stemmedList{words: slices.Clone(l), off: make([]int32, 1, len(l)+1), all: make([]string, 0, len(l))}
	for _, w := range l {
		if st, ok := (*vocab)[w]; ok {
			s.all = append(s.all, st)
		} else {
			s.all = lex.AppendTerms(s.all, w)
		}
		s.off = append(s.off, int32(len(s.all)))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lists == nil || c.words+len(l) > maxStemmedWords {
		c.lists, c.words = map[stemKey]*stemmedList{}, 0
	}
	if old := c.lists[key]; old != nil {
		c.words -= len(old.words)
	}
	c.lists[key] = s
	c.words += len(l)
	return s
}

// kindVocab holds the stem of every plain single-word noun of WordNet
// (the words kind lists are made of), as lex.AppendTerms gives it, once
// WarmKinds has made it: a kind list met for the first time then costs
// a lookup per word instead of a stemming (about 1 µs a word; "what
// causes…" lists 11,000 words), which made the first question of each
// kind ten times slower than the next. Until then, and for any other
// word, stemming answers; the stems are the same either way.
var kindVocab struct {
	once  sync.Once
	stems atomic.Pointer[map[string]string]
}

func init() { kindVocab.stems.Store(&map[string]string{}) }

// WarmKinds makes, in the background and once per process, what the
// kind search otherwise makes question by question: the stems of
// WordNet's nouns (about 0.1 s of CPU and 6 MB). A long-lived process (a
// server) calls it at start (mnemo.Config.WarmRecall), so that its
// first questions that ask for kinds are as fast as the rest; a one-shot
// command does not, and pays only for the list its question needs.
func WarmKinds() {
	kindVocab.once.Do(func() { go buildKindVocab() })
}

// buildKindVocab makes kindVocab's stems. It stems without lex's cache
// (lex.StemOnce), which a hundred thousand words would empty of the
// words recall uses all the time.
func buildKindVocab() {
	lx, err := wordnet.Nouns()
	if err != nil {
		return
	}
	m := make(map[string]string, lx.Lemmas())
	for i := range lx.Lemmas() {
		w := lx.LemmaAt(i)
		if !plainWord(w) || lex.IsStopword(w) {
			continue
		}
		m[w] = lex.StemOnce(w) // lex.AppendTerms of a plain word that is no stopword
	}
	kindVocab.stems.Store(&m)
}

// plainWord reports whether w is lower-case ASCII letters and digits.
func plainWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return w != ""
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
