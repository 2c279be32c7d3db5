package recall

import (
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

func TestInContext(t *testing.T) {
	// d1: a b c d e (one turn each); d2: x y.
	facts := map[string]*memory.Fact{}
	for _, f := range []struct{ id, doc, speaker string }{
		{"a", "d1", "Mel"}, {"b", "d1", "Caroline"}, {"c", "d1", "Mel"}, {"d", "d1", "Caroline"}, {"e", "d1", "Mel"},
		{"x", "d2", "Mel"}, {"y", "d2", "Caroline"},
	} {
		facts[f.id] = &memory.Fact{ID: f.id, DocumentID: f.doc, Speaker: f.speaker}
	}
	windows := map[string][]string{
		"c": {"a", "b", "c", "d", "e"},
		"x": {"x", "y"},
	}
	hits := []memory.Hit{{ID: "c", Score: 4}, {ID: "x", Score: 2}}
	sh := contextShares{document: 0.5, neighbour: 0.5, decay: 0.5}
	tests := []struct {
		name  string
		sh    contextShares
		names map[string]bool
		want  map[string]float64
	}{
		{"HitsOnly", contextShares{}, nil, map[string]float64{"c": 1, "x": 0.5, "a": 0, "b": 0, "d": 0, "e": 0, "y": 0}},
		{"Shares", sh, nil, map[string]float64{
			"c": 1 + 0.5*1, "x": 0.5 + 0.5*0.5,
			"b": 0.5*1 + 0.5*1, "d": 0.5*1 + 0.5*1, // adjacent to c
			"a": 0.5*1 + 0.5*0.5, "e": 0.5*1 + 0.5*0.5, // two away: decayed
			"y": 0.5*0.5 + 0.5*0.5,
		}},
		{"Speaker", contextShares{speaker: 1}, map[string]bool{"caroline": true}, map[string]float64{
			"c": 1, "x": 0.5, "a": 0, "b": 0, "d": 0, "e": 0, "y": 0,
		}},
		{"SpeakerShares", contextShares{document: 0.5, neighbour: 0.5, decay: 0.5, speaker: 1}, map[string]bool{"mel": true}, map[string]float64{
			"c": 2 * 1.5, "x": 2 * 0.75, "b": 1, "d": 1, "a": 2 * 0.75, "e": 2 * 0.75, "y": 0.5,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := inContext(hits, windows, facts, tt.names, nil, tt.sh)
			scores := map[string]float64{}
			for i, h := range got {
				scores[h.ID] = h.Score
				if i > 0 && h.Score > got[i-1].Score {
					t.Errorf("not sorted at %d: %v", i, got)
				}
			}
			if !maps.EqualFunc(scores, tt.want, func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }) {
				t.Errorf("scores = %v, want %v", scores, tt.want)
			}
		})
	}
	t.Run("DocumentScores", func(t *testing.T) {
		// The documents' own scores replace their best hits': d2 scored
		// as one text outranks d1 here, and a document without a score
		// passes nothing.
		docs := map[string]float64{"d2": 1, "d1": 0.2}
		got := inContext(hits, windows, facts, nil, docs, contextShares{document: 0.5})
		want := map[string]float64{"c": 1 + 0.1, "x": 0.5 + 0.5, "a": 0.1, "b": 0.1, "d": 0.1, "e": 0.1, "y": 0.5}
		scores := map[string]float64{}
		for _, h := range got {
			scores[h.ID] = h.Score
		}
		if !maps.EqualFunc(scores, want, func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }) {
			t.Errorf("scores = %v, want %v", scores, want)
		}
		got = inContext(hits, windows, facts, nil, map[string]float64{}, contextShares{document: 0.5})
		for _, h := range got {
			if h.ID == "y" && h.Score != 0 {
				t.Errorf("y = %g, want 0 with no document scores", h.Score)
			}
		}
	})
	t.Run("NoNeighbourAboveItsHit", func(t *testing.T) {
		got := inContext(hits, windows, facts, nil, nil, sh)
		if got[0].ID != "c" {
			t.Errorf("top = %s, want the hit c: %v", got[0].ID, got)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		if got := inContext(nil, windows, facts, nil, nil, sh); len(got) != 0 {
			t.Errorf("inContext(no hits) = %v", got)
		}
		if got := inContext(hits, nil, map[string]*memory.Fact{}, nil, nil, sh); len(got) != 0 {
			t.Errorf("inContext(no facts) = %v, want none: a hit the filter dropped is no candidate", got)
		}
	})
}

func TestSpeakerNames(t *testing.T) {
	tests := []struct {
		query string
		want  []string // must be among the names
		not   []string
	}{
		{"What did Caroline research?", []string{"caroline"}, []string{"carolines"}},
		{"What do Melanie's kids like?", []string{"melanie", "melanie kids"}, []string{"melanies"}},
		{"What do Melanie’s kids like?", []string{"melanie"}, nil},
		{"Did Jon and Gina both dance?", []string{"jon", "gina"}, []string{"and"}},
		{"Where does Mary Ann live?", []string{"mary ann", "mary", "ann"}, nil},
		{"the kids' toys", []string{"kids"}, nil},
		// The asker's "I", "me" and "my" name the user of a user ↔
		// assistant conversation.
		{"When does my first sprint end?", []string{UserSpeaker}, nil},
		{"How long did I say the project takes?", []string{UserSpeaker}, nil},
		{"What I'm planning", []string{UserSpeaker}, nil},
		{"What did Caroline tell Melanie?", nil, []string{UserSpeaker}},
		{"What did the user say about Python?", []string{UserSpeaker}, nil},
		{"Was Maya ill? What is the order id?", nil, []string{UserSpeaker}},
	}
	for _, tt := range tests {
		got := speakerNames(tt.query)
		for _, w := range tt.want {
			if !got[w] {
				t.Errorf("speakerNames(%q) lacks %q: %v", tt.query, w, slices.Sorted(maps.Keys(got)))
			}
		}
		for _, w := range tt.not {
			if got[w] {
				t.Errorf("speakerNames(%q) holds %q", tt.query, w)
			}
		}
	}
}

func TestFuse_ByScore(t *testing.T) {
	ctx := ranking{name: StrategyContext, weight: 1, byScore: true, hits: []memory.Hit{{ID: "a", Score: 3}, {ID: "b", Score: 1.5}, {ID: "c", Score: 0}}}
	got := fuse([]ranking{ctx}, DefaultRRFK)
	want := map[string]float64{"a": 1 / (DefaultRRFK + 1.0), "b": 0.5 / (DefaultRRFK + 1.0), "c": 0}
	for _, c := range got {
		if math.Abs(c.score-want[c.id]) > 1e-15 {
			t.Errorf("%s: score %g, want %g", c.id, c.score, want[c.id])
		}
	}
	if ids := candidateIDs(got); !slices.Equal(ids, []string{"a", "b", "c"}) {
		t.Errorf("order = %q", ids)
	}
}

func TestTheUser(t *testing.T) {
	facts := func(speakers ...string) map[string]*memory.Fact {
		out := map[string]*memory.Fact{}
		for i, s := range speakers {
			out[string(rune('a'+i))] = &memory.Fact{Speaker: s}
		}
		return out
	}
	for _, c := range []struct {
		name  string
		query string
		facts map[string]*memory.Fact
		want  string // named after theUser; "" for no one new
	}{
		{"named user", "my sprint", facts("Maya", "Assistant", "Maya"), "maya"},
		{"third person", "the sprint", facts("Maya", "assistant"), ""},
		{"a user called user", "my sprint", facts("user", "assistant", "Maya"), ""},
		{"two people and an assistant", "my sprint", facts("Maya", "assistant", "Tom"), ""},
		{"no assistant", "my sprint", facts("Maya", "Tom"), ""},
		{"only the assistant", "my sprint", facts("assistant"), ""},
	} {
		names := speakerNames(c.query)
		before := len(names)
		got := theUser(names, c.facts)
		switch {
		case c.want == "" && len(got) != before:
			t.Errorf("%s: named %v", c.name, got)
		case c.want != "" && !got[c.want]:
			t.Errorf("%s: %v lacks %q", c.name, got, c.want)
		}
	}
}
