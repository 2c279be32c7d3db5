package hashembed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
)

func cosine(a, b []float32) float64 {
	var d float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
	}
	return d
}

func norm(v []float32) float64 { return math.Sqrt(cosine(v, v)) }

func TestNew(t *testing.T) {
	tests := []struct {
		dim      int
		wantDim  int
		wantName string
	}{
		{0, DefaultDimension, "hash-v1-384"},
		{-3, DefaultDimension, "hash-v1-384"},
		{384, 384, "hash-v1-384"},
		{1024, 1024, "hash-v1-1024"},
		{1, 1, "hash-v1-1"},
	}
	for _, tt := range tests {
		e := New(tt.dim)
		if got := e.Dimension(); got != tt.wantDim {
			t.Errorf("New(%d).Dimension() = %d, want %d", tt.dim, got, tt.wantDim)
		}
		if got := e.Name(); got != tt.wantName {
			t.Errorf("New(%d).Name() = %q, want %q", tt.dim, got, tt.wantName)
		}
	}
}

func TestEmbedder_Embed(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		e := New(0)
		texts := []string{"Caroline went to the LGBTQ support group", "", "The stock market fell today"}
		got, err := e.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(texts) {
			t.Fatalf("got %d vectors, want %d", len(got), len(texts))
		}
		for i, v := range got {
			if len(v) != e.Dimension() {
				t.Errorf("vector %d has length %d, want %d", i, len(v), e.Dimension())
			}
		}
	})
	t.Run("Empty", func(t *testing.T) {
		got, err := New(0).Embed(context.Background(), nil)
		if err != nil || len(got) != 0 {
			t.Errorf("Embed(nil) = %v, %v, want [], nil", got, err)
		}
	})
	t.Run("ErrCanceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := New(0).Embed(ctx, []string{"a text"})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

func TestEmbedder_Deterministic(t *testing.T) {
	text := "Melanie painted a lake sunrise last year and loved it."
	a := New(0).EmbedOne(text)
	batch, err := New(0).Embed(context.Background(), []string{"other text", text})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, batch[1]) {
		t.Error("the same text embedded twice gave different vectors")
	}
	var nonzero int
	for _, x := range a {
		if x != 0 {
			nonzero++
		}
	}
	if nonzero < 20 {
		t.Errorf("only %d non-zero components", nonzero)
	}
}

// TestEmbedder_Golden pins the vectors across platforms and releases: if
// it fails, the vectors changed and Version must be bumped.
func TestEmbedder_Golden(t *testing.T) {
	v := New(0).EmbedOne("Caroline went to the LGBTQ support group yesterday")
	var got []string
	for i, x := range v {
		if math.Abs(float64(x)) > 0.2 {
			got = append(got, fmt.Sprintf("%d:%.3f", i, x))
		}
	}
	want := []string{"72:0.338", "122:0.338", "163:-0.338", "171:-0.338", "274:-0.446", "355:-0.338"}
	if !slices.Equal(got, want) {
		t.Errorf("large components = %q, want %q", got, want)
	}
}

func TestEmbedder_UnitNorm(t *testing.T) {
	e := New(0)
	for _, text := range []string{
		"a",
		"Caroline",
		"I went to a LGBTQ support group yesterday and it was so powerful.",
		strings.Repeat("supercalifragilisticexpialidocious", 10),
		"ÜBER naïve café 東京 タワー",
	} {
		if got := norm(e.EmbedOne(text)); math.Abs(got-1) > 1e-5 && text != "a" {
			t.Errorf("norm(%q) = %v, want 1", text, got)
		}
	}
}

func TestEmbedder_ZeroVector(t *testing.T) {
	e := New(0)
	for _, text := range []string{"", "   ", "!!! ...", "I am the you are", "a b c"} {
		v := e.EmbedOne(text)
		if got := norm(v); got != 0 {
			t.Errorf("norm(%q) = %v, want 0", text, got)
		}
	}
}

func TestEmbedder_Similarity(t *testing.T) {
	e := New(0)
	tests := []struct {
		name              string
		anchor, near, far string
	}{
		{"Paraphrase",
			"Caroline went to the LGBTQ support group",
			"Caroline attended a support group for LGBTQ people",
			"The stock market fell today"},
		{"Inflection",
			"Melanie loves painting sunrises",
			"Melanie painted a sunrise",
			"Caroline researched adoption agencies"},
		{"CharGrams", "counselor", "counseling", "consulate"},
		{"Acronym", "LGBT", "LGBTQ", "NASA"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, n, f := e.EmbedOne(tt.anchor), e.EmbedOne(tt.near), e.EmbedOne(tt.far)
			near, far := cosine(a, n), cosine(a, f)
			if near <= far+0.05 {
				t.Errorf("cos(anchor, near) = %.3f, cos(anchor, far) = %.3f; want near > far + 0.05", near, far)
			}
		})
	}
}

func TestEmbedder_InvalidUTF8(t *testing.T) {
	e := New(0)
	for _, text := range []string{"\xff\xfe\xfd", "caf\xc3", "ok \xe2\x80 text", "\xed\xa0\x80"} {
		v := e.EmbedOne(text)
		if n := norm(v); n != 0 && math.Abs(n-1) > 1e-5 {
			t.Errorf("norm(%q) = %v, want 0 or 1", text, n)
		}
	}
}

func TestEmbedder_Concurrent(t *testing.T) {
	e := New(0)
	want := e.EmbedOne("Caroline went to the LGBTQ support group")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				got, err := e.Embed(context.Background(), []string{"Caroline went to the LGBTQ support group"})
				if err != nil || !slices.Equal(got[0], want) {
					t.Error("concurrent Embed gave a different vector")
					return
				}
			}
		}()
	}
	wg.Wait()
}

func FuzzEmbed(f *testing.F) {
	for _, s := range []string{"Mel's", "a\xffb", "<>", strings.Repeat("é", 100)} {
		f.Add(s)
	}
	e := New(64)
	f.Fuzz(func(t *testing.T, s string) {
		v := e.EmbedOne(s)
		if n := norm(v); n != 0 && math.Abs(n-1) > 1e-4 {
			t.Fatalf("norm(%q) = %v", s, n)
		}
	})
}

func ExampleEmbedder_Embed() {
	e := New(DefaultDimension)
	vecs, _ := e.Embed(context.Background(), []string{
		"Caroline went to the LGBTQ support group",
		"Caroline attended a support group for LGBTQ people",
		"The stock market fell today",
	})
	fmt.Println(e.Name(), len(vecs[0]))
	fmt.Println(cosine(vecs[0], vecs[1]) > cosine(vecs[0], vecs[2]))
	// Output:
	// hash-v1-384 384
	// true
}

var benchSentences = []string{
	"I went to a LGBTQ support group yesterday and it was so powerful for me.",
	"Melanie painted that lake sunrise last year and it is really special to her.",
	"We are thinking about adopting a dog from the shelter down the road soon.",
	"My sister just started a new job as a nurse at the children's hospital.",
	"The concert last Saturday was amazing, the band played all our favorite songs.",
	"I'm keen on counseling or working in mental health to support people.",
	"He ran a charity race for mental health two weeks ago and finished third.",
	"Our camping trip to the mountains got cancelled because of the storm.",
}

func BenchmarkEmbedder_Embed(b *testing.B) {
	e := New(DefaultDimension)
	ctx := context.Background()
	batch := make([]string, 64)
	for i := range batch {
		batch[i] = benchSentences[i%len(benchSentences)]
	}
	for b.Loop() {
		if _, err := e.Embed(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(batch)*b.N)/b.Elapsed().Seconds(), "sentences/s")
}

func BenchmarkEmbedder_EmbedOne(b *testing.B) {
	e := New(DefaultDimension)
	i := 0
	for b.Loop() {
		e.EmbedOne(benchSentences[i%len(benchSentences)])
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "sentences/s")
}

func BenchmarkEmbedder_Parallel(b *testing.B) {
	e := New(DefaultDimension)
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			e.EmbedOne(benchSentences[i%len(benchSentences)])
			i++
		}
	})
}
