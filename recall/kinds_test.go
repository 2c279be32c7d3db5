package recall

import (
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/internal/wordnet"
)

// TestKindVocab checks that kind lists stemmed through the vocabulary
// made in the background give the stems that stemming each word gives.
func TestKindVocab(t *testing.T) {
	queries := [][]string{{"what", "events"}, {"what", "causes"}, {"which", "states"}, {"what", "martial", "arts"}, {"how", "many", "animals"}}
	stemsOf := func() [][]string {
		stemmedKinds = stemCache{}
		var out [][]string
		for _, q := range queries {
			out = append(out, kindStems(wordnet.QueryKinds(q), nil))
		}
		return out
	}
	kindVocab.stems.Store(&map[string]string{})
	before := stemsOf()
	buildKindVocab()
	if len(*kindVocab.stems.Load()) < 50_000 {
		t.Fatalf("the vocabulary holds %d words", len(*kindVocab.stems.Load()))
	}
	after := stemsOf()
	for i := range queries {
		if len(before[i]) == 0 || !slices.Equal(before[i], after[i]) {
			t.Errorf("%v: %d stems by stemming, %d through the vocabulary, or they differ", queries[i], len(before[i]), len(after[i]))
		}
	}
}
