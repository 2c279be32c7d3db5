package consolidate

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// coffee are three facts about one habit, similar enough to group (the
// test checks they are), and one about something else.
var coffee = []string{
	"Alice drinks a flat white coffee every morning at the corner cafe before work",
	"Every morning before work Alice drinks a flat white coffee at the corner cafe",
	"Alice drinks a flat white coffee at the corner cafe every morning before her work",
}

func TestGroupFacts(t *testing.T) {
	s := &fakeSimilarStore{}
	for i, text := range coffee {
		f := s.put(t, string(rune('a'+i)), "Ann", text, 0, t0.Add(time.Duration(i)*time.Minute))
		f.Category, f.Importance, f.Confidence, f.Tags = memory.CategoryPreference, 0.2*float64(i+1), 0.9-0.1*float64(i), []string{"t" + f.ID}
	}
	s.put(t, "z", "Ann", "Quentin visited Perth in the winter to see the quokkas", 0, t0)
	for i := range coffee {
		for j := range i {
			if c := vecCosine(s.facts[i].Embedding, s.facts[j].Embedding); c < DefaultGroupCosine {
				t.Fatalf("cosine(coffee %d, %d) = %.3f: the test wants them above %.2f", i, j, c, DefaultGroupCosine)
			}
		}
	}
	const summary = "Alice has a flat white at the corner cafe every morning before work."
	fail := true
	llm := Script(func(req *memory.ChatRequest) (any, error) {
		if req.Schema == nil || req.Schema.Name != "group_summary" || req.Stage != StageGroup {
			return nil, errors.New("unexpected request")
		}
		if fail {
			return map[string]any{"summary": "  "}, nil
		}
		return map[string]any{"summary": summary}, nil
	})
	now := func() time.Time { return t0.Add(time.Hour) }
	opts := GroupOptions{LLM: llm, Embedder: testEmbedder, Now: now, PageSize: 2}
	// An empty summary: the group fails, nothing is written.
	res, err := GroupFacts(t.Context(), s, "b", opts)
	if err != nil {
		t.Fatal(err)
	}
	if *res != (GroupResult{Searched: res.Searched, Groups: 1, Failed: 1}) || len(s.groups) != 0 {
		t.Fatalf("empty summary: got %+v, %d groups written; want 1 group failed", res, len(s.groups))
	}
	fail = false
	res, err = GroupFacts(t.Context(), s, "b", opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Groups != 1 || res.Summarised != 1 || res.Deactivated != 3 || res.Failed != 0 || len(s.groups) != 1 {
		t.Fatalf("got %+v, %d groups written; want 1 group of 3 summarised", res, len(s.groups))
	}
	g := s.groups[0]
	members := slices.Clone(g.Members)
	slices.Sort(members)
	if !slices.Equal(members, []string{"a", "b", "c"}) || !g.At.Equal(now()) {
		t.Errorf("group members %v at %v, want a, b, c at %v", g.Members, g.At, now())
	}
	sum := g.Summary
	want, _ := testEmbedder.Embed(t.Context(), []string{"Ann: " + summary})
	if sum.Text != summary || sum.Speaker != "Ann" || sum.Kind != memory.KindWorld || sum.Category != memory.CategoryPreference ||
		math.Abs(sum.Importance-0.6) > 1e-9 || math.Abs(sum.Confidence-0.7) > 1e-9 || !sum.OccurredStart.IsZero() || !slices.Equal(sum.Tags, []string{"ta", "tb", "tc"}) ||
		!slices.Equal(sum.Embedding, want[0]) || !sum.CreatedAt.Equal(now()) || sum.ID == "" {
		t.Errorf("summary: got %+v; want the LLM's text by Ann, a preference of importance 0.6 and confidence 0.7, every tag, embedded", sum)
	}
	if !strings.Contains(llm.Requests()[1].Messages[0].Content, coffee[0]) {
		t.Errorf("the LLM was not shown the members: %q", llm.Requests()[1].Messages[0].Content)
	}
	// A second run finds the summary, not its members: nothing to group.
	again, err := GroupFacts(t.Context(), s, "b", opts)
	if err != nil || again.Groups != 0 || len(s.groups) != 1 {
		t.Errorf("second run: %+v, %v; want no group", again, err)
	}
}

// A group whose member changed before the write (ECONFLICT) fails alone;
// without an LLM or embedder the pass refuses to run.
func TestGroupFacts_Errors(t *testing.T) {
	s := &fakeSimilarStore{conflict: true}
	for i, text := range coffee {
		s.put(t, string(rune('a'+i)), "Ann", text, 0, t0)
	}
	llm := Script(func(*memory.ChatRequest) (any, error) { return map[string]any{"summary": "x"}, nil })
	res, err := GroupFacts(t.Context(), s, "b", GroupOptions{LLM: llm, Embedder: testEmbedder})
	if err != nil || res.Groups != 1 || res.Failed != 1 || res.Summarised != 0 {
		t.Errorf("conflict: %+v, %v; want 1 group failed", res, err)
	}
	if _, err := GroupFacts(t.Context(), s, "b", GroupOptions{Embedder: testEmbedder}); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("no LLM: %v, want EINVALID", err)
	}
}
