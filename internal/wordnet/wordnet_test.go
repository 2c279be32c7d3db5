package wordnet

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/internal/lex"
)

func nounsT(t testing.TB) *Lexicon {
	t.Helper()
	lx, err := Nouns()
	if err != nil {
		t.Fatalf("Nouns: %v", err)
	}
	return lx
}

func TestNouns(t *testing.T) {
	lx := nounsT(t)
	if n := lx.Lemmas(); n < 100000 {
		t.Errorf("Lemmas() = %d, want WordNet 3.0's ~117,000", n)
	}
	again, _ := Nouns()
	if again != lx {
		t.Error("Nouns decoded twice")
	}
}

func TestLexicon_Lemma(t *testing.T) {
	lx := nounsT(t)
	for _, tt := range []struct{ in, want string }{
		{"city", "city"},
		{"Cities", "city"},
		{"countries", "country"},
		{"geese", "goose"},     // noun.exc
		{"churches", "church"}, // -ches
		{"women", "woman"},     // noun.exc / -men
		{"martial_arts", "martial_art"},
		{"glorp", ""},
		{"", ""},
		{"xyzzies", ""},
	} {
		if got := lx.Lemma(tt.in); got != tt.want {
			t.Errorf("Lemma(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLexicon_Hyponyms(t *testing.T) {
	lx := nounsT(t)
	arts := lx.Hyponyms("martial_art", 0)
	for _, w := range []string{"karate", "judo", "taekwondo", "aikido"} {
		if !slices.Contains(arts, w) {
			t.Errorf("Hyponyms(martial_art) lacks %q: %q", w, arts)
		}
	}
	if slices.Contains(arts, "martial_art") {
		t.Error("Hyponyms includes the lemma itself")
	}
	cities := lx.Hyponyms("city", 0)
	for _, w := range []string{"rome", "paris", "lisbon"} { // instances count
		if !slices.Contains(cities, w) {
			t.Errorf("Hyponyms(city) lacks instance %q", w)
		}
	}
	if got := lx.Hyponyms("city", 5); len(got) != 5 {
		t.Errorf("Hyponyms(city, 5) has %d lemmas", len(got))
	}
	if got := lx.Hyponyms("glorp", 0); got != nil {
		t.Errorf("Hyponyms of an unknown lemma = %q", got)
	}
	seen := map[string]bool{}
	for _, w := range lx.Hyponyms("event", 0) {
		if seen[w] {
			t.Fatalf("Hyponyms(event) repeats %q", w)
		}
		seen[w] = true
	}
}

func TestLexicon_Synonyms(t *testing.T) {
	lx := nounsT(t)
	if got := lx.Synonyms("movie"); !slices.Contains(got, "film") || slices.Contains(got, "movie") {
		t.Errorf("Synonyms(movie) = %q, want film and not movie", got)
	}
	if got := lx.Synonyms("glorp"); got != nil {
		t.Errorf("Synonyms(glorp) = %q", got)
	}
}

func TestLexicon_Kinds(t *testing.T) {
	lx := nounsT(t)
	tests := []struct {
		query string
		word  string   // the query word expanded; "" when none is
		has   []string // some of its kinds
	}{
		{"What martial arts has John done?", "arts", []string{"karate", "judo", "taekwondo"}},
		{"Which cities has Jon visited?", "cities", []string{"rome", "paris"}},
		{"What European countries has Maria been to?", "countries", []string{"spain", "england"}},
		{"How many children does Melanie have?", "children", []string{"son", "daughter", "kid"}},
		{"What kind of art does Caroline make?", "art", []string{"painting", "drawing"}},
		{"What types of yoga has Maria practiced?", "", nil}, // yoga has no kinds in WordNet
		{"What movies has Joanna seen?", "movies", []string{"film", "documentary"}},
		{"What did Melanie paint recently?", "", nil},
		{"What is Caroline's identity?", "", nil},
		{"When did Caroline go to the support group?", "", nil},
		{"Where has Melanie camped?", "", nil},
		{"How many times has Melanie gone to the beach?", "", nil},
		{"What two main things matter?", "", nil},
		{"what", "", nil},
		{"", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got := lx.Kinds(lex.Words(tt.query))
			if tt.word == "" {
				if len(got) != 0 {
					t.Errorf("Kinds = %d words for %v, want none", len(got), slices.Collect(mapKeys(got)))
				}
				return
			}
			ks, ok := got[tt.word]
			if !ok {
				t.Fatalf("Kinds has no entry for %q: %v", tt.word, slices.Collect(mapKeys(got)))
			}
			for _, w := range tt.has {
				if !slices.Contains(ks, w) {
					t.Errorf("kinds of %q lack %q", tt.word, w)
				}
			}
			for _, k := range ks {
				if lex.IsStopword(k) || bytes.ContainsAny([]byte(k), "_- ") {
					t.Errorf("kind %q is a stopword or not one word", k)
				}
			}
		})
	}
}

func mapKeys(m map[string][]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// same reports whether two lexicons hold the same hierarchy.
func same(a, b *Lexicon) bool {
	return a.text == b.text && slices.Equal(a.off, b.off) &&
		slices.Equal(a.senseAt, b.senseAt) && slices.Equal(a.sense, b.sense) &&
		slices.Equal(a.wordAt, b.wordAt) && slices.Equal(a.word, b.word) &&
		slices.Equal(a.hypoAt, b.hypoAt) && slices.Equal(a.hypo, b.hypo) &&
		reflect.DeepEqual(a.exc, b.exc)
}

func TestWriteRead(t *testing.T) {
	lx := nounsT(t)
	var buf bytes.Buffer
	if err := lx.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !same(lx, back) {
		t.Error("Read(Write(lx)) differs from lx")
	}
}

// TestParseDict_Embedded checks that nouns.bin.gz is what gen.go makes of
// the system's WordNet (Debian: apt-get install wordnet-base).
func TestParseDict_Embedded(t *testing.T) {
	const dir = "/usr/share/wordnet"
	if _, err := os.Stat(filepath.Join(dir, "data.noun")); err != nil {
		t.Skipf("no WordNet dict files in %s", dir)
	}
	parsed, err := ParseDict(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !same(parsed, nounsT(t)) {
		t.Error("nouns.bin.gz differs from the dict files: run go generate ./internal/wordnet")
	}
}

func TestParseDict_Errors(t *testing.T) {
	if _, err := ParseDict(t.TempDir()); err == nil {
		t.Error("ParseDict of an empty directory: no error")
	}
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("data.noun", "00001740 03 n 01 entity 0 003 ~ 00001930 n 0000\n") // pointer list cut short
	write("index.noun", "entity n 1 1 ~ 1 0 00001740\n")
	write("noun.exc", "")
	if _, err := ParseDict(dir); err == nil {
		t.Error("ParseDict of a truncated synset: no error")
	}
	write("data.noun", "00001740 03 n 01 entity 0 000 | gloss\n")
	write("index.noun", "entity n 1 0 1 0 00009999\n") // unknown synset
	if _, err := ParseDict(dir); err == nil {
		t.Error("ParseDict of an index naming an unknown synset: no error")
	}
	write("index.noun", "entity n 1 0 1 0 00001740\n")
	lx, err := ParseDict(dir)
	if err != nil {
		t.Fatal(err)
	}
	if lx.Lemma("entity") != "entity" || lx.Hyponyms("entity", 0) != nil {
		t.Errorf("one-synset lexicon: Lemma %q, Hyponyms %q", lx.Lemma("entity"), lx.Hyponyms("entity", 0))
	}
}

func TestRead_Corrupt(t *testing.T) {
	var good bytes.Buffer
	if err := nounsT(t).Write(&good); err != nil {
		t.Fatal(err)
	}
	raw, err := gzip.NewReader(bytes.NewReader(good.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	plain.ReadFrom(raw)
	gz := func(b []byte) []byte {
		var out bytes.Buffer
		w := gzip.NewWriter(&out)
		w.Write(b)
		w.Close()
		return out.Bytes()
	}
	p := plain.Bytes()
	for name, in := range map[string][]byte{
		"not gzip":  []byte("hello"),
		"bad magic": gz([]byte("something else\n")),
		"truncated": gz(p[:len(p)/2]),
		"trailing":  gz(append(slices.Clone(p), 1)),
		"empty":     gz(nil),
	} {
		if _, err := Read(bytes.NewReader(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func FuzzRead(f *testing.F) {
	dir := f.TempDir()
	for name, body := range map[string]string{
		"data.noun":  "00000001 03 n 01 art 0 001 ~ 00000002 n 0000 | gloss\n00000002 03 n 02 karate 0 judo 0 000 | gloss\n",
		"index.noun": "art n 1 1 ~ 1 0 00000001\nkarate n 1 0 1 0 00000002\njudo n 1 0 1 0 00000002\n",
		"noun.exc":   "arts art\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	tiny, err := ParseDict(dir)
	if err != nil {
		f.Fatal(err)
	}
	if got := tiny.Hyponyms("art", 0); !slices.Equal(got, []string{"karate", "judo"}) {
		f.Fatalf("tiny Hyponyms(art) = %q", got)
	}
	var small bytes.Buffer
	if err := tiny.Write(&small); err != nil {
		f.Fatal(err)
	}
	f.Add(small.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		lx, err := Read(bytes.NewReader(b))
		if err != nil {
			return
		}
		// Whatever decoded must be safe to walk.
		for i := 0; i < lx.Lemmas(); i++ {
			l := lx.lemma(int32(i))
			lx.Hyponyms(l, 0)
			lx.Synonyms(l)
			lx.Lemma(l)
		}
	})
}

func BenchmarkKinds(b *testing.B) {
	lx := nounsT(b)
	words := lex.Words("What events has Caroline participated in to help children?")
	for b.Loop() {
		lx.Kinds(words)
	}
}

func BenchmarkNounsDecode(b *testing.B) {
	for b.Loop() {
		if _, err := Read(bytes.NewReader(embedded)); err != nil {
			b.Fatal(err)
		}
	}
}
