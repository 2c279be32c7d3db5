package reflection_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/provider/openai"
	"github.com/mnemo-ai/mnemo/reflection"
)

// fakeMemory is a Memory over a few facts that records the queries it
// was asked.
type fakeMemory struct {
	facts   map[string]*memory.Fact
	chunks  []*memory.Chunk
	queries []memory.Query
	err     error
}

func (m *fakeMemory) Recall(_ context.Context, q memory.Query) (*memory.Recollection, error) {
	m.queries = append(m.queries, q)
	if m.err != nil {
		return nil, m.err
	}
	rec := &memory.Recollection{}
	for _, id := range []string{"f1", "f2", "f3"} {
		if f := m.facts[id]; f != nil && (q.Filter.AsOf.IsZero() || memory.KnownAt(f, q.Filter.AsOf)) {
			rec.Results = append(rec.Results, memory.Result{Fact: f})
		}
	}
	rec.Observations = []memory.ObservationResult{{Observation: &memory.Observation{ID: "o1", Text: "Ana likes hot drinks", Kind: memory.ObservationPattern, SourceFactIDs: []string{"f1"}}}}
	return rec, nil
}

func (m *fakeMemory) About(_ context.Context, bank, name string, limit int) (*memory.About, error) {
	if name != "Ana" {
		return nil, memory.Errorf(memory.ENOTFOUND, "no entity %q", name)
	}
	return &memory.About{Entity: &memory.Entity{Name: "Ana", Type: "person"}, Facts: []*memory.Fact{m.facts["f1"], m.facts["f3"]},
		Relations: []memory.AboutRelation{{Relation: &memory.Relation{Predicate: "works_at", CreatedAt: t0}, SubjectName: "Ana", ObjectName: "Acme", Current: true}}}, nil
}

func (m *fakeMemory) StandingAnswers(context.Context, string) ([]*memory.StandingQuestion, error) {
	return []*memory.StandingQuestion{{ID: "sq_1", Question: "What does Ana drink?", Answer: "Green tea.", MemoryIDs: []string{"f1"}, AnsweredAt: t0}}, nil
}

func (m *fakeMemory) FactSource(_ context.Context, bank, id string) (*memory.Fact, []*memory.Chunk, error) {
	f := m.facts[id]
	if f == nil {
		return nil, nil, memory.Errorf(memory.ENOTFOUND, "no fact %s", id)
	}
	return f, m.chunks, nil
}

var t0 = time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)

func newMemory() *fakeMemory {
	return &fakeMemory{
		facts: map[string]*memory.Fact{
			"f1": {ID: "f1", Text: "Ana drinks green tea", Status: memory.StatusActive, CreatedAt: t0, ChunkID: "c1"},
			"f2": {ID: "f2", Text: "Ana drank coffee", Status: memory.StatusSuperseded, CreatedAt: t0.Add(-time.Hour)},
			"f3": {ID: "f3", Text: "Ana switched to matcha", Status: memory.StatusActive, CreatedAt: t0.Add(48 * time.Hour)},
		},
		chunks: []*memory.Chunk{
			{ID: "c0", Index: 0, Text: "Morning. " + strings.Repeat("Small talk. ", 10)},
			{ID: "c1", Index: 1, Text: "Ana: I drink green tea, sencha from Shizuoka."},
			{ID: "c2", Index: 2, Text: "Bye."},
		},
	}
}

// script starts a scripted server whose reflect model plays calls in
// order, then answers with answer; it returns the loop over mem.
func script(t *testing.T, mem reflection.Memory, answer llmtest.Reply, calls ...memory.ToolCall) (*reflection.Loop, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.On(llmtest.Rule{Respond: func(r llmtest.Request) llmtest.Reply {
		n := 0
		for _, m := range r.Messages {
			if m.Role == "tool" {
				n++
			}
		}
		if n < len(calls) {
			return llmtest.Reply{ToolCalls: []memory.ToolCall{calls[n]}, Usage: memory.Usage{InputTokens: 50, OutputTokens: 5}}
		}
		return answer
	}})
	g := provider.NewGuard()
	g.Backoff, g.MaxBackoff = time.Millisecond, time.Millisecond
	llm := g.LLM(openai.New(openai.Config{BaseURL: srv.URL(), Model: "scripted"}))
	return &reflection.Loop{LLM: llm, Memory: mem, Now: func() time.Time { return t0.Add(72 * time.Hour) }}, srv
}

func tc(name string, args any) memory.ToolCall {
	b, _ := json.Marshal(args)
	return memory.ToolCall{Name: name, Arguments: b}
}

// The loop's as-of bounds every recall: a later as_of the model asks for
// is brought back to the question's, an earlier one kept; the recall's
// reference time follows; about and expand leave out what the bank
// learned after it.
func TestLoop_AsOf(t *testing.T) {
	mem := newMemory()
	asOf := t0.Add(time.Hour)
	loop, srv := script(t, mem, llmtest.Reply{Content: "Green tea [f1]."},
		tc("recall", map[string]any{"query": "Ana drink"}),
		tc("recall", map[string]any{"query": "Ana drink", "as_of": "2030-01-01"}),
		tc("recall", map[string]any{"query": "Ana drink", "as_of": "2024-02-01"}),
		tc("about", map[string]any{"name": "Ana"}),
		tc("expand", map[string]any{"id": "f3"}),
	)
	res, err := loop.Run(t.Context(), "b", reflection.Persona{}, reflection.Request{Question: "What does Ana drink?", AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Time{asOf, asOf, time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)}
	if len(mem.queries) != 3 {
		t.Fatalf("%d recalls, want 3", len(mem.queries))
	}
	for i, q := range mem.queries {
		if !q.Filter.AsOf.Equal(want[i]) || !q.Now.Equal(want[i]) || q.BankID != "b" || q.Limit != reflection.DefaultRecallLimit {
			t.Errorf("recall %d: as of %v, now %v, bank %q, limit %d; want as of and now %v", i, q.Filter.AsOf, q.Now, q.BankID, q.Limit, want[i])
		}
	}
	tools := toolContents(srv.ChatRequests()[len(srv.ChatRequests())-1])
	if strings.Contains(tools[3], "matcha") || !strings.Contains(tools[3], "green tea") || !strings.Contains(tools[3], "works_at Acme (current)") {
		t.Errorf("about as of the question:\n%s", tools[3])
	}
	if res.Trace[4].Error == "" || !strings.HasPrefix(tools[4], "error: ") {
		t.Errorf("expand of a fact learned after the as-of: %+v, %q", res.Trace[4], tools[4])
	}
	if !strings.Contains(srv.ChatRequests()[0].System, "Answer as of Friday, 1 March 2024") {
		t.Errorf("system prompt is not dated as of the question:\n%s", srv.ChatRequests()[0].System)
	}
	if got := res.MemoryIDs; len(got) != 1 || got[0] != "f1" {
		t.Errorf("memory ids %v, want the cited f1", got)
	}
}

func toolContents(r llmtest.Request) []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "tool" {
			out = append(out, m.Content)
		}
	}
	return out
}

// What each tool shows: recall the observations then the facts, marked
// when superseded; search_observations only the observations with their
// sources; expand the chunk and the document around it.
func TestLoop_ToolText(t *testing.T) {
	mem := newMemory()
	loop, srv := script(t, mem, llmtest.Reply{Content: "Done."},
		tc("recall", map[string]any{"query": "Ana", "kinds": []string{"world"}, "categories": []string{"preference"}, "tags": []string{"x"}, "from": "2024-01-01", "to": "2024-12-31T00:00:00Z", "limit": 5}),
		tc("search_observations", map[string]any{"query": "Ana"}),
		tc("expand", map[string]any{"id": "f1"}),
	)
	res, err := loop.Run(t.Context(), "b", reflection.Persona{}, reflection.Request{Question: "Tell me about Ana"})
	if err != nil {
		t.Fatal(err)
	}
	q := mem.queries[0]
	if q.Limit != 5 || len(q.Filter.Kinds) != 1 || q.Filter.Kinds[0] != memory.KindWorld || q.Filter.Categories[0] != "preference" || q.Filter.Tags[0] != "x" ||
		!q.Filter.From.Equal(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)) || !q.Filter.To.Equal(time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC)) || !q.Filter.AsOf.IsZero() {
		t.Errorf("recall query %+v", q)
	}
	tools := toolContents(srv.ChatRequests()[3])
	if !strings.HasPrefix(tools[0], "Observations:\n[o1] (pattern) Ana likes hot drinks\n") || !strings.Contains(tools[0], "\n[f2] [2024-03-01] Ana drank coffee (superseded)\n") {
		t.Errorf("recall shows:\n%s", tools[0])
	}
	if strings.Contains(tools[1], "[f1] Ana drinks") || !strings.Contains(tools[1], "sources: f1") {
		t.Errorf("search_observations shows:\n%s", tools[1])
	}
	if !strings.Contains(tools[2], "Source chunk:\nAna: I drink green tea, sencha from Shizuoka.") || !strings.Contains(tools[2], "Document (chunks 1-3 of 3)") {
		t.Errorf("expand shows:\n%s", tools[2])
	}
	if got := res.Trace[0].MemoryIDs; strings.Join(got, ",") != "o1,f1,f2,f3" {
		t.Errorf("recall's memory ids %v", got)
	}
	if got := res.Trace[1].MemoryIDs; strings.Join(got, ",") != "o1" {
		t.Errorf("search_observations' memory ids %v", got)
	}
}

// Memory that is down ends the run with its error; the model's own
// mistakes do not.
func TestLoop_MemoryDown(t *testing.T) {
	mem := newMemory()
	mem.err = memory.Errorf(memory.EUNAVAILABLE, "database is locked")
	loop, _ := script(t, mem, llmtest.Reply{Content: "Done."}, tc("recall", map[string]any{"query": "Ana"}))
	res, err := loop.Run(t.Context(), "b", reflection.Persona{}, reflection.Request{Question: "What does Ana drink?"})
	if memory.ErrorCode(err) != memory.EUNAVAILABLE || !strings.Contains(err.Error(), "database is locked") || len(res.Trace) != 1 || res.Trace[0].Error == "" {
		t.Errorf("Run = %+v, %v; want unavailable with the failed step", res, err)
	}
}

// The system prompt: one sentence per disposition trait set, at its
// level; the mission and background; nothing for unset traits.
func TestSystemPrompt(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	base := reflection.SystemPrompt(reflection.Persona{}, now, time.Time{})
	if !strings.Contains(base, "Today is Wednesday, 1 May 2024.") || strings.Contains(base, "disposition") {
		t.Errorf("plain prompt:\n%s", base)
	}
	seen := map[string]bool{}
	for level := 1; level <= 5; level++ {
		p := reflection.SystemPrompt(reflection.Persona{Skepticism: level, Literalism: level, Empathy: level}, now, time.Time{})
		for _, trait := range []string{"Skepticism", "Literalism", "Empathy"} {
			i := strings.Index(p, "- "+trait+" ")
			if i < 0 || !strings.HasPrefix(p[i:], "- "+trait+" "+string(rune('0'+level))+"/5: ") {
				t.Fatalf("level %d: no %s line:\n%s", level, trait, p)
			}
			line := p[i : i+strings.Index(p[i:]+"\n", "\n")]
			if seen[line] {
				t.Errorf("%q twice", line)
			}
			seen[line] = true
		}
	}
	p := reflection.SystemPrompt(reflection.Persona{Empathy: 3, Mission: "Keep Ana's orders right.", Background: "A café in Lyon."}, now, time.Time{})
	if !strings.Contains(p, "Keep Ana's orders right.") || !strings.Contains(p, "A café in Lyon.") || strings.Contains(p, "Skepticism") || !strings.Contains(p, "Empathy 3/5") {
		t.Errorf("mission prompt:\n%s", p)
	}
}

// The standing_answers tool lists the answers with their evidence, whose
// ids count as shown; asked as of a past time it refuses (the answers
// are today's).
func TestLoop_StandingTool(t *testing.T) {
	loop, srv := script(t, newMemory(), llmtest.Reply{Content: "Green tea [f1]."}, tc("standing_answers", map[string]any{}))
	res, err := loop.Run(t.Context(), "b", reflection.Persona{}, reflection.Request{Question: "What does Ana drink?"})
	if err != nil {
		t.Fatal(err)
	}
	got := toolContents(srv.ChatRequests()[1])
	if len(got) != 1 || got[0] != "Q: What does Ana drink?\nA: Green tea.\nrests on: f1\n" || len(res.MemoryIDs) != 1 || res.MemoryIDs[0] != "f1" {
		t.Errorf("standing_answers showed %q; memory ids %v", got, res.MemoryIDs)
	}
	loop, _ = script(t, newMemory(), llmtest.Reply{Content: "Not known."}, tc("standing_answers", map[string]any{}))
	res, err = loop.Run(t.Context(), "b", reflection.Persona{}, reflection.Request{Question: "What does Ana drink?", AsOf: t0})
	if err != nil || res.Trace[0].Error == "" {
		t.Errorf("as of a past time: %+v, %v; want the tool refused", res, err)
	}
}
