package wordnet

import (
	"strconv"
	"strings"
	"sync"

	"github.com/mnemo-ai/mnemo/internal/lex"
)

// MaxKinds bounds the kinds Kinds returns for one query word ("event" has
// about 7,000 single-word hyponyms, "cause" 11,000).
const MaxKinds = 16384

// Kinds finds the words of a question that name what its answer is a
// kind of — the noun after "what", "which" or "how many", past "kind of",
// "type of" or "sort of": "What martial arts has John done?" asks for
// kinds of martial art, "Which cities…" for cities, "How many children…"
// for children — and returns, for each such query word, the single-word
// lemmas of its hyponyms: words (lower case) a turn answering it may use
// instead ("karate", "rome", "son"). words are the query's words in
// order, lower case (lex.Words). A two-word noun WordNet knows ("martial
// arts", "European countries") is expanded as one, under its last word;
// otherwise each of the (at most two) words after the question word that
// is a noun is. Nil when the question asks for no kind.
func (lx *Lexicon) Kinds(words []string) map[string][]string {
	j := kindHead(words)
	if j < 0 {
		return nil
	}
	out := map[string][]string{}
	if j+1 < len(words) && isHeadWord(words[j+1]) {
		if l := lx.Lemma(words[j] + "_" + words[j+1]); l != "" {
			if ks := lx.kinds(l); len(ks) > 0 {
				out[words[j+1]] = ks
			}
			return out
		}
		if l := lx.Lemma(words[j+1]); l != "" {
			if ks := lx.kinds(l); len(ks) > 0 {
				out[words[j+1]] = ks
			}
		}
	}
	if l := lx.Lemma(words[j]); l != "" {
		if ks := lx.kinds(l); len(ks) > 0 {
			out[words[j]] = ks
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// kindHead returns the index in words of the noun a question asks kinds
// of (see Kinds), or -1 when it asks for none. It needs no lexicon, so
// that a question asking for no kind never decodes one (QueryKinds).
func kindHead(words []string) int {
	j := -1
	for i, w := range words {
		if w == "what" || w == "which" {
			j = i + 1
		} else if w == "how" && i+1 < len(words) && words[i+1] == "many" {
			j = i + 2
		} else {
			continue
		}
		break
	}
	if j < 0 {
		return -1
	}
	for j+1 < len(words) && words[j+1] == "of" {
		switch words[j] {
		case "kind", "kinds", "type", "types", "sort", "sorts":
			j += 2
			continue
		}
		break
	}
	if j >= len(words) || !isHeadWord(words[j]) {
		return -1
	}
	return j
}

// isHeadWord reports whether w can be the noun a question asks about: no
// stopword, no number.
func isHeadWord(w string) bool {
	if lex.IsStopword(w) {
		return false
	}
	switch w {
	case "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten":
		return false
	}
	_, err := strconv.Atoi(w)
	return err != nil
}

// kindCache holds the kinds of the lemmas asked for lately: a closure of
// thousands of synsets costs about a millisecond, and agents ask alike.
type kindCache struct {
	mu sync.Mutex
	m  map[string][]string
}

const kindCacheSize = 256

// kinds returns the single-word, non-stopword synonyms of lemma's first
// (most frequent) sense and hyponyms of all its senses ("movie" → film,
// flick, documentary, …), cached.
func (lx *Lexicon) kinds(lemma string) []string {
	lx.cache.mu.Lock()
	ks, ok := lx.cache.m[lemma]
	lx.cache.mu.Unlock()
	if ok {
		return ks
	}
	for _, h := range append(lx.Synonyms(lemma), lx.Hyponyms(lemma, 0)...) {
		if strings.ContainsAny(h, "_-") || lex.IsStopword(h) {
			continue
		}
		ks = append(ks, h)
		if len(ks) == MaxKinds {
			break
		}
	}
	lx.cache.mu.Lock()
	if lx.cache.m == nil || len(lx.cache.m) >= kindCacheSize {
		lx.cache.m = map[string][]string{}
	}
	lx.cache.m[lemma] = ks
	lx.cache.mu.Unlock()
	return ks
}

// QueryKinds is Kinds over the embedded hierarchy (Nouns); nil if it
// cannot be decoded.
func QueryKinds(words []string) map[string][]string {
	if kindHead(words) < 0 {
		return nil // asks for no kind: the hierarchy stays undecoded
	}
	lx, err := Nouns()
	if err != nil {
		return nil
	}
	return lx.Kinds(words)
}
