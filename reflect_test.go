package mnemo_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/reflection"
)

// The reflect tests run the loop against llmtest's scripted server over
// real HTTP, through the real OpenAI client and Guard, on a real SQLite
// file: the scripted model reads the tool results it is sent and decides
// from them, as a model would.

// toolLine is one "[id] text" line of a tool result.
type toolLine struct{ id, text string }

var toolLineRE = regexp.MustCompile(`(?m)^\s*\[([^\]]+)\] (.*)$`)

// lines parses the memory lines of a tool result.
func lines(content string) []toolLine {
	var out []toolLine
	for _, m := range toolLineRE.FindAllStringSubmatch(content, -1) {
		out = append(out, toolLine{m[1], m[2]})
	}
	return out
}

// toolResults are the contents of the tool messages of a request, in
// order.
func toolResults(r llmtest.Request) []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "tool" {
			out = append(out, m.Content)
		}
	}
	return out
}

// call is a scripted tool call.
func call(name string, args any) llmtest.Reply {
	b, _ := json.Marshal(args)
	return llmtest.Reply{ToolCalls: []memory.ToolCall{{Name: name, Arguments: b}}, Usage: memory.Usage{InputTokens: 100, OutputTokens: 10}}
}

// isReflect matches the reflect loop's calls: the ones offering tools.
func isReflect(r llmtest.Request) bool { return len(r.Tools) > 0 }

// bank creates a bank.
func (e *llmEnv) bank(name string) {
	e.t.Helper()
	if _, err := e.eng.CreateBank(e.ctx, name); err != nil {
		e.t.Fatal(err)
	}
}

// retainScripted retains text in bank with a scripted extraction of
// facts (speaker, text) and no conflicts.
func (e *llmEnv) retainScripted(bank, speaker, text string, at time.Time, facts ...string) {
	e.t.Helper()
	var xs []xfact
	for _, f := range facts {
		xs = append(xs, xfact{text: f, category: "personal", speaker: speaker, message: 1})
	}
	e.srv.On(llmtest.Rule{Schema: "extraction", Contains: text, Times: 1, Reply: llmtest.Reply{JSON: extraction(xs...)}})
	e.retain(bank, speaker, text, at)
}

// TestEngine_Reflect_MultiStep is a question no single lookup answers:
// who Sam's manager is (a recall), where she moved (a second recall),
// and the city, which only the source text of the move says (an
// expand). The scripted model takes each step from what the previous
// tool showed it; the answer and its memory ids come out right.
func TestEngine_Reflect_MultiStep(t *testing.T) { eachStore(t, testReflectMultiStep) }

func testReflectMultiStep(t *testing.T, e *llmEnv) {
	e.srv.On(llmtest.Rule{Schema: "conflicts", Reply: llmtest.Reply{JSON: decisions()}})
	at := time.Date(2024, 4, 2, 10, 0, 0, 0, time.UTC)
	e.retainScripted("default", "Sam", "At work I report to Priya Natarajan, she runs the design team.", at,
		"Sam reports to Priya Natarajan")
	e.retainScripted("default", "Priya", "I moved last spring, my new flat is in Porto, right by the river.", at.Add(time.Hour),
		"Priya Natarajan moved to a new flat last spring")
	e.retainScripted("default", "Sam", "I had pancakes for breakfast today.", at.Add(2*time.Hour), "Sam had pancakes for breakfast")
	manager := e.factByText("default", "Sam reports to Priya Natarajan")
	moved := e.factByText("default", "Priya Natarajan moved to a new flat last spring")

	nameRE := regexp.MustCompile(`reports to ([A-Z]\w+ [A-Z]\w+)`)
	cityRE := regexp.MustCompile(`flat is in ([A-Z]\w+)`)
	e.srv.On(llmtest.Rule{Match: isReflect, Respond: func(r llmtest.Request) llmtest.Reply {
		res := toolResults(r)
		switch len(res) {
		case 0:
			return call("recall", map[string]any{"query": "Sam's manager"})
		case 1:
			for _, l := range lines(res[0]) {
				if m := nameRE.FindStringSubmatch(l.text); m != nil {
					return call("recall", map[string]any{"query": m[1] + " moved", "kinds": []string{"experience"}})
				}
			}
		case 2:
			for _, l := range lines(res[1]) {
				if strings.Contains(l.text, "moved") {
					return call("expand", map[string]any{"id": l.id})
				}
			}
		case 3:
			m := cityRE.FindStringSubmatch(res[2])
			mgr, mv := "", ""
			for _, l := range lines(res[0]) {
				if nameRE.MatchString(l.text) {
					mgr = l.id
				}
			}
			if f := regexp.MustCompile(`Fact: \[([^\]]+)\]`).FindStringSubmatch(res[2]); f != nil {
				mv = f[1]
			}
			if m != nil {
				return call("answer", map[string]any{"answer": "Sam's manager lives in " + m[1] + ".", "memory_ids": []string{mgr, mv, "f_made_up"}})
			}
		}
		return llmtest.Reply{Content: "I could not find it."}
	}})

	res, err := e.eng.Reflect(e.ctx, "", reflection.Request{Question: "In which city does Sam's manager live?"})
	if err != nil {
		t.Fatalf("Reflect: %v", err)
	}
	if res.Answer != "Sam's manager lives in Porto." {
		t.Errorf("answer %q, want the city the expanded source names", res.Answer)
	}
	var tools []string
	for _, s := range res.Trace {
		tools = append(tools, s.Tool)
		if s.Error != "" {
			t.Errorf("step %s failed: %s", s.Tool, s.Error)
		}
	}
	if want := []string{"recall", "recall", "expand", "answer"}; !slices.Equal(tools, want) {
		t.Errorf("trace %v, want %v", tools, want)
	}
	// The cited ids that a tool showed, in the order first met; the made
	// up one is dropped.
	var met []string
	for _, s := range res.Trace[:3] {
		for _, id := range s.MemoryIDs {
			if (id == manager.ID || id == moved.ID) && !slices.Contains(met, id) {
				met = append(met, id)
			}
		}
	}
	if len(met) != 2 || !slices.Equal(res.MemoryIDs, met) {
		t.Errorf("memory ids %v, want %v (manager %s, moved %s, in the order met)", res.MemoryIDs, met, manager.ID, moved.ID)
	}
	if res.Calls != 4 || res.InputTokens != 400 || res.OutputTokens != 40 {
		t.Errorf("calls %d, tokens %d+%d; want 4 calls of 100+10", res.Calls, res.InputTokens, res.OutputTokens)
	}
	reqs := reflectRequests(e)
	if len(reqs) != 4 {
		t.Fatalf("%d reflect requests, want 4", len(reqs))
	}
	// The second recall's filter reached recall: only experience facts.
	if !strings.Contains(reqs[2].Messages[len(reqs[2].Messages)-1].Content, moved.ID) {
		t.Errorf("second recall did not show the move fact")
	}
	// Every call but the last offers the five tools.
	if got := reqs[0].Tools; !slices.Equal(got, []string{"recall", "search_observations", "about", "expand", "standing_answers", "answer"}) {
		t.Errorf("tools offered %v", got)
	}
}

// reflectRequests are the recorded requests of the reflect loop.
func reflectRequests(e *llmEnv) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range e.srv.ChatRequests() {
		if isReflect(r) {
			out = append(out, r)
		}
	}
	return out
}

// TestEngine_Reflect_Disposition: the bank's disposition and mission
// change the system prompt the model gets, and only the prompt: the same
// question recalls the same memories under either disposition.
func TestEngine_Reflect_Disposition(t *testing.T) {
	e := newLLMEnv(t)
	e.srv.On(llmtest.Rule{Schema: "conflicts", Reply: llmtest.Reply{JSON: decisions()}})
	e.retainScripted("default", "Ana", "I only drink green tea in the morning.", time.Date(2024, 4, 2, 8, 0, 0, 0, time.UTC),
		"Ana drinks green tea in the morning")
	e.srv.On(llmtest.Rule{Match: isReflect, Respond: func(r llmtest.Request) llmtest.Reply {
		if res := toolResults(r); len(res) > 0 {
			return llmtest.Reply{Content: "Green tea."}
		}
		return call("recall", map[string]any{"query": "Ana tea"})
	}})
	ask := func(s memory.BankSettings) llmtest.Request {
		t.Helper()
		if _, err := e.eng.UpdateBank(e.ctx, "default", s); err != nil {
			t.Fatal(err)
		}
		before := len(reflectRequests(e))
		if _, err := e.eng.Reflect(e.ctx, "default", reflection.Request{Question: "What does Ana drink?"}); err != nil {
			t.Fatalf("Reflect: %v", err)
		}
		reqs := reflectRequests(e)[before:]
		if len(reqs) != 2 {
			t.Fatalf("%d calls, want 2", len(reqs))
		}
		return reqs[1]
	}
	mission := "Help Ana's barista remember her orders."
	sceptic := ask(memory.BankSettings{Skepticism: 5, Literalism: 4, Empathy: 1, Mission: mission})
	warm := ask(memory.BankSettings{Skepticism: 1, Empathy: 5})
	plain := ask(memory.BankSettings{})

	for _, c := range []struct {
		name          string
		system        string
		want, notWant []string
	}{
		{"sceptic", sceptic.System, []string{"Skepticism 5/5", "Literalism 4/5", "Empathy 1/5", mission}, []string{"Skepticism 1/5", "Empathy 5/5"}},
		{"warm", warm.System, []string{"Skepticism 1/5", "Empathy 5/5"}, []string{"Skepticism 5/5", "Literalism", mission}},
		{"plain", plain.System, nil, []string{"disposition", "Skepticism", "mission"}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.system, w) {
				t.Errorf("%s system prompt lacks %q:\n%s", c.name, w, c.system)
			}
		}
		for _, w := range c.notWant {
			if strings.Contains(c.system, w) {
				t.Errorf("%s system prompt has %q:\n%s", c.name, w, c.system)
			}
		}
	}
	if sceptic.System == warm.System || warm.System == plain.System {
		t.Error("the dispositions gave the same system prompt")
	}
	// What recall showed the model is the same under every disposition.
	a, b, c := toolResults(sceptic), toolResults(warm), toolResults(plain)
	if len(a) != 1 || !slices.Equal(a, b) || !slices.Equal(b, c) {
		t.Errorf("recall differed with the disposition:\n%q\n%q\n%q", a, b, c)
	}
}

// TestEngine_Reflect_StepLimit: a model that never answers is stopped at
// the step limit; its last turn is offered only the answer tool, and the
// error says no answer came, with what was spent.
func TestEngine_Reflect_StepLimit(t *testing.T) {
	e := newLLMEnv(t)
	e.bank("default")
	e.srv.On(llmtest.Rule{Match: isReflect, Reply: call("recall", map[string]any{"query": "anything at all"})})
	res, err := e.eng.Reflect(e.ctx, "", reflection.Request{Question: "What is the meaning of it all?", MaxSteps: 3})
	if !errors.Is(err, reflection.ErrNoAnswer) || memory.ErrorCode(err) != memory.EUNAVAILABLE {
		t.Fatalf("Reflect = %v (code %s); want ErrNoAnswer, unavailable", err, memory.ErrorCode(err))
	}
	if res.Answer != "" || res.Calls != 3 || len(res.Trace) != 2 || res.InputTokens != 300 {
		t.Errorf("result %+v; want no answer, 3 calls, 2 recalls, 300 input tokens", res)
	}
	reqs := reflectRequests(e)
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3", len(reqs))
	}
	if got := reqs[2].Tools; !slices.Equal(got, []string{"answer"}) {
		t.Errorf("last step offered %v, want answer alone", got)
	}

	// The token budget stops it too, before the step limit.
	e.srv.Reset()
	e.srv.On(llmtest.Rule{Match: isReflect, Reply: call("recall", map[string]any{"query": "anything at all"})})
	res, err = e.eng.Reflect(e.ctx, "", reflection.Request{Question: "What is the meaning of it all?", MaxTokens: 250})
	if !errors.Is(err, reflection.ErrNoAnswer) || res.Calls != 3 {
		t.Errorf("token budget 250 at 110 a call: %v after %d calls; want ErrNoAnswer after 3", err, res.Calls)
	}
}

// TestEngine_Reflect_ProviderFault: the model failing mid-loop ends the
// reflect with a clean unavailable error naming the step, and what was
// done so far.
func TestEngine_Reflect_ProviderFault(t *testing.T) {
	e := newLLMEnv(t)
	e.bank("default")
	e.srv.On(llmtest.Rule{Match: isReflect, Times: 1, Reply: call("recall", map[string]any{"query": "tea"})})
	e.srv.On(llmtest.Rule{Match: isReflect, Reply: llmtest.Reply{Status: 503, Content: "model overloaded"}})
	res, err := e.eng.Reflect(e.ctx, "", reflection.Request{Question: "What does Ana drink?"})
	if memory.ErrorCode(err) != memory.EUNAVAILABLE || !strings.Contains(err.Error(), "step 2") || !strings.Contains(err.Error(), "overloaded") {
		t.Fatalf("Reflect = %v; want unavailable at step 2 with the provider's message", err)
	}
	if res.Answer != "" || len(res.Trace) != 1 || res.Trace[0].Tool != "recall" || res.Calls != 2 {
		t.Errorf("result %+v; want no answer, the one recall, 2 calls", res)
	}
}

// TestEngine_Reflect_Errors: bad questions are invalid, an unknown bank
// not found, and an engine without a model unavailable — never internal.
func TestEngine_Reflect_Errors(t *testing.T) {
	e := newLLMEnv(t)
	for _, c := range []struct {
		bank string
		req  reflection.Request
		code string
	}{
		{"", reflection.Request{Question: "  "}, memory.EINVALID},
		{"", reflection.Request{Question: "caf\xe9?"}, memory.EINVALID},
		{"", reflection.Request{Question: strings.Repeat("why ", reflection.MaxQuestionBytes)}, memory.EINVALID},
		{"", reflection.Request{Question: "Why?", MaxSteps: reflection.MaxSteps + 1}, memory.EINVALID},
		{"", reflection.Request{Question: "Why?", MaxTokens: -1}, memory.EINVALID},
		{"nope", reflection.Request{Question: "Why?"}, memory.ENOTFOUND},
	} {
		if _, err := e.eng.Reflect(e.ctx, c.bank, c.req); memory.ErrorCode(err) != c.code {
			t.Errorf("Reflect(%q, %+v) = %v, want %s", c.bank, c.req, err, c.code)
		}
	}
	if n := len(e.srv.ChatRequests()); n != 0 {
		t.Errorf("bad requests made %d model calls", n)
	}

	off, err := mnemo.Open(t.Context(), mnemo.Config{DB: filepath.Join(t.TempDir(), "m.db"), AccessFlush: -1, JobPoll: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	if _, err := off.Retain(t.Context(), memory.RetainRequest{Text: "Ana drinks green tea."}); err != nil {
		t.Fatal(err)
	}
	_, err = off.Reflect(t.Context(), "", reflection.Request{Question: "What does Ana drink?"})
	if memory.ErrorCode(err) != memory.EUNAVAILABLE || !strings.Contains(err.Error(), "LLM") {
		t.Errorf("Reflect without an LLM = %v, want unavailable naming the LLM", err)
	}
}

// TestEngine_Reflect_ToolErrors: a tool the model misuses (an unknown
// entity, a bad filter, an unknown tool) answers the model with the
// error, and the loop goes on to an answer.
func TestEngine_Reflect_ToolErrors(t *testing.T) {
	e := newLLMEnv(t)
	e.bank("default")
	calls := []llmtest.Reply{
		call("about", map[string]any{"name": "Nobody Known"}),
		call("recall", map[string]any{"query": "tea", "kinds": []string{"opinion"}}),
		call("recall", map[string]any{"query": "tea", "as_of": "last Tuesday"}),
		call("forget", map[string]any{"id": "x"}),
		call("expand", map[string]any{"id": "f_nope"}),
	}
	e.srv.On(llmtest.Rule{Match: isReflect, Respond: func(r llmtest.Request) llmtest.Reply {
		if n := len(toolResults(r)); n < len(calls) {
			return calls[n]
		}
		return llmtest.Reply{Content: "Not known."}
	}})
	res, err := e.eng.Reflect(e.ctx, "", reflection.Request{Question: "What does Ana drink?"})
	if err != nil {
		t.Fatalf("Reflect: %v", err)
	}
	if res.Answer != "Not known." || len(res.Trace) != len(calls) {
		t.Fatalf("result %+v", res)
	}
	for i, s := range res.Trace {
		if s.Error == "" {
			t.Errorf("step %d (%s %s): no error", i, s.Tool, s.Arguments)
		}
	}
	last := reflectRequests(e)[len(calls)]
	for i, c := range toolResults(last) {
		if !strings.HasPrefix(c, "error: ") {
			t.Errorf("tool result %d = %q, want the error", i, c)
		}
	}
}
