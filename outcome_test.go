package mnemo_test

import (
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
)

// TestEngine_Retain_Outcomes: each extracted fact's outcome says what
// resolve_and_store (seed 002) did with it: stored, skipped as a
// duplicate of an existing fact, or stored and superseding one.
func TestEngine_Retain_Outcomes(t *testing.T) {
	e := newLLMEnv(t)
	day := func(d int) time.Time { return time.Date(2024, 3, d, 10, 0, 0, 0, time.UTC) }
	redis := "Alice decided to use Redis for caching"
	ents := [][3]any{{"Alice", "person", 0.9}, {"Redis", "technology", 0.9}}
	e.srv.On(llmtest.Rule{Schema: "extraction", Contains: "go with Redis", Reply: llmtest.Reply{JSON: extraction(
		xfact{text: redis, category: "decision", speaker: "Alice", message: 1, entities: ents, relations: [][3]string{{"Alice", "uses", "Redis"}}},
	)}})
	e.srv.On(llmtest.Rule{Schema: "extraction", Contains: "Redis again", Reply: llmtest.Reply{JSON: extraction(
		xfact{text: redis, category: "decision", speaker: "Alice", message: 1, entities: ents},
		xfact{text: "Bob likes tea", category: "preference", speaker: "Alice", message: 1, entities: [][3]any{{"Bob", "person", 0.9}}},
	)}})
	e.srv.On(llmtest.Rule{Schema: "extraction", Contains: "Memcached", Reply: llmtest.Reply{JSON: extraction(
		xfact{text: "The team switched from Redis to Memcached", category: "decision", speaker: "Alice", message: 1,
			entities: [][3]any{{"Alice", "person", 0.9}, {"Memcached", "technology", 0.9}}, relations: [][3]string{{"Alice", "uses", "Memcached"}}},
	)}})

	first := e.retain("default", "Alice", "We'll go with Redis for caching.", day(1))
	redisFact := e.factByText("default", redis)
	if want := []memory.FactOutcome{{FactID: redisFact.ID, Text: redis, Action: memory.OutcomeStored}}; !slices.EqualFunc(first.Outcomes, want, sameOutcome) {
		t.Errorf("first retain: outcomes %+v, want %+v", first.Outcomes, want)
	}

	e.srv.On(llmtest.Rule{Schema: "conflicts", Contains: "NEW 0: " + redis, Reply: llmtest.Reply{JSON: decisions([3]any{0, "duplicate", redisFact.ID})}})
	second := e.retain("default", "Alice", "Redis again. Bob likes tea.", day(2))
	tea := e.factByText("default", "Bob likes tea")
	want := []memory.FactOutcome{
		{Text: redis, Action: memory.OutcomeSkipped, Of: []string{redisFact.ID}},
		{FactID: tea.ID, Text: "Bob likes tea", Action: memory.OutcomeStored},
	}
	if !slices.EqualFunc(second.Outcomes, want, sameOutcome) {
		t.Errorf("second retain: outcomes %+v, want %+v", second.Outcomes, want)
	}

	e.srv.On(llmtest.Rule{Schema: "conflicts", Contains: "Memcached", Reply: llmtest.Reply{JSON: decisions([3]any{0, "contradiction", redisFact.ID})}})
	third := e.retain("default", "Alice", "We moved to Memcached.", day(3))
	mc := e.factByText("default", "The team switched from Redis to Memcached")
	want = []memory.FactOutcome{{FactID: mc.ID, Text: mc.Text, Action: memory.OutcomeSuperseded, Of: []string{redisFact.ID}}}
	if !slices.EqualFunc(third.Outcomes, want, sameOutcome) {
		t.Errorf("third retain: outcomes %+v, want %+v", third.Outcomes, want)
	}
	if again := e.retain("default", "Alice", "We moved to Memcached.", day(3)); !again.Duplicate || again.Outcomes != nil {
		t.Errorf("the same item again: %+v, want a duplicate with no outcomes", again)
	}
}

func sameOutcome(a, b memory.FactOutcome) bool {
	return a.FactID == b.FactID && a.Text == b.Text && a.Action == b.Action && slices.Equal(a.Of, b.Of)
}
