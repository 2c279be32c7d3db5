package recall

import (
	"slices"
	"sync"

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
//
// Entries are kept in two generations, as the SQLite store's fact cache
// does: lookups promote, and once the current one holds half the budget
// it becomes the old one and the old one is dropped.
type wordCache struct {
	mu       sync.Mutex
	budget   int
	cur, old map[string]*textWords
	curBytes int
}

// textWords is a text and its distinct words.
type textWords struct {
	text  string
	words []string
	bytes int
}

func newWordCache(budget int) *wordCache {
	return &wordCache{budget: budget, cur: map[string]*textWords{}, old: map[string]*textWords{}}
}

// words returns the distinct words of text, the text of fact id, in the
// order they first occur. A nil cache computes them every time.
func (c *wordCache) words(id, text string) []string {
	if c == nil {
		return distinctWords(text)
	}
	c.mu.Lock()
	e := c.cur[id]
	if e == nil {
		if e = c.old[id]; e != nil && e.text == text {
			delete(c.old, id)
			c.put(id, e)
		}
	}
	c.mu.Unlock()
	if e != nil && e.text == text {
		return e.words
	}
	words := distinctWords(text)
	e = &textWords{text: text, words: words, bytes: 64 + len(text)/8}
	for _, w := range words {
		e.bytes += 16 + len(w)
	}
	c.mu.Lock()
	c.put(id, e)
	c.mu.Unlock()
	return words
}

// put makes e the current entry of id, turning the generations over when
// the current one is full. The caller holds c.mu.
func (c *wordCache) put(id string, e *textWords) {
	if old := c.cur[id]; old != nil {
		c.curBytes -= old.bytes
	}
	c.cur[id] = e
	c.curBytes += e.bytes
	if c.curBytes > c.budget/2 {
		c.old, c.cur, c.curBytes = c.cur, map[string]*textWords{}, 0
	}
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
