package firewall

import (
	"strings"
	"unicode/utf8"
)

// prefilter says, in one pass over a text, which of a list of rules have
// one of their words in it — what strings.Contains of each word in
// strings.ToLower(text) says, without the lower-cased copy and without a
// pass per word. It is an Aho-Corasick automaton over the words' bytes.
//
// The words are lower-case ASCII. strings.ToLower turns an ASCII upper-case
// letter into its lower case, every other ASCII byte into itself, two
// non-ASCII letters into ASCII ones (foldToASCII) and every other rune
// (an invalid byte included) into non-ASCII bytes, which no word contains;
// the automaton reads the text the same way, so its answer is the same.
//
// A prefilter is immutable once built and safe for concurrent use.
type prefilter struct {
	// next is the transition table: state s on byte c goes to state
	// next[s*128+c]>>1, whose hits are not empty when the low bit is
	// set. State 0 is the root.
	next []uint16
	// hits is, per state, the rules one of whose words ends there (the
	// state's word and the words its suffixes spell).
	hits []uint64
	// always is the rules without words: they run on every text.
	always uint64
	// all is every rule: a scan can stop once all of them are hit.
	all uint64
}

// foldToASCII returns the ASCII letter unicode.ToLower, and so
// strings.ToLower, maps r to when r is outside ASCII: LATIN CAPITAL
// LETTER I WITH DOT ABOVE to 'i' and KELVIN SIGN to 'k'; no other rune
// outside ASCII has a lower case inside it (a test checks every rune).
func foldToASCII(r rune) (byte, bool) {
	switch r {
	case '\u0130':
		return 'i', true
	case '\u212A':
		return 'k', true
	}
	return 0, false
}

// newPrefilter builds the automaton for rules, rule i matching when one of
// words[i] occurs (always, when words[i] is empty). It panics on more
// than 64 rules or on a word that is not lower-case ASCII: the lists are
// the package's own.
func newPrefilter(words [][]string) *prefilter {
	if len(words) > 64 {
		panic("firewall: more than 64 prefilter rules")
	}
	p := &prefilter{next: make([]uint16, 128), hits: make([]uint64, 1)}
	for i, ws := range words {
		p.all |= 1 << i
		if len(ws) == 0 {
			p.always |= 1 << i
			continue
		}
		for _, w := range ws {
			if w == "" || w != strings.ToLower(w) {
				panic("firewall: prefilter word " + w + " is not lower-case")
			}
			s := 0
			for j := 0; j < len(w); j++ {
				c := w[j]
				if c >= utf8.RuneSelf {
					panic("firewall: prefilter word " + w + " is not ASCII")
				}
				if p.next[s*128+int(c)] == 0 {
					p.next[s*128+int(c)] = uint16(len(p.hits))
					p.next = append(p.next, make([]uint16, 128)...)
					p.hits = append(p.hits, 0)
				}
				s = int(p.next[s*128+int(c)])
			}
			p.hits[s] |= 1 << i
		}
	}
	if len(p.hits) > 1<<15 {
		panic("firewall: prefilter too large")
	}
	// Breadth first: a state's failure (its longest proper suffix that is
	// also a state) is known before its children's. Missing transitions
	// become the failure's, so the scan never follows a failure link.
	fail := make([]uint16, len(p.hits))
	queue := make([]uint16, 0, len(p.hits))
	for c := range 128 {
		if t := p.next[c]; t != 0 {
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := int(queue[0])
		queue = queue[1:]
		p.hits[s] |= p.hits[fail[s]]
		for c := range 128 {
			t := p.next[s*128+c]
			if t == 0 {
				p.next[s*128+c] = p.next[int(fail[s])*128+c]
				continue
			}
			fail[t] = p.next[int(fail[s])*128+c]
			queue = append(queue, t)
		}
	}
	for i, t := range p.next {
		p.next[i] = t << 1
		if p.hits[t] != 0 {
			p.next[i] |= 1
		}
	}
	return p
}

// foldTable maps a byte of text to what the automaton reads: an ASCII
// byte to its lower case, 0xC4 and 0xE2 (which may start a rune
// foldToASCII maps) to foldRune, and any other byte outside ASCII to 0,
// a byte no word holds (so is NUL itself).
var foldTable = func() (t [256]byte) {
	for c := range 128 {
		t[c] = byte(c)
		if 'A' <= c && c <= 'Z' {
			t[c] += 'a' - 'A'
		}
	}
	t[0xC4], t[0xE2] = foldRune, foldRune
	return t
}()

// foldRune marks, in foldTable, a byte that starts a rune to decode.
const foldRune = 0x80

// match returns the rules that apply to text, rule i as bit i: those one
// of whose words occurs in strings.ToLower(text), and those without words.
func (p *prefilter) match(text string) uint64 {
	got := p.always
	s := 0
	for i := 0; i < len(text); i++ {
		c := foldTable[text[i]]
		if c == foldRune {
			c = 0
			r, size := utf8.DecodeRuneInString(text[i:])
			if f, ok := foldToASCII(r); ok {
				c = f
				i += size - 1
			}
		}
		t := p.next[s<<7|int(c)]
		s = int(t >> 1)
		if t&1 != 0 {
			got |= p.hits[s]
			if got == p.all {
				return got
			}
		}
	}
	return got
}
