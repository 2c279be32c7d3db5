// Package wordvec is an offline embedder built from static word vectors
// (GloVe, word2vec, fastText, the wink-embeddings npm package). Import
// converts a vector file once into mnemo's compact .mwv format (int8
// vectors, a hash-table vocabulary; see format.go); Open loads it in one
// read, and the Embedder embeds a text as the SIF-weighted mean of its
// words' vectors (Arora, Liang & Ma, "A Simple but Tough-to-Beat Baseline
// for Sentence Embeddings", ICLR 2017, without its common-component
// removal, which lowered recall here).
//
// Unlike the hashing embedder it knows that "car" and "automobile" are
// close; like it, it needs no network, no GPU and no key. It holds no
// vectors (the user supplies them), no training and no subword model: a
// word outside the vocabulary contributes nothing.
package wordvec

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
)

// Version is the version of how Embed turns word vectors into a text's
// vector (tokenisation, weights, fallbacks). Any change that alters the
// vectors bumps it; it is part of Name, so a bank written by an older
// version detects the change.
const Version = 1

// SIFWeight is the a of the SIF weight a/(a + p(w)) of a word of estimated
// probability p(w): Arora et al. found 1e-3 to 1e-4 best; 1e-3 is their
// default. A word of probability a weighs one half; the most frequent
// word of a 400,000-word vocabulary (p ≈ 0.074 by the Zipf estimate) about
// 0.013; a word past rank 10,000 more than 0.99. On LoCoMo (see
// docs/embeddings.md) 1e-2 did slightly better for the semantic strategy
// alone and worse in the whole engine.
const SIFWeight = 1e-3

// Embedder embeds texts with the word vectors of one .mwv file. Create it
// with Open; its zero value is not usable. It never changes after Open and
// is safe for concurrent use.
type Embedder struct {
	data  []byte // the whole file
	h     header
	l     layout
	dim   int
	count int
	hn    float64 // harmonic number H_N of the source's size: p(rank r) = 1/(r·H_N)
	name  string
	info  Info
}

var _ memory.Embedder = (*Embedder)(nil)

// Open loads the .mwv file at path (written by Import) with one read and
// no per-word work, checking its structure and CRC: about 40 ms for
// 400,000 100-d words (a 50 MB file), most of it the read. The Embedder
// holds the whole file in memory. A missing, truncated, corrupt or foreign
// file, or one of another FormatVersion, gives an EINVALID error.
func Open(path string) (*Embedder, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, memory.Errorf(memory.EINVALID, "open %s: %v", path, pathErr(err))
	}
	e, err := parse(data)
	if err != nil {
		return nil, memory.Errorf(memory.EINVALID, "%s: %s (convert vectors with `mnemo embeddings import`)", path, err)
	}
	e.info.Path = path
	return e, nil
}

// parse validates a .mwv file and wraps it in an Embedder.
func parse(data []byte) (*Embedder, error) {
	if len(data) < headerSize || string(data[:8]) != magic {
		return nil, fmt.Errorf("not a mnemo word-vector file")
	}
	var h header
	h.decode(data)
	if h.version != FormatVersion {
		return nil, fmt.Errorf("format version %d, this mnemo reads version %d", h.version, FormatVersion)
	}
	switch {
	case h.dim < 1 || h.dim > maxDim,
		h.count < 1 || h.count > maxWords,
		h.sourceCount < h.count,
		h.slots < 2*h.count || h.slots&(h.slots-1) != 0,
		h.wordBytes > maxBlob,
		h.nameLen > 4096,
		h.flags != 0:
		return nil, fmt.Errorf("corrupt header")
	}
	l := layoutOf(&h)
	if l.end != len(data) {
		return nil, fmt.Errorf("%d bytes, the header implies %d: truncated or corrupt", len(data), l.end)
	}
	if crc32Update(data[headerSize:]) != h.crc {
		return nil, fmt.Errorf("checksum mismatch: the file is corrupt")
	}
	le := binary.LittleEndian
	prev := uint32(0)
	for i := 0; i <= int(h.count); i++ {
		off := le.Uint32(data[l.offsets+4*i:])
		if off < prev || i == 0 && off != 0 {
			return nil, fmt.Errorf("corrupt vocabulary")
		}
		prev = off
	}
	if uint64(prev) != h.wordBytes {
		return nil, fmt.Errorf("corrupt vocabulary")
	}
	e := &Embedder{data: data, h: h, l: l, dim: int(h.dim), count: int(h.count)}
	e.hn = harmonic(int(h.sourceCount))
	e.name = name(h.id, e.dim)
	src := string(data[l.name : l.name+int(h.nameLen)])
	if !utf8.ValidString(src) {
		src = ""
	}
	e.info = Info{
		Name:        e.name,
		ID:          fmt.Sprintf("%x", h.id),
		Source:      src,
		Dim:         e.dim,
		Words:       e.count,
		SourceWords: int(h.sourceCount),
		Skipped:     int(h.sourceCount - h.count),
		Bytes:       int64(len(data)),
	}
	return e, nil
}

// name returns the Embedder name of a file: "wordvec:<12 hex digits of
// the id>-<dim>d-v<Version>".
func name(id [32]byte, dim int) string {
	return "wordvec:" + shortID(id) + "-" + strconv.Itoa(dim) + "d-v" + strconv.Itoa(Version)
}

// crc32Update returns the CRC-32C of b.
func crc32Update(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// harmonic returns H_n = 1 + 1/2 + … + 1/n, summed in a fixed order so
// that every platform gets the same bits.
func harmonic(n int) float64 {
	var s float64
	for k := n; k >= 1; k-- {
		s += 1 / float64(k)
	}
	return s
}

// Name returns "wordvec:<id>-<dim>d-v<Version>", e.g.
// "wordvec:1a2b3c4d5e6f-100d-v1": id is the start of the SHA-256 of the
// file's vocabulary and vectors, so a bank records which vectors it used,
// and the same vectors imported twice get the same name.
func (e *Embedder) Name() string { return e.name }

// Dimension returns the length of every vector: the dimension of the
// word vectors.
func (e *Embedder) Dimension() int { return e.dim }

// Info describes the loaded file. Its Format is empty: the source format
// is not recorded in the file.
func (e *Embedder) Info() Info { return e.info }

// Embed returns one vector per text, in order: the sum of the vectors of
// the text's known words, each weighted by SIFWeight/(SIFWeight + p(w))
// with p(w) estimated from the word's frequency rank r by the Zipf law
// p = 1/(r·H_N) (N the size of the source vocabulary, H_N its harmonic
// number), L2-normalised.
//
// Words are those of lex.Words after dropping a possessive or "is" clitic
// ("Mel's" → "mel"), without lex's stopwords; a word missing from the
// vocabulary is looked up without a plural "s", then as its stem, else
// ignored. A text with no known word (empty, punctuation or stopwords
// only, words the vectors do not know) yields the zero vector, whose
// cosine similarity with any vector is taken as 0; every other vector has
// unit L2 norm. Invalid UTF-8 bytes are separators. Embed fails only when
// ctx is done.
//
// Dropping stopwords and not removing a common component were measured:
// see docs/embeddings.md.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return provider.EmbedEach(ctx, texts, e.dim, e.embed)
}

// EmbedOne returns the vector of one text; see Embed.
func (e *Embedder) EmbedOne(text string) []float32 {
	v := make([]float32, e.dim)
	e.embed(text, make([]float64, e.dim), v)
	return v
}

// embed writes the vector of text into v, using acc (len dim) as scratch.
func (e *Embedder) embed(text string, acc []float64, v []float32) {
	clear(acc)
	known := false
	for _, w := range lex.Words(stripClitics(text)) {
		if lex.IsStopword(w) {
			continue
		}
		i, ok := e.find(w)
		if !ok {
			continue
		}
		e.addWord(acc, i, 1)
		known = true
	}
	clear(v)
	if !known {
		return
	}
	var sum float64
	for _, x := range acc {
		sum += x * x
	}
	if sum == 0 {
		return
	}
	inv := 1 / math.Sqrt(sum)
	for j, x := range acc {
		v[j] = float32(x * inv)
	}
}

// addWord adds f times the SIF-weighted vector of word i to acc.
func (e *Embedder) addWord(acc []float64, i int, f float64) {
	c := f * e.weight(i) * float64(e.scale(i))

	q := e.data[e.l.vectors+i*e.dim : e.l.vectors+(i+1)*e.dim]
	for j, b := range q {
		acc[j] += c * float64(int8(b))
	}
}

// prob returns the Zipf estimate of the probability of word i.
func (e *Embedder) prob(i int) float64 {
	r := max(binary.LittleEndian.Uint32(e.data[e.l.ranks+4*i:]), 1)
	return 1 / (float64(r) * e.hn)
}

// weight returns the SIF weight of word i.
func (e *Embedder) weight(i int) float64 {
	return SIFWeight / (SIFWeight + e.prob(i))
}

// scale returns the quantisation scale of word i.
func (e *Embedder) scale(i int) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(e.data[e.l.scales+4*i:]))
}

// word returns word i of the vocabulary, without copying.
func (e *Embedder) word(i int) []byte {
	le := binary.LittleEndian
	a := le.Uint32(e.data[e.l.offsets+4*i:])
	b := le.Uint32(e.data[e.l.offsets+4*i+4:])
	return e.data[e.l.blob+int(a) : e.l.blob+int(b)]
}

// lookup returns the index of w in the vocabulary.
func (e *Embedder) lookup(w string) (int, bool) {
	le := binary.LittleEndian
	mask := uint64(e.h.slots - 1)
	s := hashWord(w) & mask
	for range e.h.slots {
		x := le.Uint32(e.data[e.l.table+4*int(s):])
		if x == 0 || int(x) > e.count {
			return 0, false
		}
		if string(e.word(int(x-1))) == w {
			return int(x - 1), true
		}
		s = (s + 1) & mask
	}
	return 0, false
}

// find looks w up, then w without a plural "s", then w's stem.
func (e *Embedder) find(w string) (int, bool) {
	if i, ok := e.lookup(w); ok {
		return i, true
	}
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		if i, ok := e.lookup(w[:len(w)-1]); ok {
			return i, true
		}
	}
	if s := lex.Stem(w); s != w {
		return e.lookup(s)
	}
	return 0, false
}

// stripClitics removes the clitic "'s" (possessive or "is") from the
// words of s, so that "Mel's" is "Mel" rather than the rarer "mels" that
// lex.Words would make of it. Other contractions ("don't" → "dont") are
// left to the vocabulary, which usually holds them.
func stripClitics(s string) string {
	if !strings.ContainsAny(s, "'’") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\'' || r == '’' {
			rest := s[i+size:]
			if i > 0 && len(rest) > 0 && (rest[0] == 's' || rest[0] == 'S') && !wordRuneAt(rest[1:]) && wordRuneBefore(s[:i]) {
				i += size + 1
				continue
			}
		}
		b.WriteString(s[i : i+size])
		i += size
	}
	return b.String()
}

// wordRuneAt reports whether s begins with a letter or digit.
func wordRuneAt(s string) bool {
	if s == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// wordRuneBefore reports whether s ends with a letter or digit.
func wordRuneBefore(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// OutputName returns the file name Import gives by default to the conversion of
// src: src's base name without its extensions (".txt", ".vec", ".json",
// ".gz") and with ".mwv" appended.
func OutputName(src string) string {
	b := filepath.Base(filepath.Clean(src))
	for {
		ext := filepath.Ext(b)
		switch strings.ToLower(ext) {
		case ".gz", ".txt", ".vec", ".json", ".mwv":
			b = strings.TrimSuffix(b, ext)
			continue
		}
		break
	}
	if b == "" || b == "." || b == string(filepath.Separator) {
		b = "vectors"
	}
	return b + ".mwv"
}
