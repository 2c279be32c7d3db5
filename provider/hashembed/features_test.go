package hashembed

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/importer"
	"github.com/mnemo-ai/mnemo/internal/lex"
)

// referenceEmbed is embed as it was before the per-batch word features:
// every feature hashed and added as met, in the same order.
func referenceEmbed(e *Embedder, text string) []float32 {
	acc := make([]float64, e.dim)
	var prev string
	for _, w := range lex.Words(text) {
		if lex.IsStopword(w) {
			continue
		}
		t := lex.Stem(w)
		e.add(acc, hash1(kindUnigram, t), e.unigram)
		if prev != "" {
			e.add(acc, hash2(kindBigram, prev, t), e.bigram)
		}
		prev = t
		referenceCharGrams(e, acc, w)
	}
	v := make([]float32, e.dim)
	var sum float64
	for _, x := range acc {
		sum += x * x
	}
	if sum == 0 {
		return v
	}
	inv := 1 / math.Sqrt(sum)
	for j, x := range acc {
		v[j] = float32(x * inv)
	}
	return v
}

// referenceCharGrams is charGrams as it was: each gram added as hashed.
func referenceCharGrams(e *Embedder, acc []float64, w string) {
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
	p := n + 2
	grams := max(p-2, 0) + max(p-3, 0)
	if grams == 0 || e.charGram == 0 {
		return
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
			e.add(acc, h, weight)
		}
	}
}

// Embed, whose texts share their words' features, gives vectors equal
// bit for bit to those of each text embedded alone, feature by feature:
// on generated texts that repeat words across a batch and, when they are
// here, on the dev benchmarks' turns.
func TestEmbedder_SharedFeaturesSameVectors(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 84))
	vocab := strings.Fields("Caroline went to the LGBTQ support group yesterday counselor counseling running runs ran über café naïve 東京 a I it's don't x1 42 the of and it well Mel melanie garden gardens gardening \xff\xfe")
	var texts []string
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(vocab[rng.IntN(len(vocab))])
			b.WriteString([]string{" ", ", ", ". ", "\n", "-"}[rng.IntN(5)])
		}
		texts = append(texts, b.String())
	}
	texts = append(texts, strings.Repeat("supercalifragilisticexpialidocious", 5), "")
	for _, name := range []string{"locomo-dev.json", "beam-dev.json"} {
		texts = append(texts, devTurns(t, name)...)
	}
	e := New(0)
	for start := 0; start < len(texts); start += 256 {
		batch := texts[start:min(start+256, len(texts))]
		got, err := e.Embed(context.Background(), batch)
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range batch {
			want := referenceEmbed(e, text)
			for j := range want {
				if math.Float32bits(got[i][j]) != math.Float32bits(want[j]) {
					t.Fatalf("Embed(%q)[%d] = %v, want %v", text, j, got[i][j], want[j])
				}
			}
			if one := e.EmbedOne(text); math.Float32bits(one[0]) != math.Float32bits(want[0]) {
				t.Fatalf("EmbedOne(%q)[0] = %v, want %v", text, one[0], want[0])
			}
		}
	}
}

// devTurns returns the text of every turn of a dev benchmark file in
// ../shared/data (LoCoMo shape), or none when the file is not here.
func devTurns(t *testing.T, name string) []string {
	t.Helper()
	data, err := importer.LoadLoCoMo(filepath.Join("..", "..", "..", "shared", "data", name))
	if errors.Is(err, fs.ErrNotExist) {
		t.Logf("%s: %v (the benchmark data is not here)", name, err)
		return nil
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var turns []string
	for _, c := range data.Conversations {
		for _, s := range c.Sessions {
			for _, turn := range s.Turns {
				turns = append(turns, turn.Text)
			}
		}
	}
	return turns
}
