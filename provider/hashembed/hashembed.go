// Package hashembed is mnemo's built-in default embedder: signed feature
// hashing of stemmed words, word bigrams and character n-grams into a
// fixed-size, L2-normalised vector.
//
// It needs no model file, no network and no GPU, is deterministic across
// runs and platforms, and is fast enough to embed on every ingest. It knows
// no synonyms: "car" and "automobile" share nothing. Banks that need
// semantic similarity use a model-backed embedder from another provider
// package instead.
package hashembed

import (
	"context"
	"math"
	"strconv"

	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
)

// DefaultDimension is the vector length New uses when given none. 384
// matches the small sentence-transformer models, so a bank can switch to
// one without changing the vector column's width.
const DefaultDimension = 384

// Version is the version of the feature set and weights. Any change that
// alters the vectors (features, weights, hashing) must bump it, so that a
// bank written by an older version detects the change through Name.
const Version = 1

// Feature weights. A vector is the signed, hashed sum of every feature
// times its weight, then L2-normalised.
//
// Unigrams (stemmed terms, stopwords removed, as lex.Terms) carry the
// meaning and weigh 1. Bigrams of consecutive terms reward shared phrases
// ("support group") and word order; they weigh only 0.3 because at 384
// dimensions every extra feature also adds collision noise, and questions
// rarely repeat a fact's phrasing. Character 3- and 4-grams of each
// non-stopword word, padded as "<word>", recover what stemming misses
// ("counselor"/"counseling", "LGBT"/"LGBTQ", typos); the grams of one word
// form a block of L2 norm CharGramWeight (each of its n grams weighs
// CharGramWeight/√n), so a long word does not outweigh its own unigram.
//
// Measured on the LoCoMo dev queries (turn retrieval by cosine, 384
// dimensions, recall@10 / MRR): unigrams only 0.433 / 0.280; with bigrams
// 0.7 and char grams 0.3, 0.410 / 0.278; with these weights 0.428 / 0.294.
const (
	UnigramWeight  = 1.0
	BigramWeight   = 0.3
	CharGramWeight = 0.5
)

// Feature kinds, mixed into each hash so that the unigram "art" and the
// character gram "art" land in different buckets.
const (
	kindUnigram byte = 'u'
	kindBigram  byte = 'b'
	kindChar    byte = 'c'
)

// Embedder is the hashing embedder. Its zero value is not usable; create
// one with New. It is safe for concurrent use.
type Embedder struct {
	dim  int
	name string
	// Weights, fixed to the constants by New; unexported so that Name
	// always describes the vectors.
	unigram, bigram, charGram float64
}

var _ memory.Embedder = (*Embedder)(nil)

// New returns an Embedder of vectors of length dim; dim <= 0 means
// DefaultDimension.
func New(dim int) *Embedder {
	if dim <= 0 {
		dim = DefaultDimension
	}
	return &Embedder{
		dim:  dim,
		name: "hash-v" + strconv.Itoa(Version) + "-" + strconv.Itoa(dim),

		unigram:  UnigramWeight,
		bigram:   BigramWeight,
		charGram: CharGramWeight,
	}
}

// Name returns "hash-v<Version>-<dimension>", e.g. "hash-v1-384".
func (e *Embedder) Name() string { return e.name }

// Dimension returns the length of every vector.
func (e *Embedder) Dimension() int { return e.dim }

// Lexical implements memory.Lexical: hashed vectors carry word overlap,
// not meaning.
func (e *Embedder) Lexical() bool { return true }

// Embed returns one vector per text, in order. A text with no features
// (empty, punctuation only, or only stopwords; or, vanishingly rarely, one
// whose features cancel out) yields the zero vector,
// whose cosine similarity with any vector is taken as 0; every other vector
// has unit L2 norm. Invalid UTF-8 bytes are treated as separators. Embed
// fails only when ctx is done.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	// The texts of a batch (the facts of one item) share most of their
	// words: each word's features are worked out once per batch.
	words := map[string]*features{}
	return provider.EmbedEach(ctx, texts, e.dim, func(text string, acc []float64, v []float32) {
		e.embed(text, acc, v, words)
	})
}

// EmbedOne returns the vector of one text; see Embed.
func (e *Embedder) EmbedOne(text string) []float32 {
	v := make([]float32, e.dim)
	e.embed(text, make([]float64, e.dim), v, map[string]*features{})
	return v
}

// features is what one word adds to a vector, apart from its bigram:
// its stem's unigram and its character grams, each as a bucket and a
// signed weight, in the order embed adds them (floating-point sums depend
// on the order).
type features struct {
	stem string
	adds []bucketAdd // the unigram, then the character grams
}

// bucketAdd is one feature's signed weight and the bucket it goes to.
type bucketAdd struct {
	bucket int
	weight float64
}

// embed writes the vector of text into v, using acc (len dim) as scratch
// and words as the features of the words seen so far (it adds the new
// ones).
func (e *Embedder) embed(text string, acc []float64, v []float32, words map[string]*features) {
	clear(acc)
	var prev string // previous term, for bigrams
	for _, w := range lex.Words(text) {
		f := words[w]
		if f == nil {
			if lex.IsStopword(w) {
				words[w] = &features{}
				continue
			}
			f = e.features(w)
			words[w] = f
		} else if f.adds == nil {
			continue // a stopword
		}
		t := f.stem
		acc[f.adds[0].bucket] += f.adds[0].weight
		if prev != "" {
			e.add(acc, hash2(kindBigram, prev, t), e.bigram)
		}
		prev = t
		for _, a := range f.adds[1:] {
			acc[a.bucket] += a.weight
		}
	}
	var sum float64
	for _, x := range acc {
		sum += x * x
	}
	if sum == 0 {
		clear(v)
		return
	}
	inv := 1 / math.Sqrt(sum)
	for j, x := range acc {
		v[j] = float32(x * inv)
	}
}

// features returns the features of w, a word that is not a stopword.
func (e *Embedder) features(w string) *features {
	t := lex.Stem(w)
	f := &features{stem: t, adds: make([]bucketAdd, 1, 16)}
	f.adds[0] = e.bucketAdd(hash1(kindUnigram, t), e.unigram)
	f.adds = e.charGrams(f.adds, w)
	return f
}

// maxGramRunes bounds the runes of a word that yield character grams; a
// longer word's grams beyond that add nothing its prefix does not.
const maxGramRunes = 64

// charGrams appends the 3- and 4-grams (in runes) of "<w>" to adds. The
// grams of one word share a block of L2 norm CharGramWeight.
func (e *Embedder) charGrams(adds []bucketAdd, w string) []bucketAdd {
	// offs[k] is the byte offset of w's rune k; offs[n] is the end.
	var offs [maxGramRunes + 1]int
	n, end := 0, len(w)
	for i := range w {
		if n == maxGramRunes {
			end = i
			break
		}
		offs[n] = i
		n++
	}
	offs[n] = end
	// The padded word has p runes: '<', w's n runes, '>'; padded rune k
	// (1 ≤ k ≤ n) is w's rune k-1.
	p := n + 2
	grams := max(p-2, 0) + max(p-3, 0)
	if grams == 0 {
		return adds
	}
	if e.charGram == 0 {
		return adds
	}
	weight := e.charGram / math.Sqrt(float64(grams))
	for size := 3; size <= 4; size++ {
		for a := 0; a+size <= p; a++ {
			b := a + size
			h := fnvByte(fnvOffset, kindChar)
			if a == 0 {
				h = fnvByte(h, '<')
			}
			if lo, hi := max(a, 1), min(b, n+1); lo < hi {
				h = fnvString(h, w[offs[lo-1]:offs[hi-1]])
			}
			if b == p {
				h = fnvByte(h, '>')
			}
			adds = append(adds, e.bucketAdd(h, weight))
		}
	}
	return adds
}

// bucketAdd returns the bucket of hash h and ±weight: the low 32 bits
// pick the bucket, the top bit the sign.
func (e *Embedder) bucketAdd(h uint64, weight float64) bucketAdd {
	h = mix(h)
	b := (uint64(uint32(h)) * uint64(e.dim)) >> 32
	if h>>63 != 0 {
		weight = -weight
	}
	return bucketAdd{bucket: int(b), weight: weight}
}

// add adds ±weight to the bucket of hash h (bucketAdd).
func (e *Embedder) add(acc []float64, h uint64, weight float64) {
	a := e.bucketAdd(h, weight)
	acc[a.bucket] += a.weight
}

// FNV-1a 64.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

func fnvByte(h uint64, c byte) uint64 { return (h ^ uint64(c)) * fnvPrime }

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

func hash1(kind byte, s string) uint64 {
	return fnvString(fnvByte(fnvOffset, kind), s)
}

func hash2(kind byte, a, b string) uint64 {
	h := fnvString(fnvByte(fnvOffset, kind), a)
	return fnvString(fnvByte(h, 0), b)
}

// mix is the splitmix64 finaliser: FNV's low bits are weak for short
// keys, and the bucket and sign are taken from different ends of the hash.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}
