// Package lex is mnemo's shared English text analysis: it splits text into
// lower-cased words, stems them (Porter2) and drops stopwords. The embedder,
// the extractor and recall all use it so that a word means the same thing
// at ingest and at query time.
//
// It holds no language detection, no spelling correction and no
// multi-language support; everything here is English-only (CJK text,
// written without spaces, is split into character pairs so its words
// can be found) and deterministic. All functions are safe for concurrent use.
package lex

import (
	"github.com/kljensen/snowball/english"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Words returns the words of s, in order, duplicates kept: the maximal runs
// of letters and digits, lower-cased with unicode.ToLower, except in
// scripts written without spaces (Han, Hiragana, Katakana, Hangul:
// cjkRanges), whose runs give their overlapping character pairs
// (cjkBigrams). An apostrophe
// (' or ’) between two letters or digits is dropped and joins them, so
// "Mel's" gives "mels" and "don't" gives "dont"; any other apostrophe is a
// separator. Invalid UTF-8 bytes are separators; Words never panics.
func Words(s string) []string {
	words := make([]string, 0, len(s)/6+1)
	start := -1   // byte offset of the current word in s, -1 when outside a word
	clean := true // the current word is s[start:i] verbatim (ASCII lower, no apostrophe)
	var buf []byte
	flush := func(end int) {
		if start < 0 {
			return
		}
		if clean {
			words = append(words, s[start:end])
		} else {
			words = append(words, string(buf))
		}
		start, clean, buf = -1, true, buf[:0]
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
				if start < 0 {
					start = i
				} else if !clean {
					buf = append(buf, c)
				}
			case 'A' <= c && c <= 'Z':
				if start < 0 {
					start = i
				}
				if clean {
					buf = append(buf[:0], s[start:i]...)
					clean = false
				}
				buf = append(buf, c+'a'-'A')
			case c == '\'':
				if start >= 0 && i+1 < len(s) && isWordStart(s[i+1:]) {
					if clean {
						buf = append(buf[:0], s[start:i]...)
						clean = false
					}
				} else {
					flush(i)
				}
			default:
				flush(i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if isCJK(r) {
			flush(i)
			i = cjkBigrams(s, i, &words)
			continue
		}
		switch {
		case r == utf8.RuneError && size == 1:
			flush(i)
		case r == '’':
			if start >= 0 && i+size < len(s) && isWordStart(s[i+size:]) {
				if clean {
					buf = append(buf[:0], s[start:i]...)
					clean = false
				}
			} else {
				flush(i)
			}
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if start < 0 {
				start = i
			}
			if clean {
				buf = append(buf[:0], s[start:i]...)
				clean = false
			}
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		default:
			flush(i)
		}
		i += size
	}
	flush(len(s))
	return words
}

// cjkRanges are the characters of the scripts written without spaces
// between words: Hangul, Han (with the ideographic marks 々 〇 and
// Hangzhou numerals), Hiragana and Katakana (with the prolonged sound
// mark ー), their half-width forms and supplements. They are fixed here,
// not taken from package unicode, because PostgreSQL spells the same
// class (store/postgres migration 016, mnemo_cjk): both must split the
// same text the same way whatever Unicode version Go ships.
var cjkRanges = [...][2]rune{
	{0x1100, 0x11FF},   // Hangul Jamo
	{0x2E80, 0x2FDF},   // CJK Radicals Supplement, Kangxi Radicals
	{0x3005, 0x3005},   // 々
	{0x3007, 0x3007},   // 〇
	{0x3021, 0x3029},   // Hangzhou numerals
	{0x3038, 0x303B},   // Hangzhou numerals, 〻
	{0x3041, 0x3096},   // Hiragana
	{0x309D, 0x309F},   // Hiragana iteration marks, ゟ
	{0x30A1, 0x30FA},   // Katakana
	{0x30FC, 0x30FF},   // ー, Katakana iteration marks, ヿ
	{0x3131, 0x318E},   // Hangul Compatibility Jamo
	{0x31F0, 0x31FF},   // Katakana Phonetic Extensions
	{0x3400, 0x4DBF},   // CJK Extension A
	{0x4E00, 0x9FFF},   // CJK Unified Ideographs
	{0xA960, 0xA97F},   // Hangul Jamo Extended-A
	{0xAC00, 0xD7AF},   // Hangul Syllables
	{0xD7B0, 0xD7FF},   // Hangul Jamo Extended-B
	{0xF900, 0xFAFF},   // CJK Compatibility Ideographs
	{0xFF66, 0xFF9F},   // half-width Katakana
	{0xFFA0, 0xFFDC},   // half-width Hangul
	{0x1B000, 0x1B16F}, // Kana Supplement, Extended-A, small Kana
	{0x20000, 0x2FA1F}, // CJK Extensions B-F, Compatibility Supplement
	{0x30000, 0x323AF}, // CJK Extensions G-H
}

// isCJK reports whether r is in cjkRanges.
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	for _, x := range cjkRanges {
		if r < x[0] {
			return false
		}
		if r <= x[1] {
			return true
		}
	}
	return false
}

// cjkBigrams appends to words the words of the run of CJK characters
// that starts at s[i], and returns where the run ends. Without spaces to
// find words by, each overlapping pair of characters is a word (a run of
// one character is one word): "東京都" gives "東京" and "京都", so the
// query "京都" finds it. Both the index and the query split this way.
func cjkBigrams(s string, i int, words *[]string) int {
	start, prev, n := i, -1, 0 // prev: byte offset of the run's previous character
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isCJK(r) {
			break
		}
		if prev >= 0 {
			*words = append(*words, s[prev:i+size])
		}
		prev, i, n = i, i+size, n+1
	}
	if n == 1 {
		*words = append(*words, s[start:i])
	}
	return i
}

// isWordStart reports whether s begins with a letter or digit.
func isWordStart(s string) bool {
	c := s[0]
	if c < utf8.RuneSelf {
		return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && size == 1 {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// Terms returns the index terms of s: its Words without stopwords, each
// stemmed with Stem, in order, duplicates kept.
func Terms(s string) []string {
	if isPlainWord(s) { // one lower-case ASCII word: no scan, one allocation
		if IsStopword(s) {
			return nil
		}
		return []string{Stem(s)}
	}
	words := Words(s)
	terms := words[:0]
	for _, w := range words {
		if IsStopword(w) {
			continue
		}
		terms = append(terms, Stem(w))
	}
	return terms
}

// AppendTerms appends the index terms of s (Terms) to dst and returns
// the extended slice. A search that resolves many words (thousands, for
// the kinds of a general noun) reuses one slice so: one lower-case word
// costs no allocation.
func AppendTerms(dst []string, s string) []string {
	if isPlainWord(s) {
		if IsStopword(s) {
			return dst
		}
		return append(dst, Stem(s))
	}
	for _, w := range Words(s) {
		if !IsStopword(w) {
			dst = append(dst, Stem(w))
		}
	}
	return dst
}

// isPlainWord reports whether s is one word as Words gives it: lower-case
// ASCII letters and digits only.
func isPlainWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// Stem returns the English Porter2 (snowball) stem of the lower-case word
// w, e.g. "painting" → "paint". Words shorter than 3 runes are returned as
// they are. Results are memoised in a bounded cache.
func Stem(w string) string {
	if len(w) < 3 || len(w) < 7 && utf8.RuneCountInString(w) < 3 {
		return w
	}
	return stems.get(w)
}

// StemOnce is Stem without the cache: for stemming a whole vocabulary
// once (recall's kind lists), which would empty the cache of the words
// text and questions use again and again.
func StemOnce(w string) string {
	if len(w) < 3 || len(w) < 7 && utf8.RuneCountInString(w) < 3 {
		return w
	}
	return english.Stem(w, false)
}

// IsStopword reports whether the lower-case word w carries too little
// meaning to index: a word of one rune, or one of the words of the
// stopword list (see Stopwords).
func IsStopword(w string) bool {
	if len(w) <= 1 || len(w) <= 4 && utf8.RuneCountInString(w) == 1 {
		return true
	}
	_, ok := stopwords[w]
	return ok
}

// Stopwords returns a copy of the stopword list, in no particular order.
func Stopwords() []string {
	out := make([]string, 0, len(stopwords))
	for w := range stopwords {
		out = append(out, w)
	}
	return out
}

// stopwordList is STOP127 of the benchmark protocol (bench/PROTOCOL.md
// §2.1), then contractions as Words spells them (apostrophe dropped), then
// chat filler: 179 words. Contractions that collide with content words
// ("id", "ill", "wed", "well", "lets") are left out on purpose.
const stopwordList = `
i me my myself we our ours ourselves you your yours yourself yourselves he him his himself
she her hers herself it its itself they them their theirs themselves what which who whom this
that these those am is are was were be been being have has had having do does did doing a an
the and but if or because as until while of at by for with about against between into through
during before after above below to from up down in out on off over under again further then
once here there when where why how all any both each few more most other some such no nor not
only own same so than too very s t can will just don should now

dont im ive youre youve youll hes shes theyre theyve weve cant wont didnt doesnt isnt arent
wasnt havent hasnt wouldnt couldnt shouldnt thats theres whats

hey hi hello yeah yes yep oh ok okay really also would could might um hmm wow haha lol btw
anyway maybe much thanks gonna kinda
`

var stopwords = func() map[string]struct{} {
	m := make(map[string]struct{}, 200)
	for _, w := range strings.Fields(stopwordList) {
		m[w] = struct{}{}
	}
	return m
}()
