package extract

import (
	"context"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// TestHeuristic_EntityMentions checks that the heuristic counts how often
// a fact names each entity (retain ranks them by it for co-occurrence),
// the speaker once for speaking and again for each time it is named.
func TestHeuristic_EntityMentions(t *testing.T) {
	h := NewHeuristic()
	res, err := h.Extract(context.Background(), Input{Messages: []memory.Message{{Speaker: "Caroline",
		Text: "I told Zorvan about Lisbon. Then Zorvan asked about Lisbon again, and Zorvan laughed. Caroline, he said, Porto is nice."}}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, e := range res.Facts[0].Entities {
		got[e.Name] = e.Mentions
	}
	for name, want := range map[string]int{"Caroline": 2, "Zorvan": 3, "Lisbon": 2, "Porto": 1} {
		if got[name] != want {
			t.Errorf("%s: %d mentions, want %d (all: %v)", name, got[name], want, got)
		}
	}
}
