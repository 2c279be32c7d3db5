package mnemo_test

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
)

// temporalCalls returns the temporal pass's requests the server saw.
func (e *llmEnv) temporalCalls() []llmtest.Request {
	var out []llmtest.Request
	for _, r := range e.srv.ChatRequests() {
		if r.Schema == "temporal_patterns" {
			out = append(out, r)
		}
	}
	return out
}

// say retains one message of speaker at at, extracted (scripted) as one
// fact about the person named who, and returns the fact.
func (e *llmEnv) sayAbout(bank, speaker, who, text string, at time.Time) *memory.Fact {
	e.t.Helper()
	e.srv.On(llmtest.Rule{Schema: "extraction", Contains: text, Reply: llmtest.Reply{JSON: extraction(xfact{
		text: text, category: "personal", speaker: speaker, message: 1, entities: [][3]any{{who, "person", 0.95}},
	})}})
	e.clock.set(at)
	e.retain(bank, speaker, text, at)
	return e.factByText(bank, text)
}

// TestEngine_Consolidate_Temporal is seed 000's temporal pass end to end,
// through the scripted server: Alice's four recent facts give one
// transition observation on the facts the model named; Bob, with two, is
// not asked; a second run with no new fact makes no call; a new fact and
// the same pattern again enrich the observation (history grows, no
// duplicate); a malformed answer counts Carol failed and writes nothing.
func TestEngine_Consolidate_Temporal(t *testing.T) {
	e := newLLMEnv(t)
	e.srv.On(llmtest.Rule{Schema: "conflicts", Reply: llmtest.Reply{JSON: decisions()}})
	now := time.Date(2024, 6, 1, 9, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	alice := []*memory.Fact{
		e.sayAbout("default", "Alice", "Alice", "Alice is the mobile app lead", now.Add(-20*day)),
		e.sayAbout("default", "Alice", "Alice", "Alice reviews backend pull requests now", now.Add(-15*day)),
		e.sayAbout("default", "Alice", "Alice", "Alice joined the backend rewrite", now.Add(-10*day)),
		e.sayAbout("default", "Alice", "Alice", "Alice handed the mobile app to Ben", now.Add(-5*day)),
	}
	e.sayAbout("default", "Bob", "Bob", "Bob ran 5 km", now.Add(-3*day))
	e.sayAbout("default", "Bob", "Bob", "Bob ran 10 km", now.Add(-2*day))
	ids := func(fs ...*memory.Fact) []any {
		out := []any{}
		for _, f := range fs {
			out = append(out, f.ID)
		}
		return out
	}
	const text = "Alice moved from leading the mobile app to the backend rewrite (May 2024)"
	transition := func(fs ...*memory.Fact) map[string]any {
		return map[string]any{"patterns": []any{map[string]any{"kind": "transition", "text": text, "source_fact_ids": append(ids(fs...), "f_made_up")}}}
	}
	e.srv.On(llmtest.Rule{Schema: "temporal_patterns", Contains: "ENTITY: Alice", Times: 1,
		Reply: llmtest.Reply{JSON: transition(alice[3], alice[0], alice[2])}})

	e.clock.set(now)
	r := e.consolidate("default", mnemo.PassTemporal)
	if r.Counts["entities"] != 1 || r.Counts["created"] != 1 || r.Counts["enriched"] != 0 || r.Counts["failed"] != 0 || r.LLMCalls != 1 {
		t.Errorf("first run: counts %v, %d LLM calls; want 1 entity, 1 created, 1 call", r.Counts, r.LLMCalls)
	}
	calls := e.temporalCalls()
	if len(calls) != 1 || !strings.Contains(calls[0].Messages[len(calls[0].Messages)-1].Content, "ENTITY: Alice") {
		t.Fatalf("temporal calls: %d, want one, about Alice (Bob has two facts)", len(calls))
	}
	prompt := calls[0].Messages[len(calls[0].Messages)-1].Content
	for i := 1; i < len(alice); i++ {
		if strings.Index(prompt, alice[i-1].ID) > strings.Index(prompt, alice[i].ID) {
			t.Errorf("prompt: fact %d before fact %d; want time order", i, i-1)
		}
	}
	if !strings.Contains(prompt, "occurred 2024-05-12") {
		t.Errorf("prompt %q: want the occurred times", prompt)
	}
	obs, err := e.eng.Observations(e.ctx, "default", 0)
	if err != nil || len(obs) != 1 {
		t.Fatalf("Observations: %d, %v; want 1", len(obs), err)
	}
	if o := obs[0]; o.Kind != memory.ObservationTransition || o.Text != text || o.EvidenceCount != 3 ||
		!slices.Equal(o.SourceFactIDs, []string{alice[0].ID, alice[2].ID, alice[3].ID}) {
		t.Errorf("observation: kind %s, text %q, sources %v, evidence %d; want a transition on facts 0, 2, 3 in time order",
			o.Kind, o.Text, o.SourceFactIDs, o.EvidenceCount)
	}

	e.clock.set(now.Add(time.Hour))
	if r := e.consolidate("default", mnemo.PassTemporal); r.LLMCalls != 0 || r.Counts["entities"] != 0 || len(e.temporalCalls()) != 1 {
		t.Errorf("second run, no new fact: counts %v, %d calls; want no call", r.Counts, r.LLMCalls)
	}

	fifth := e.sayAbout("default", "Alice", "Alice", "Alice gave her first backend design review", now.Add(-1*day))
	e.srv.On(llmtest.Rule{Schema: "temporal_patterns", Contains: "ENTITY: Alice", Reply: llmtest.Reply{JSON: transition(alice[0], alice[2], alice[3], fifth)}})
	later := now.Add(2 * time.Hour)
	e.clock.set(later)
	r = e.consolidate("default", mnemo.PassTemporal)
	if r.Counts["enriched"] != 1 || r.Counts["created"] != 0 || r.LLMCalls != 1 {
		t.Errorf("run after a new fact: counts %v, %d calls; want 1 enriched in 1 call", r.Counts, r.LLMCalls)
	}
	obs, _ = e.eng.Observations(e.ctx, "default", 0)
	if len(obs) != 1 {
		t.Fatalf("%d observations after the new fact, want still 1", len(obs))
	}
	if o := obs[0]; len(o.History) != 1 || o.History[0].Previous != text || !o.History[0].ChangedAt.Equal(later) || o.EvidenceCount != 4 ||
		!slices.Equal(o.SourceFactIDs, []string{alice[0].ID, alice[2].ID, alice[3].ID, fifth.ID}) {
		t.Errorf("enriched: history %+v, sources %v, evidence %d; want one entry, the new fact last, 4", o.History, o.SourceFactIDs, o.EvidenceCount)
	}

	// Carol's answer is not JSON: she is counted failed, nothing is
	// written, and the next run asks again.
	if _, err := e.eng.CreateBank(e.ctx, "carol"); err != nil {
		t.Fatal(err)
	}
	for i, s := range []string{"Carol sleeps 8 hours", "Carol sleeps 7 hours", "Carol sleeps 6 hours"} {
		e.sayAbout("carol", "Carol", "Carol", s, now.Add(-time.Duration(3-i)*day))
	}
	e.srv.On(llmtest.Rule{Schema: "temporal_patterns", Contains: "ENTITY: Carol", Reply: llmtest.Reply{Content: `{"patterns": [{"kind": "trend", "text": "Carol's sleep`}})
	e.clock.set(now)
	before := len(e.temporalCalls())
	for run := 1; run <= 2; run++ {
		r = e.consolidate("carol", mnemo.PassTemporal)
		if r.Counts["entities"] != 1 || r.Counts["failed"] != 1 || r.Counts["created"] != 0 {
			t.Errorf("Carol run %d: counts %v; want 1 entity failed", run, r.Counts)
		}
	}
	if len(e.temporalCalls()) <= before+1 {
		t.Errorf("Carol: %d calls over two runs; want her asked on both", len(e.temporalCalls())-before)
	}
	if obs, _ := e.eng.Observations(e.ctx, "carol", 0); len(obs) != 0 {
		t.Errorf("Carol: %d observations, want none", len(obs))
	}
}

// TestEngine_Consolidate_Importance: with an LLM the lifecycle first
// scores the importance of unscored facts, once, and the decay score it
// then computes reads it.
//
// Seed 002's decay score of a fact never accessed nor reinforced, 30
// days (720 h) after it was learned, scored 0.9:
//
//	recency = 2^(-720/72) = 2^-10 = 0.0009765625
//	score   = max(0.9·0.4, 0.0009765625) + min(ln 1/5, 0.3) + min(ln 1/5, 0.2)
//	        = 0.36
//
// With the extractor's 0.7 it would have been 0.28.
func TestEngine_Consolidate_Importance(t *testing.T) {
	e := newLLMEnv(t)
	learned := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	f := e.sayAbout("default", "Dana", "Dana", "Dana is allergic to penicillin", learned)
	if f.Importance != 0.7 {
		t.Fatalf("extracted importance %v, want the scripted 0.7", f.Importance)
	}
	e.srv.On(llmtest.Rule{Schema: "importance", Contains: f.ID, Reply: llmtest.Reply{JSON: map[string]any{
		"scores": []any{map[string]any{"fact": f.ID, "importance": 0.9}},
	}}})
	e.clock.set(learned.Add(30 * 24 * time.Hour))
	r := e.consolidate("default", mnemo.PassLifecycle)
	if r.Counts["importance_scored"] != 1 || r.Counts["importance_failed"] != 0 || r.LLMCalls != 1 {
		t.Errorf("lifecycle: counts %v, %d calls; want 1 scored in 1 call", r.Counts, r.LLMCalls)
	}
	got, err := mnemo.StoreOf(e.eng).Facts(e.ctx, "default", []string{f.ID})
	if err != nil || len(got) != 1 {
		t.Fatal(got, err)
	}
	if got[0].Importance != 0.9 || math.Abs(got[0].DecayScore-0.36) > 1e-9 {
		t.Errorf("fact: importance %v, decay %v; want 0.9 and 0.36", got[0].Importance, got[0].DecayScore)
	}
	calls := len(e.srv.ChatRequests())
	if r := e.consolidate("default", mnemo.PassLifecycle); r.Counts["importance_scored"] != 0 || r.LLMCalls != 0 || len(e.srv.ChatRequests()) != calls {
		t.Errorf("second lifecycle: counts %v, %d calls; want no call (scored once)", r.Counts, r.LLMCalls)
	}
}
