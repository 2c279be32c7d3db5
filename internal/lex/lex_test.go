package lex

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kljensen/snowball/english"
)

func TestWords(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"Empty", "", []string{}},
		{"Simple", "Hey Mel! Good to see you.", []string{"hey", "mel", "good", "to", "see", "you"}},
		{"Possessive", "Mel's dog", []string{"mels", "dog"}},
		{"Contraction", "I don't know", []string{"i", "dont", "know"}},
		{"CurlyApostrophe", "I don’t, Mel’s", []string{"i", "dont", "mels"}},
		{"LeadingTrailingApostrophe", "'quoted' students' rights", []string{"quoted", "students", "rights"}},
		{"DoubleApostrophe", "a''b", []string{"a", "b"}},
		{"Digits", "In 2023, 3.5 km", []string{"in", "2023", "3", "5", "km"}},
		{"Hyphen", "well-known LGBTQ+ group", []string{"well", "known", "lgbtq", "group"}},
		{"Unicode", "Café ÜBER naïve İstanbul", []string{"café", "über", "naïve", "istanbul"}},
		{"UnicodeApostrophe", "CAFÉ'S", []string{"cafés"}},
		{"InvalidUTF8", "ab\xffcd \xc3 ef", []string{"ab", "cd", "ef"}},
		{"InvalidAfterApostrophe", "ab'\xff", []string{"ab"}},
		{"ReplacementChar", "a\uFFFDb", []string{"a", "b"}},
		{"Emoji", "love it 😍!!", []string{"love", "it"}},
		{"Han", "我住在北京。", []string{"我住", "住在", "在北", "北京"}},
		{"Japanese", "東京都に行った", []string{"東京", "京都", "都に", "に行", "行っ", "った"}},
		{"Katakana", "コーヒーが好き", []string{"コー", "ーヒ", "ヒー", "ーが", "が好", "好き"}},
		{"Hangul", "서울에 살아요", []string{"서울", "울에", "살아", "아요"}},
		{"CJKSingle", "京 and 都", []string{"京", "and", "都"}},
		{"CJKBesideLatin", "Tom去了Kyoto京都", []string{"tom", "去了", "kyoto", "京都"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Words(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Words(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestStem(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"painting", "paint"},
		{"painted", "paint"},
		{"groups", "group"},
		{"attended", "attend"},
		{"running", "run"},
		{"go", "go"},
		{"é", "é"},
		{"ab", "ab"},
		{"über", "über"},
		{"generously", "generous"},
	}
	for _, tt := range tests {
		if got := Stem(tt.in); got != tt.want {
			t.Errorf("Stem(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStem_Concurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				w := fmt.Sprintf("painting%d", (i*7+g)%500)
				if got, want := Stem(w), w; got != want {
					t.Errorf("Stem(%q) = %q, want %q", w, got, want)
					return
				}
				if got, want := Stem("groups"), "group"; got != want {
					t.Errorf("Stem(groups) = %q, want %q", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestStemCache_Bounded(t *testing.T) {
	c := newStemCache(stemShards * 4)
	for i := range 10000 {
		w := fmt.Sprintf("walking%d", i)
		if got, want := c.get(w), w; got != want {
			t.Fatalf("get(%q) = %q, want %q", w, got, want)
		}
	}
	for i := range c.shards {
		if got := len(c.shards[i].m); got > 4 {
			t.Errorf("shard %d holds %d entries, want <= 4", i, got)
		}
	}
	if got, want := c.get("walking"), "walk"; got != want {
		t.Errorf("get(walking) = %q, want %q", got, want)
	}
}

func TestIsStopword(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"the", true},
		{"dont", true},
		{"im", true},
		{"hey", true},
		{"yeah", true},
		{"x", true},
		{"é", true},
		{"7", true},
		{"", true},
		{"painting", false},
		{"like", false},
		{"may", false},
		{"lgbtq", false},
		{"id", false},
	}
	for _, tt := range tests {
		if got := IsStopword(tt.in); got != tt.want {
			t.Errorf("IsStopword(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestStopwords(t *testing.T) {
	got := Stopwords()
	if n := len(got); n < 127 || n > 180 {
		t.Errorf("len(Stopwords()) = %d, want 127..180", n)
	}
	// Every STOP127 word of the benchmark protocol is in the list.
	for _, w := range strings.Fields(stopwordList)[:127] {
		if !slices.Contains(got, w) {
			t.Errorf("Stopwords() lacks %q", w)
		}
	}
}

func TestTerms(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"Empty", "", []string{}},
		{"AllStopwords", "Hey, I don't know what to do!", []string{"know"}},
		{"Sentence", "Caroline went to the LGBTQ support groups yesterday", []string{"carolin", "went", "lgbtq", "support", "group", "yesterday"}},
		{"Duplicates", "paint, painting, painted", []string{"paint", "paint", "paint"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Terms(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Terms(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzWords(f *testing.F) {
	for _, s := range []string{"Mel's", "don’t", "a\xffb", "İ", "'", "’’x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, w := range Words(s) {
			if w == "" {
				t.Fatalf("Words(%q) has an empty word", s)
			}
		}
		for _, w := range Terms(s) {
			if w == "" {
				t.Fatalf("Terms(%q) has an empty term", s)
			}
		}
	})
}

func ExampleTerms() {
	fmt.Println(Terms("Yeah, I painted that lake sunrise last year!"))
	// Output: [paint lake sunris last year]
}

var benchText = "Yeah, I painted that lake sunrise last year! It's special to me. " +
	"I'm keen on counseling or working in mental health - I'd love to support those with similar issues."

func BenchmarkWords(b *testing.B) {
	n := len(Words(benchText))
	b.SetBytes(int64(len(benchText)))
	for b.Loop() {
		Words(benchText)
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "words/s")
}

func BenchmarkWordsStem(b *testing.B) {
	n := len(Words(benchText))
	for b.Loop() {
		for _, w := range Words(benchText) {
			Stem(w)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "words/s")
}

func BenchmarkTerms(b *testing.B) {
	n := len(Words(benchText))
	for b.Loop() {
		Terms(benchText)
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "words/s")
}

func BenchmarkStem_Uncached(b *testing.B) {
	words := Words(benchText)
	for b.Loop() {
		for _, w := range words {
			if len(w) >= 3 {
				english.Stem(w, false)
			}
		}
	}
	b.ReportMetric(float64(len(words)*b.N)/b.Elapsed().Seconds(), "words/s")
}

func BenchmarkStem_Parallel(b *testing.B) {
	words := Words(benchText)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			for _, w := range words {
				Stem(w)
			}
		}
	})
}

// TestTerms_PlainWord: the fast path for one lower-case word gives what
// the general path gives.
func TestTerms_PlainWord(t *testing.T) {
	for _, w := range []string{"painting", "the", "a", "x", "karate", "2023", "dying", "runs", "abc123", "ok"} {
		var want []string
		for _, v := range Words(w) {
			if !IsStopword(v) {
				want = append(want, Stem(v))
			}
		}
		got := Terms(w)
		if len(got) != len(want) || len(got) > 0 && got[0] != want[0] {
			t.Errorf("Terms(%q) = %q, want %q", w, got, want)
		}
	}
}

// TestAppendTerms: AppendTerms appends what Terms returns, plain word or
// not, and leaves what dst held.
func TestAppendTerms(t *testing.T) {
	for _, s := range []string{"painting", "the", "", "Melanie's kids ran", "東京都", "dying x 5"} {
		got := AppendTerms([]string{"keep"}, s)
		want := append([]string{"keep"}, Terms(s)...)
		if !slices.Equal(got, want) {
			t.Errorf("AppendTerms(%q) = %q, want %q", s, got, want)
		}
	}
	buf := make([]string, 0, 4)
	if n := testing.AllocsPerRun(100, func() { buf = AppendTerms(buf[:0], "karate") }); n != 0 {
		t.Errorf("AppendTerms of a plain word allocates %v times", n)
	}
}
