package recall

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/internal/lex"
)

// TestTermMatcher: the matcher's bits are the query stems lex.Terms finds
// in a text, ASCII (its own scan) or not (lex.Words).
func TestTermMatcher(t *testing.T) {
	for _, query := range []string{
		"Melanie's kids painted sunsets happily; dying skies, x 5 news running ugly; lie tie hope",
		"café naïve Melanie’s sunsets 東京",
	} {
		testTermMatcher(t, query)
	}
}

func testTermMatcher(t *testing.T, query string) {
	stems := []string{}
	for _, s := range lex.Terms(query) {
		if !slices.Contains(stems, s) {
			stems = append(stems, s)
		}
	}
	m := termMatcher{stems: stems}
	for _, text := range []string{
		"Melanie painted a SUNSET with the kids!",
		"Mel's kid's happiness: the sky is dying, skies are happy",
		"Lying and tying, tied and tie; she hoped, hoping, ran happily",
		"News: she ran, runs and is running; ugly x 5",
		"Melanie’s café painting — naïve sunsets",
		"",
		"don't 'quote' it's x5 5x",
		"Café au lait, naïve cafés in 東京都",
		"DYING Lying TyInG; MELANIE'S Kid'S 'Sunsets' paint'", // case, apostrophes at the edges
		"x X 5 ok Ok OK news' 'news ne'ws",                    // short words, apostrophes inside
	} {
		var want uint64
		for _, term := range lex.Terms(text) {
			if i := slices.Index(stems, term); i >= 0 {
				want |= 1 << i
			}
		}
		if got := m.bits(text); got != want {
			t.Errorf("bits(%q) = %b, want %b (stems %q, terms %q)", text, got, want, stems, lex.Terms(text))
		}
		if got := (&termMatcher{stems: stems}).bitsOfList(distinctWords(text)); got != want {
			t.Errorf("bitsOfList(%q) = %b, want %b", text, got, want)
		}
	}
}

// TestTermMatcher_Random: on random texts of words, cases, digits,
// apostrophes and punctuation, the matcher's bits are the stems lex.Terms
// finds, for queries of long and short stems.
func TestTermMatcher_Random(t *testing.T) {
	pieces := []string{"dying", "Lying", "TIE", "tied", "sunsets", "Sunset", "kid", "kids", "x", "5", "ok", "a", "is",
		"running", "ran", "news", "Mel", "mel's", "happily", "happy", "the", "this", "don't", "'", "''", " ", ", ", ".\n", "-", "é", "snow", "sn"}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, query := range []string{"Melanie's kids painted sunsets; dying x 5 news", "what did mel say to the kids ok"} {
		var stems []string
		for _, s := range lex.Terms(query) {
			if !slices.Contains(stems, s) {
				stems = append(stems, s)
			}
		}
		m := termMatcher{stems: stems}
		for range 2000 {
			var b strings.Builder
			for range rng.IntN(12) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			text := b.String()
			var want uint64
			for _, term := range lex.Terms(text) {
				if i := slices.Index(stems, term); i >= 0 {
					want |= 1 << i
				}
			}
			if got := m.bits(text); got != want {
				t.Fatalf("bits(%q) = %b, want %b (stems %q, terms %q)", text, got, want, stems, lex.Terms(text))
			}
			if got := m.bitsOfList(distinctWords(text)); got != want {
				t.Fatalf("bitsOfList(%q) = %b, want %b", text, got, want)
			}
		}
	}
}

// BenchmarkTermMatcher_Bits scans a long assistant-like turn (a Markdown
// list with code) for a question's stems, as the coverage reranker does
// for each result and its neighbours.
func BenchmarkTermMatcher_Bits(b *testing.B) {
	var text strings.Builder
	for i := range 40 {
		fmt.Fprintf(&text, "%d. **Set up the Flask project**: create a virtual environment, install Flask-Login and SQLAlchemy, then run `flask db upgrade` to apply migration %d. Don't forget the tests!\n", i, i)
	}
	stems := lex.Terms("When does my first sprint for the budget tracker's login page end?")
	b.SetBytes(int64(text.Len()))
	b.Run("text", func(b *testing.B) {
		for b.Loop() {
			m := termMatcher{stems: stems}
			m.bits(text.String())
		}
	})
	// The same turn's words from the coverage reranker's cache.
	b.Run("cached", func(b *testing.B) {
		c := newWordCache(DefaultWordCacheBytes)
		for b.Loop() {
			m := termMatcher{stems: stems}
			m.bitsOfList(c.words("f1", text.String()))
		}
	})
}

// TestWordCache checks that the cache answers a fact's words for its
// text only, and stays within its budget.
func TestWordCache(t *testing.T) {
	c := newWordCache(4 << 10)
	if got := c.words("f", "the cat saw the Cat"); !slices.Equal(got, []string{"the", "cat", "saw"}) {
		t.Fatalf("words = %q", got)
	}
	if got := c.words("f", "a dog now"); !slices.Equal(got, []string{"a", "dog", "now"}) {
		t.Fatalf("a changed text gave %q", got)
	}
	for i := range 500 {
		c.words(fmt.Sprint("g", i), strings.Repeat(fmt.Sprint("word", i, " "), 20))
	}
	if total := c.entries.Bytes(); total > 4<<10 {
		t.Fatalf("the cache holds %d bytes, over its budget", total)
	}
	var none *wordCache
	if got := none.words("f", "b a b"); !slices.Equal(got, []string{"b", "a"}) {
		t.Fatalf("no cache: %q", got)
	}
}
