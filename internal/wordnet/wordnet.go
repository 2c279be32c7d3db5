// Package wordnet holds the noun hierarchy of Princeton WordNet 3.0 —
// lemmas, their senses and each sense's hyponyms — for query expansion by
// kind: a question that asks for "martial arts" is answered by a turn
// that says "karate". The hierarchy ships embedded (nouns.bin.gz, about
// 1 MB, made by gen.go from Debian's wordnet-base files; LICENSE), so the
// offline default needs no system package, and is decoded on first use.
package wordnet

//go:generate go run gen.go -dict /usr/share/wordnet -out nouns.bin.gz

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Lexicon is WordNet's noun hierarchy. Lemmas are lower case, words of a
// multi-word lemma joined by '_' ("martial_art"). It is read-only and
// safe for concurrent use.
type Lexicon struct {
	// lemmas, sorted, are text[off[i]:off[i+1]].
	text string
	off  []uint32
	// Compressed sparse rows: lemma i's synsets, most frequent sense
	// first, are sense[senseAt[i]:senseAt[i+1]]; synset s's lemmas are
	// word[wordAt[s]:wordAt[s+1]], its hyponyms and instances
	// hypo[hypoAt[s]:hypoAt[s+1]].
	senseAt, sense []int32
	wordAt, word   []int32
	hypoAt, hypo   []int32
	// exc maps an irregular plural to its lemma ("geese" → "goose").
	exc map[string]int32

	cache kindCache
}

//go:embed nouns.bin.gz
var embedded []byte

var (
	nounsOnce sync.Once
	nouns     *Lexicon
	nounsErr  error
)

// Nouns returns the embedded hierarchy, decoded on the first call (about
// 50 ms; 4 MB of heap).
func Nouns() (*Lexicon, error) {
	nounsOnce.Do(func() {
		nouns, nounsErr = Read(bytes.NewReader(embedded))
	})
	return nouns, nounsErr
}

// Lemmas is the number of lemmas.
func (lx *Lexicon) Lemmas() int { return len(lx.off) - 1 }

func (lx *Lexicon) lemma(i int32) string { return lx.text[lx.off[i]:lx.off[i+1]] }

// LemmaAt returns lemma i of Lemmas(), in sorted order.
func (lx *Lexicon) LemmaAt(i int) string { return lx.lemma(int32(i)) }

// find returns the index of lemma w, or -1.
func (lx *Lexicon) find(w string) int32 {
	n := lx.Lemmas()
	i := sort.Search(n, func(i int) bool { return lx.lemma(int32(i)) >= w })
	if i < n && lx.lemma(int32(i)) == w {
		return int32(i)
	}
	return -1
}

// nounSuffixes are WordNet's detachment rules for nouns (morphy).
var nounSuffixes = [][2]string{{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}}

// Lemma returns the noun lemma of w as WordNet's morphy finds it ("cities"
// → "city", "geese" → "goose"; words joined by '_'), or "" when w is no
// noun WordNet knows.
func (lx *Lexicon) Lemma(w string) string {
	w = strings.ToLower(w)
	if lx.find(w) >= 0 {
		return w
	}
	if i, ok := lx.exc[w]; ok {
		return lx.lemma(i)
	}
	for _, r := range nounSuffixes {
		if b, ok := strings.CutSuffix(w, r[0]); ok && b != "" {
			if lx.find(b+r[1]) >= 0 {
				return b + r[1]
			}
		}
	}
	return ""
}

// Synonyms returns the other lemmas of lemma's first (most frequent)
// sense: "movie" → film, picture, moving_picture, ….
func (lx *Lexicon) Synonyms(lemma string) []string {
	i := lx.find(lemma)
	if i < 0 || lx.senseAt[i] == lx.senseAt[i+1] {
		return nil
	}
	s := lx.sense[lx.senseAt[i]]
	var out []string
	for _, w := range lx.word[lx.wordAt[s]:lx.wordAt[s+1]] {
		if w != i {
			out = append(out, lx.lemma(w))
		}
	}
	return out
}

// Hyponyms returns the lemmas below every sense of lemma in the
// hierarchy, instances included ("city" → "rome", "paris", …), without
// lemma's own synonyms, each once, nearer kinds first (breadth first), at
// most limit of them (limit ≤ 0: all).
func (lx *Lexicon) Hyponyms(lemma string, limit int) []string {
	i := lx.find(lemma)
	if i < 0 {
		return nil
	}
	senses := lx.sense[lx.senseAt[i]:lx.senseAt[i+1]]
	// Sets of lemmas and synsets as bits: a closure of thousands of
	// kinds ("event": 16,000) sets that many, which maps paid for.
	own, have := newBits(lx.Lemmas()), newBits(lx.Lemmas())
	for _, s := range senses {
		for _, w := range lx.word[lx.wordAt[s]:lx.wordAt[s+1]] {
			own.set(w)
		}
	}
	seen := newBits(len(lx.wordAt) - 1)
	var queue []int32 // breadth first: nearer kinds first
	for _, s := range senses {
		seen.set(s)
		queue = append(queue, lx.hypo[lx.hypoAt[s]:lx.hypoAt[s+1]]...)
	}
	var out []string
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if seen.has(s) {
			continue
		}
		seen.set(s)
		for _, w := range lx.word[lx.wordAt[s]:lx.wordAt[s+1]] {
			if !own.has(w) && !have.has(w) {
				have.set(w)
				out = append(out, lx.lemma(w))
				if limit > 0 && len(out) >= limit {
					return out
				}
			}
		}
		queue = append(queue, lx.hypo[lx.hypoAt[s]:lx.hypoAt[s+1]]...)
	}
	return out
}

// bits is a set of small non-negative integers.
type bits []uint64

func newBits(n int) bits        { return make(bits, (n+63)/64) }
func (b bits) set(i int32)      { b[i>>6] |= 1 << (i & 63) }
func (b bits) has(i int32) bool { return b[i>>6]&(1<<(i&63)) != 0 }

// ParseDict reads WordNet's noun files (index.noun, data.noun, noun.exc)
// from dir, as Debian's wordnet-base installs them in /usr/share/wordnet.
func ParseDict(dir string) (*Lexicon, error) {
	type synset struct {
		words []string
		hypo  []int64
	}
	var syns []synset
	byOffset := map[int64]int32{}
	err := eachLine(filepath.Join(dir, "data.noun"), func(line string) error {
		if strings.HasPrefix(line, "  ") { // the licence header
			return nil
		}
		p := strings.Fields(line)
		if len(p) < 6 {
			return errors.New("short synset line")
		}
		off, err := strconv.ParseInt(p[0], 10, 64)
		if err != nil {
			return err
		}
		n, err := strconv.ParseInt(p[3], 16, 32)
		if err != nil {
			return err
		}
		var s synset
		i := 4
		for k := 0; k < int(n); k++ {
			if i+1 >= len(p) {
				return fmt.Errorf("synset %d: short word list", off)
			}
			w := p[i]
			if j := strings.IndexByte(w, '('); j > 0 { // adjective markers
				w = w[:j]
			}
			s.words = append(s.words, strings.ToLower(w))
			i += 2
		}
		if i >= len(p) {
			return fmt.Errorf("synset %d: no pointer count", off)
		}
		pc, err := strconv.Atoi(p[i])
		if err != nil {
			return err
		}
		i++
		for k := 0; k < pc; k++ {
			if i+3 >= len(p) {
				return fmt.Errorf("synset %d: short pointer list", off)
			}
			if sym, pos := p[i], p[i+2]; (sym == "~" || sym == "~i") && pos == "n" {
				o, err := strconv.ParseInt(p[i+1], 10, 64)
				if err != nil {
					return err
				}
				s.hypo = append(s.hypo, o)
			}
			i += 4
		}
		byOffset[off] = int32(len(syns))
		syns = append(syns, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	senses := map[string][]int32{}
	err = eachLine(filepath.Join(dir, "index.noun"), func(line string) error {
		if strings.HasPrefix(line, "  ") {
			return nil
		}
		p := strings.Fields(line)
		if len(p) < 6 {
			return errors.New("short index line")
		}
		pc, err := strconv.Atoi(p[3])
		if err != nil || 6+pc > len(p) {
			return fmt.Errorf("index %q: bad pointer count", p[0])
		}
		for _, o := range p[6+pc:] {
			v, err := strconv.ParseInt(o, 10, 64)
			if err != nil {
				return err
			}
			s, ok := byOffset[v]
			if !ok {
				return fmt.Errorf("index %q: unknown synset %d", p[0], v)
			}
			senses[p[0]] = append(senses[p[0]], s)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	exc := map[string]string{}
	err = eachLine(filepath.Join(dir, "noun.exc"), func(line string) error {
		if p := strings.Fields(line); len(p) >= 2 {
			exc[p[0]] = p[1]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	// Every lemma of a synset or the index, sorted.
	all := map[string]bool{}
	for w := range senses {
		all[w] = true
	}
	for _, s := range syns {
		for _, w := range s.words {
			all[w] = true
		}
	}
	names := make([]string, 0, len(all))
	for w := range all {
		names = append(names, w)
	}
	sort.Strings(names)
	lx := &Lexicon{exc: map[string]int32{}}
	lx.setLemmas(names)
	id := func(w string) int32 { return lx.find(w) }
	lx.senseAt = make([]int32, 1, len(names)+1)
	for _, w := range names {
		lx.sense = append(lx.sense, senses[w]...)
		lx.senseAt = append(lx.senseAt, int32(len(lx.sense)))
	}
	lx.wordAt = make([]int32, 1, len(syns)+1)
	lx.hypoAt = make([]int32, 1, len(syns)+1)
	for _, s := range syns {
		for _, w := range s.words {
			lx.word = append(lx.word, id(w))
		}
		lx.wordAt = append(lx.wordAt, int32(len(lx.word)))
		for _, o := range s.hypo {
			if h, ok := byOffset[o]; ok {
				lx.hypo = append(lx.hypo, h)
			}
		}
		lx.hypoAt = append(lx.hypoAt, int32(len(lx.hypo)))
	}
	for w, b := range exc {
		if i := id(b); i >= 0 {
			lx.exc[w] = i
		}
	}
	return lx, nil
}

func (lx *Lexicon) setLemmas(sorted []string) {
	var b strings.Builder
	size := 0
	for _, w := range sorted {
		size += len(w)
	}
	b.Grow(size)
	lx.off = make([]uint32, 0, len(sorted)+1)
	for _, w := range sorted {
		lx.off = append(lx.off, uint32(b.Len()))
		b.WriteString(w)
	}
	lx.off = append(lx.off, uint32(b.Len()))
	lx.text = b.String()
}

func eachLine(path string, fn func(string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		if err := fn(sc.Text()); err != nil {
			return fmt.Errorf("%s:%d: %w", filepath.Base(path), n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return nil
}

// magic starts the compact form (version 2: each list's length first).
const magic = "mnemo-wordnet-nouns/2\n"

// Write writes lx in the compact form Read reads, gzipped: the sorted
// lemmas front-coded, then the sense, word and hyponym lists (each: its
// row count and value count, then each row's length and values, as
// uvarints), then the exceptions.
func (lx *Lexicon) Write(w io.Writer) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(zw)
	var buf [binary.MaxVarintLen64]byte
	uv := func(v uint64) { bw.Write(buf[:binary.PutUvarint(buf[:], v)]) }
	bw.WriteString(magic)
	n := lx.Lemmas()
	uv(uint64(n))
	prev := ""
	for i := 0; i < n; i++ {
		w := lx.lemma(int32(i))
		p := 0
		for p < len(w) && p < len(prev) && w[p] == prev[p] {
			p++
		}
		uv(uint64(p))
		uv(uint64(len(w) - p))
		bw.WriteString(w[p:])
		prev = w
	}
	rows := func(at, vals []int32) {
		uv(uint64(len(at) - 1))
		uv(uint64(len(vals)))
		for i := 0; i+1 < len(at); i++ {
			row := vals[at[i]:at[i+1]]
			uv(uint64(len(row)))
			for _, v := range row {
				uv(uint64(v))
			}
		}
	}
	rows(lx.senseAt, lx.sense)
	rows(lx.wordAt, lx.word)
	rows(lx.hypoAt, lx.hypo)
	keys := make([]string, 0, len(lx.exc))
	for k := range lx.exc {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	uv(uint64(len(keys)))
	for _, k := range keys {
		uv(uint64(len(k)))
		bw.WriteString(k)
		uv(uint64(lx.exc[k]))
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return zw.Close()
}

// Read reads the gzipped compact form Write writes, checking every
// reference.
func Read(r io.Reader) (*Lexicon, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("wordnet: %w", err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("wordnet: %w", err)
	}
	if !bytes.HasPrefix(data, []byte(magic)) {
		return nil, errors.New("wordnet: not a compact noun file")
	}
	d := decoder{b: data[len(magic):]}
	n := d.count()
	names := make([]string, 0, n)
	prev := ""
	for i := 0; i < n && d.err == nil; i++ {
		p, m := d.count(), d.count()
		if p > len(prev) {
			d.fail()
			break
		}
		w := prev[:p] + string(d.bytes(m))
		names = append(names, w)
		prev = w
	}
	lx := &Lexicon{exc: map[string]int32{}}
	lx.setLemmas(names)
	rows := func(limit int) (at, vals []int32) {
		k, total := d.count(), d.count()
		// Every row and value takes a byte at least: a claim beyond the
		// data is corrupt, not a reason to allocate.
		if k+total > len(d.b) {
			d.fail()
			return []int32{0}, nil
		}
		at = make([]int32, 1, k+1)
		vals = make([]int32, 0, total)
		for i := 0; i < k && d.err == nil; i++ {
			m := d.count()
			for j := 0; j < m; j++ {
				v := d.count()
				if v >= limit {
					d.fail()
				}
				vals = append(vals, int32(v))
			}
			at = append(at, int32(len(vals)))
		}
		if len(vals) != total {
			d.fail()
		}
		return at, vals
	}
	// Synset ids are checked against the synset count once it is known.
	lx.senseAt, lx.sense = rows(1 << 30)
	lx.wordAt, lx.word = rows(n)
	synsets := len(lx.wordAt) - 1
	lx.hypoAt, lx.hypo = rows(synsets)
	for _, s := range lx.sense {
		if int(s) >= synsets {
			d.fail()
		}
	}
	if len(lx.senseAt)-1 != n || len(lx.hypoAt)-1 != synsets {
		d.fail()
	}
	k := d.count()
	for i := 0; i < k && d.err == nil; i++ {
		w := string(d.bytes(d.count()))
		v := d.count()
		if v >= n {
			d.fail()
		}
		lx.exc[w] = int32(v)
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	if d.err != nil {
		return nil, d.err
	}
	return lx, nil
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errors.New("wordnet: corrupt compact noun file")
	}
	d.b = nil
}

func (d *decoder) count() int {
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > 1<<31 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

func (d *decoder) bytes(n int) []byte {
	if n > len(d.b) {
		d.fail()
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}
