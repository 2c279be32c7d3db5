package recall

import (
	"math"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/memory"
)

// Defaults of the fallback reranker (docs/recall.md gives the measurements).
const (
	// DefaultRerankCoverage scales the coverage factor of the fallback
	// reranker: a result's score is multiplied by 1 + DefaultRerankCoverage·C,
	// C in [0, 1] the IDF-weighted share of the query's terms it covers.
	DefaultRerankCoverage = 0.5
	// DefaultRerankNeighbour is what a query term counts for in C when
	// only a fact adjacent to the result in its document holds it.
	DefaultRerankNeighbour = 0.5
)

// maxCoverageTerms bounds the query terms coverage counts (a bit each).
const maxCoverageTerms = 64

// coverage is the multi-signal fallback of the rerank step (DESIGN §5
// step 4), run when no cross-encoder is configured: over the best
// RerankDepth results, each score is multiplied by
//
//	1 + RerankCoverage · C,   C = Σ idf(t)·w(t) / Σ idf(t)
//
// over the query's distinct terms t, where w(t) is 1 when the fact holds
// t, RerankNeighbour when only the previous or next fact of its document
// does, else 0. idf(t) = ln(1 + N/(1+df(t))) counts df over the N facts
// scanned (the head and the facts next to them): a term most of them
// share says little. Adjacent facts come from those recall already holds
// (the context strategy's candidates), so it reads nothing from the
// store. The factor is bounded, so the fused relevance stays first; the
// head is then re-sorted. The cost is a scan of the N texts (about 0.1 ms
// on LoCoMo).
func (p *Pipeline) coverage(q memory.Query, a *analysis, results []memory.Result) []memory.Result {
	if p.RerankCoverage <= 0 || len(results) < 2 {
		return results
	}
	var stems []string
	for _, t := range lex.Terms(q.Text) {
		if len(stems) < maxCoverageTerms && !containsString(stems, t) {
			stems = append(stems, t)
		}
	}
	if len(stems) == 0 {
		return results
	}
	head := results[:min(p.RerankDepth, len(results))]
	m := termMatcher{stems: stems}
	termsOf := func(f *memory.Fact) uint64 { // the query's stems f's text holds, as bits
		return m.bitsOfList(p.words.words(f.ID, f.Text))
	}
	type pos struct {
		doc string
		seq int64
	}
	// The facts of the head and those next to them in their documents,
	// among the facts recall holds; only these are scanned.
	at := make(map[pos]*memory.Fact, len(a.facts)+len(head))
	for _, f := range a.facts {
		if f.DocumentID != "" {
			at[pos{f.DocumentID, f.Seq}] = f
		}
	}
	for _, r := range head {
		if f := r.Fact; f.DocumentID != "" {
			at[pos{f.DocumentID, f.Seq}] = f
		}
	}
	bits := make(map[string]uint64, 3*len(head))
	near := make([]uint64, len(head))
	for i, r := range head {
		f := r.Fact
		if _, ok := bits[f.ID]; !ok {
			bits[f.ID] = termsOf(f)
		}
		if f.DocumentID == "" {
			continue
		}
		for _, d := range []int64{-1, 1} {
			if g := at[pos{f.DocumentID, f.Seq + d}]; g != nil {
				b, ok := bits[g.ID]
				if !ok {
					b = termsOf(g)
					bits[g.ID] = b
				}
				near[i] |= b
			}
		}
	}
	df := make([]int, len(stems))
	for _, b := range bits {
		for i := range stems {
			if b&(1<<i) != 0 {
				df[i]++
			}
		}
	}
	idf := make([]float64, len(stems))
	var total float64
	for i := range stems {
		idf[i] = math.Log(1 + float64(len(bits))/float64(1+df[i]))
		total += idf[i]
	}
	for i := range head {
		f := head[i].Fact
		own := bits[f.ID]
		var c float64
		for j := range stems {
			switch {
			case own&(1<<j) != 0:
				c += idf[j]
			case near[i]&(1<<j) != 0:
				c += p.RerankNeighbour * idf[j]
			}
		}
		c /= total
		head[i].Score *= 1 + p.RerankCoverage*c
		if q.Explain {
			if head[i].Explain == nil {
				head[i].Explain = map[string]memory.StrategyScore{}
			}
			head[i].Explain[StrategyCoverage] = memory.StrategyScore{Score: c}
		}
	}
	sortResults(head)
	if q.Explain {
		for i := range head {
			s := head[i].Explain[StrategyCoverage]
			s.Rank = i + 1
			head[i].Explain[StrategyCoverage] = s
		}
	}
	return results
}

// StrategyCoverage names the fallback reranker's coverage in explanations.
const StrategyCoverage = "coverage"

// termMatcher finds which of a query's stems (at most 64) a text holds.
type termMatcher struct {
	stems []string
	buf   []byte
	memo  map[string]uint64 // a word's bits, for the words stemmed
	// pairs holds the first two letters of each stem (pairIndex): a word
	// of three letters or more that starts otherwise, and is no Porter
	// exception, matches no stem and is not looked up (see word). Most
	// words of a long turn are skipped so, with no map lookup.
	pairs *[alnums * alnums]bool
	// all says every word is looked up: a stem starts beyond ASCII.
	all bool
	// short says a stem has fewer than three letters: only then can a
	// word that short match one (word).
	short bool
}

// alnums is the number of ASCII lower-case letters and digits.
const alnums = 36

// pairIndex is the place of the two bytes a, b (ASCII lower-case letters
// or digits) in termMatcher.pairs, or -1 for any other byte.
func pairIndex(a, b byte) int {
	i, j := alnumIndex(a), alnumIndex(b)
	if i < 0 || j < 0 {
		return -1
	}
	return i*alnums + j
}

func alnumIndex(c byte) int {
	switch {
	case 'a' <= c && c <= 'z':
		return int(c - 'a')
	case '0' <= c && c <= '9':
		return 26 + int(c-'0')
	}
	return -1
}

// maybe reports whether word b (lower case) can match a stem: it is
// short, one of Porter's exceptions, or starts with a stem's first two
// letters. A word it rejects has no bits (word would give 0).
func (m *termMatcher) maybe(b []byte) bool {
	if m.pairs == nil && !m.all {
		m.pairs = new([alnums * alnums]bool)
		for _, t := range m.stems {
			if len(t) < 3 {
				m.short = true
			}
			if len(t) >= 2 {
				if i := pairIndex(t[0], t[1]); i >= 0 {
					m.pairs[i] = true
				} else {
					m.all = true
				}
			}
		}
	}
	if m.all || len(b) < 3 {
		return true
	}
	i := pairIndex(b[0], b[1])
	return i < 0 || m.pairs[i] || porterException(b)
}

// bits returns, as bits, the stems that lex.Terms(text) holds. For ASCII
// text it scans the words as lex.Words does, without its allocations: a
// word is tested on its first two letters and its length (maybe) before
// it is copied, lower-cased, for a lookup.
func (m *termMatcher) bits(text string) uint64 {
	var bits uint64
	m.maybe(nil) // fills pairs
	buf := m.buf[:0]
	defer func() { m.buf = buf }()
	for i := 0; i < len(text); {
		if lowerAlnum[text[i]] == 0 {
			if text[i] >= utf8.RuneSelf {
				return m.bitsOfWords(text)
			}
			i++
			continue
		}
		// A word: letters and digits, and an apostrophe between them
		// ("Mel's" is one word, "mels"). Its first two letters and its
		// length, apostrophes left out, decide whether it is looked up.
		start, quotes, clean := i, 0, true
		for ; i < len(text); i++ {
			c := lowerAlnum[text[i]]
			if c == 0 {
				if text[i] == '\'' && i+1 < len(text) && lowerAlnum[text[i+1]] != 0 {
					quotes++
					continue
				}
				if text[i] >= utf8.RuneSelf {
					return m.bitsOfWords(text)
				}
				break
			}
			clean = clean && c == text[i]
		}
		n := i - start - quotes
		if n >= 3 && n != 5 && !m.all {
			// (A word of five letters may be one of Porter's exceptions:
			// maybe decides, on the word lower-cased.)
			second := start + 1
			if text[second] == '\'' {
				second++
			}
			if !m.pairs[pairIndex(lowerAlnum[text[start]], lowerAlnum[text[second]])] {
				continue
			}
		}
		if n < 3 && !m.short {
			continue
		}
		if clean && quotes == 0 {
			buf = append(buf[:0], text[start:i]...)
		} else {
			buf = buf[:0]
			for _, c := range []byte(text[start:i]) {
				if l := lowerAlnum[c]; l != 0 {
					buf = append(buf, l)
				}
			}
		}
		bits |= m.lookup(buf)
	}
	return bits
}

// bitsOfList is bits for a text given by its distinct words (lex.Words,
// wordCache): the same bits, by the same tests — a word's first two
// letters and its length decide whether it is looked up.
func (m *termMatcher) bitsOfList(words []string) uint64 {
	var bits uint64
	m.maybe(nil) // fills pairs
	for _, w := range words {
		n := len(w)
		if n >= 3 && n != 5 && !m.all {
			if i := pairIndex(w[0], w[1]); i >= 0 && !m.pairs[i] {
				continue
			}
		}
		if n < 3 && !m.short {
			continue
		}
		bits |= m.lookup([]byte(w))
	}
	return bits
}

// bitsOfWords is bits for any text: its words as lex.Words finds them.
func (m *termMatcher) bitsOfWords(text string) uint64 {
	var bits uint64
	for _, w := range lex.Words(text) {
		bits |= m.lookup([]byte(w))
	}
	return bits
}

// lookup returns the stems word b (lower case) is, as bits.
func (m *termMatcher) lookup(b []byte) uint64 {
	if !m.maybe(b) {
		return 0
	}
	v, ok := m.memo[string(b)]
	if !ok {
		v, _ = m.word(b)
	}
	return v
}

// lowerAlnum maps an ASCII letter or digit to itself in lower case, any
// other byte to 0.
var lowerAlnum = func() (t [256]byte) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = byte(c)
		t[c-'a'+'A'] = byte(c)
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c)
	}
	return t
}()

// word returns the stems word b (lower case) is, as bits, and whether it
// was stemmed (then memoised); a word is stemmed only when its first two
// letters are those of a query stem: Porter2 keeps them but in "dying",
// "lying" and "tying" (→ "die", "lie", "tie"), and words under three
// letters are their own stems.
func (m *termMatcher) word(b []byte) (uint64, bool) {
	var v uint64
	w, s := "", ""
	for i, t := range m.stems {
		if len(b) < 3 || len(t) < 2 || t[0] != b[0] || t[1] != b[1] && !porterException(b) {
			if t != string(b) {
				continue
			}
		}
		if w == "" {
			w = string(b)
			if lex.IsStopword(w) {
				break
			}
			s = lex.Stem(w)
		}
		if s == t {
			v |= 1 << i
		}
	}
	if w == "" {
		return 0, false
	}
	if m.memo == nil {
		m.memo = map[string]uint64{}
	}
	m.memo[w] = v
	return v, true
}

func porterException(b []byte) bool {
	switch string(b) {
	case "dying", "lying", "tying":
		return true
	}
	return false
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
