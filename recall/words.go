package recall

import (
	"slices"
	"sync"

	"github.com/mnemo-ai/mnemo/internal/gencache"
	"github.com/mnemo-ai/mnemo/internal/lex"
)

// DefaultWordCacheBytes bounds the words the coverage reranker keeps of
// the texts it scanned (wordCache): about 4,000 long assistant turns.
const DefaultWordCacheBytes = 8 << 20

// wordCache keeps the distinct words (lex.Words) of the fact texts the
// coverage reranker scans, by fact id, so that the next question that
// ranks the same fact high looks up its few hundred distinct words
// instead of scanning its text again: a long assistant turn is 2–4 KB,
// some of it not ASCII (the slow path of termMatcher.bits), and a
// question scans up to sixty of them. An entry is used only for the very
// text it was made of (the same string, which a store's cache hands out
// again, or an equal one), so a fact whose text changed is scanned anew.
// The entries are a gencache.Cache: at most the budget, what was
// scanned recently.
type wordCache struct {
	mu      sync.Mutex
	entries *gencache.Cache[string, *textWords]
}

// textWords is a text and its distinct words.
type textWords struct {
	text  string
	words []string
}

func newWordCache(budget int) *wordCache {
	return &wordCache{entries: gencache.New[string, *textWords](budget)}
}

// words returns the distinct words of text, the text of fact id, in the
// order they first occur. A nil cache computes them every time.
func (c *wordCache) words(id, text string) []string {
	if c == nil {
		return distinctWords(text)
	}
	c.mu.Lock()
	e, ok := c.entries.Get(id)
	c.mu.Unlock()
	if ok && e.text == text {
		return e.words
	}
	words := distinctWords(text)
	bytes := 64 + len(text)/8
	for _, w := range words {
		bytes += 16 + len(w)
	}
	c.mu.Lock()
	c.entries.Put(id, &textWords{text: text, words: words}, bytes)
	c.mu.Unlock()
	return words
}

// distinctWords is lex.Words(text) without repeats.
func distinctWords(text string) []string {
	words := lex.Words(text)
	seen := make(map[string]bool, len(words))
	out := words[:0]
	for _, w := range words {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return slices.Clip(out)
}
