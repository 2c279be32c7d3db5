package consolidate

import (
	"slices"
	"strings"
	"unicode"
)

// SameParticulars reports whether two texts carry the same particulars:
// the same numbers in the same order (amounts, dates, times, counts),
// the same capitalised words (names, places, months; the pronoun "I"
// aside) and the same number of negations. It is the guard of the
// near-exact fact merge: the built-in embedder weighs "Alex paid $40"
// and "Alex paid $45", or "I like tea" and "I don't like tea", almost
// as one, and such pairs must never merge.
//
// A capitalised word inside a sentence must be capitalised in the other
// text too; one that opens a sentence ("Meet at noon", "Alex paid") may
// be a name or only a capital, so the other text need only contain the
// word in any case. The guard errs towards keeping both facts.
func SameParticulars(a, b string) bool {
	pa, pb := particulars(a), particulars(b)
	return slices.Equal(pa.numbers, pb.numbers) && pa.negations == pb.negations && pa.namesIn(pb) && pb.namesIn(pa)
}

type textParticulars struct {
	numbers   []string        // digit runs in order
	names     map[string]bool // capitalised words inside a sentence, case-folded
	initials  map[string]bool // capitalised words opening a sentence, case-folded
	words     map[string]bool // every word, case-folded
	negations int
}

// namesIn reports whether every name of p is in q: a word capitalised
// inside a sentence as a name of q, one opening a sentence as any word
// of q.
func (p textParticulars) namesIn(q textParticulars) bool {
	for n := range p.names {
		if !q.names[n] && !q.initials[n] {
			return false
		}
	}
	for n := range p.initials {
		if !q.words[n] {
			return false
		}
	}
	return true
}

// negations are the words that turn a statement around.
var negations = map[string]bool{
	"not": true, "no": true, "never": true, "nothing": true, "none": true, "nobody": true,
	"neither": true, "nor": true, "without": true, "cannot": true, "nowhere": true,
}

func particulars(s string) textParticulars {
	p := textParticulars{names: map[string]bool{}, initials: map[string]bool{}, words: map[string]bool{}}
	// Numbers: every maximal run of digits.
	for _, run := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsDigit(r) }) {
		p.numbers = append(p.numbers, strings.TrimLeft(run, "0"))
	}
	// Words: letters with inner apostrophes ("don't" is one word); a
	// sentence opens at the start and after . ! ? or a new line.
	opening := true
	var w []rune
	flush := func() {
		word := strings.Trim(string(w), "'’")
		w = w[:0]
		if word == "" {
			return
		}
		lw := strings.ToLower(word)
		p.words[lw] = true
		if negations[lw] || strings.HasSuffix(lw, "n't") || strings.HasSuffix(lw, "n’t") {
			p.negations++
		}
		isI := word == "I" || strings.HasPrefix(word, "I'") || strings.HasPrefix(word, "I’")
		switch {
		case !unicode.IsUpper([]rune(word)[0]) || isI:
		case opening:
			p.initials[lw] = true
		default:
			p.names[lw] = true
		}
		opening = false
	}
	for _, r := range s {
		if unicode.IsLetter(r) || r == '\'' || r == '’' {
			w = append(w, r)
			continue
		}
		flush()
		if strings.ContainsRune(".!?\n", r) {
			opening = true
		}
	}
	flush()
	return p
}

// fillers are the words [SameWording] ignores: articles, conjunctions,
// interjections and intensifiers, which change how a fact is said, not
// what it says.
var fillers = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "so": true, "just": true, "really": true, "very": true,
	"too": true, "also": true, "totally": true, "total": true, "truly": true, "quite": true, "pretty": true,
	"absolutely": true, "definitely": true, "now": true, "oh": true, "well": true, "yeah": true, "yes": true,
	"ok": true, "okay": true, "hey": true, "hi": true, "wow": true, "um": true, "uh": true, "actually": true,
}

// SameWording reports whether two texts say the same words in the same
// order once case, punctuation, numbers and filler words (articles,
// "and", interjections, intensifiers such as "really" or "totally") are
// set aside: "Got it, that makes total sense now!" and "got it that
// makes sense" do; "I gave it to him" and "I gave it to her", or "Dog
// bites man" and "Man bites dog", do not. With [SameParticulars] (which
// compares the numbers) it is the near-exact merge's safe normalisation:
// the built-in embedder drops stopwords, so "Me too. Talk to you later!"
// and "Talk to you later" embed alike, and cosine alone never tells
// (docs/consolidation.md, "Fact merge").
func SameWording(a, b string) bool {
	return slices.Equal(wording(a), wording(b))
}

func wording(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\'' && r != '’'
	}) {
		w = strings.Trim(strings.ReplaceAll(w, "’", "'"), "'")
		if w != "" && !fillers[w] {
			out = append(out, w)
		}
	}
	return out
}
