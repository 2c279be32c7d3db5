package extract_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/provider/openai"
)

func scripted(t *testing.T) (*llmtest.Server, memory.LLM) {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	return srv, openai.New(openai.Config{BaseURL: srv.URL(), Model: "scripted"})
}

func answerFact(text string, extra map[string]any) map[string]any {
	f := map[string]any{
		"text": text, "kind": "world", "category": "personal", "confidence": 0.9, "importance": 0.5,
		"sensitivity": "open", "speaker": "", "message": 0, "evidence": "", "occurred_start": "", "occurred_end": "",
		"entities": []any{}, "relations": []any{}, "causes": []any{},
	}
	for k, v := range extra {
		f[k] = v
	}
	return f
}

// TestLLM_Extract checks what the extractor makes of an answer: message
// numbers to speakers, ids and times; ISO and relative dates; predicates
// normalised; causal links renumbered past a gated fact; one spelling per
// name.
func TestLLM_Extract(t *testing.T) {
	srv, llm := scripted(t)
	t1 := time.Date(2024, 5, 8, 14, 0, 0, 0, time.UTC)
	t2 := t1.Add(time.Hour)
	srv.On(llmtest.Rule{Schema: "extraction", Reply: llmtest.Reply{JSON: map[string]any{"facts": []any{
		answerFact("Caroline went to a support group", map[string]any{"speaker": "Caroline", "message": 1, "occurred_start": "2024-05-07",
			"entities":  []any{map[string]any{"name": "caroline", "type": "person", "confidence": 0.7}, map[string]any{"name": "support group", "type": "event", "confidence": 0.8}},
			"relations": []any{map[string]any{"subject": "Caroline", "predicate": "Attends ", "object": "support group", "confidence": 0.9}},
			"causes":    []any{map[string]any{"fact": 2, "kind": "causes"}}}),
		answerFact("Something vague", map[string]any{"confidence": 0.2}),
		answerFact("Caroline feels hopeful", map[string]any{"speaker": "Caroline", "message": 2, "occurred_start": "last week",
			"entities": []any{map[string]any{"name": "Caroline", "type": "person", "confidence": 0.95}}}),
	}}}})
	x := extract.NewLLM(llm)
	res, err := x.Extract(t.Context(), extract.Input{Messages: []memory.Message{
		{ID: "D1:1", Speaker: "Caroline", Text: "I went to a LGBTQ support group yesterday.", Time: t1},
		{ID: "D1:2", Speaker: "Caroline", Text: "It made me so hopeful!", Time: t2},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Chunks) != 1 || !strings.Contains(res.Chunks[0], "Caroline: I went to a LGBTQ support group") {
		t.Errorf("chunks: %q", res.Chunks)
	}
	if len(res.Facts) != 2 {
		t.Fatalf("facts: %d, want 2 (one gated at 0.2)", len(res.Facts))
	}
	f0, f1 := res.Facts[0], res.Facts[1]
	if f0.SourceRef != "D1:1" || !f0.MentionedAt.Equal(t1) || f1.SourceRef != "D1:2" || !f1.MentionedAt.Equal(t2) {
		t.Errorf("provenance: %q %v, %q %v", f0.SourceRef, f0.MentionedAt, f1.SourceRef, f1.MentionedAt)
	}
	if want := time.Date(2024, 5, 7, 0, 0, 0, 0, time.UTC); !f0.OccurredStart.Equal(want) || !f0.OccurredEnd.Equal(want.AddDate(0, 0, 1)) {
		t.Errorf("occurred: %v–%v, want the day 2024-05-07", f0.OccurredStart, f0.OccurredEnd)
	}
	if f1.OccurredStart.IsZero() || !f1.OccurredStart.Before(t2) {
		t.Errorf("'last week' resolved to %v, want before %v", f1.OccurredStart, t2)
	}
	if len(f0.Relations) != 1 || f0.Relations[0].Predicate != "attends" {
		t.Errorf("relations: %+v, want predicate attends", f0.Relations)
	}
	if len(f0.Causes) != 1 || f0.Causes[0].Fact != 1 || f0.Causes[0].Kind != memory.LinkCauses {
		t.Errorf("causes: %+v, want fact 1 (renumbered past the gated one)", f0.Causes)
	}
	if got := f0.Entities[0]; got.Name != "Caroline" || got.Confidence != 0.95 {
		t.Errorf("entity: %+v, want the spelling given with the highest confidence", got)
	}
	if res.Facts[0].Kind != memory.KindWorld || res.Facts[0].Category != memory.CategoryPersonal {
		t.Errorf("kind/category: %s/%s", res.Facts[0].Kind, res.Facts[0].Category)
	}
}

// TestLLM_Extract_OneEntityPerName checks that a name the model gives
// several types is one entity: the mention given with the highest
// confidence, its spelling and type.
func TestLLM_Extract_OneEntityPerName(t *testing.T) {
	srv, llm := scripted(t)
	ent := func(name, typ string, conf float64) map[string]any {
		return map[string]any{"name": name, "type": typ, "confidence": conf}
	}
	srv.On(llmtest.Rule{Schema: "extraction", Reply: llmtest.Reply{JSON: map[string]any{"facts": []any{
		answerFact("Maya works at Google in Berlin", map[string]any{"message": 1,
			"entities": []any{ent("Google", "topic", 0.8), ent("google", "organization", 0.9), ent("Berlin", "place", 0.7), ent("berlin", "event", 0.7)}}),
		answerFact("Google opened an office", map[string]any{"message": 1,
			"entities": []any{ent("GOOGLE", "organization", 0.85), ent("Lisbon", "place", 0.9)}}),
	}}}})
	res, err := extract.NewLLM(llm).Extract(t.Context(), extract.Input{Messages: []memory.Message{{Speaker: "Maya", Text: "I work at Google in Berlin."}}, At: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, f := range res.Facts {
		var es []string
		for _, e := range f.Entities {
			es = append(es, fmt.Sprintf("%s:%s:%v", e.Type, e.Name, e.Confidence))
		}
		got = append(got, es)
	}
	want := [][]string{
		{"organization:google:0.9", "place:Berlin:0.7"},
		{"organization:google:0.9", "place:Lisbon:0.9"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entities = %q, want %q", got, want)
	}
}

// TestLLM_Extract_Chunks splits a long conversation into several calls.
func TestLLM_Extract_Chunks(t *testing.T) {
	srv, llm := scripted(t)
	srv.On(llmtest.Rule{Schema: "extraction", Reply: llmtest.Reply{JSON: map[string]any{"facts": []any{answerFact("A fact", map[string]any{"message": 1})}}}})
	x := extract.NewLLM(llm)
	x.ChunkBytes = 100
	var msgs []memory.Message
	for i := 0; i < 6; i++ {
		msgs = append(msgs, memory.Message{Speaker: "Bo", Text: strings.Repeat("word ", 10)})
	}
	res, err := x.Extract(t.Context(), extract.Input{Messages: msgs, At: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(srv.ChatRequests()); got != 3 || len(res.Chunks) != 3 || res.Facts[2].Chunk != 2 {
		t.Errorf("%d calls, %d chunks, last fact in chunk %d: want 3, 3, 2", got, len(res.Chunks), res.Facts[2].Chunk)
	}
}

// TestLLM_Extract_Nothing: an answer with no fact worth keeping is
// EINVALID, not an empty document.
func TestLLM_Extract_Nothing(t *testing.T) {
	srv, llm := scripted(t)
	srv.On(llmtest.Rule{Schema: "extraction", Reply: llmtest.Reply{JSON: map[string]any{"facts": []any{}}}})
	_, err := extract.NewLLM(llm).Extract(t.Context(), extract.Input{Text: "hi!", At: time.Now()})
	if memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("err %v, want EINVALID", err)
	}
}

// TestJudge_Classify maps decisions to their conflicts and falls back to
// new for unanswered ones and for ids that were not candidates.
func TestJudge_Classify(t *testing.T) {
	srv, llm := scripted(t)
	srv.On(llmtest.Rule{Schema: "conflicts", Reply: llmtest.Reply{JSON: map[string]any{"decisions": []any{
		map[string]any{"fact": 0, "action": "update", "existing": "f-old", "reason": "moved"},
		map[string]any{"fact": 1, "action": "duplicate", "existing": "f-not-a-candidate", "reason": "?"},
		map[string]any{"fact": 7, "action": "duplicate", "existing": "f-old", "reason": "out of range"},
	}}}})
	old := &memory.Fact{ID: "f-old", Text: "Ada lives in Lyon"}
	cs := []extract.Conflict{
		{Fact: &memory.Fact{ID: "n0", Text: "Ada lives in Porto"}, Candidates: []*memory.Fact{old}},
		{Fact: &memory.Fact{ID: "n1", Text: "Ada likes tea"}, Candidates: []*memory.Fact{old}},
		{Fact: &memory.Fact{ID: "n2", Text: "Ada runs"}, Candidates: []*memory.Fact{old}},
	}
	ds, err := extract.NewJudge(llm).Classify(t.Context(), cs)
	if err != nil {
		t.Fatal(err)
	}
	want := []extract.Action{extract.ActionUpdate, extract.ActionNew, extract.ActionNew}
	for i, d := range ds {
		if d.Action != want[i] {
			t.Errorf("decision %d: %s, want %s", i, d.Action, want[i])
		}
	}
	if ds[0].Existing != "f-old" {
		t.Errorf("decision 0 existing %q", ds[0].Existing)
	}
	body := srv.ChatRequests()[0].Messages
	if content := body[len(body)-1].Content; !strings.Contains(content, "NEW 0: Ada lives in Porto") || !strings.Contains(content, "EXISTING f-old: Ada lives in Lyon") {
		t.Errorf("prompt: %q", content)
	}
}

func TestPredicate(t *testing.T) {
	for in, want := range map[string]string{"Works At": "works_at", "works-at": "works_at", " LIKES ": "likes", "member of!": "member_of", "": ""} {
		if got := extract.Predicate(in); got != want {
			t.Errorf("Predicate(%q) = %q, want %q", in, got, want)
		}
	}
}
