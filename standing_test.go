package mnemo_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/reflection"
	"github.com/mnemo-ai/mnemo/wire"
)

// shoeModel is a scripted reflect model: it recalls the question, then
// answers with the brand named by the active "favourite shoe brand" fact
// it was shown (the last word of its text) and that fact's id.
func shoeModel(r llmtest.Request) llmtest.Reply {
	res := toolResults(r)
	if len(res) == 0 {
		return call("recall", map[string]any{"query": "Tom favourite shoe brand"})
	}
	for _, l := range lines(res[0]) {
		if strings.Contains(l.text, "favourite shoe brand") && !strings.Contains(l.text, "(superseded)") {
			words := strings.Fields(l.text)
			return call("answer", map[string]any{"answer": "Tom's favourite brand is " + words[len(words)-1] + ".", "memory_ids": []string{l.id}})
		}
	}
	return llmtest.Reply{Content: "Not known."}
}

// TestEngine_Standing is a pinned question kept true: the standing pass
// answers it, recall and reflect return that answer first with no model
// call; a contradicting fact makes it stale (and it is no longer
// served); the next pass answers it anew, and recall returns the new
// answer first. A pass over an unchanged bank asks the model nothing.
func TestEngine_Standing(t *testing.T) { eachStore(t, testStanding) }

func testStanding(t *testing.T, e *llmEnv) {
	e.bank("default")
	e.srv.On(llmtest.Rule{Match: isReflect, Respond: shoeModel})
	const question = "What is Tom's favourite shoe brand?"
	week1 := time.Date(2024, 5, 1, 18, 0, 0, 0, time.UTC)
	week3 := time.Date(2024, 5, 15, 18, 0, 0, 0, time.UTC)
	tom := [3]any{"Tom", "person", 0.95}
	e.srv.On(llmtest.Rule{Schema: "extraction", Contains: "I love Nike shoes", Reply: llmtest.Reply{JSON: extraction(xfact{
		text: "Tom's favourite shoe brand is Nike", category: "preference", speaker: "Tom", message: 1, entities: [][3]any{tom}})}})
	e.srv.On(llmtest.Rule{Schema: "extraction", Contains: "these Hokas are incredible", Reply: llmtest.Reply{JSON: extraction(xfact{
		text: "Tom's favourite shoe brand is now Hoka", category: "preference", speaker: "Tom", message: 1, entities: [][3]any{tom}})}})

	e.clock.set(week1)
	e.retain("default", "Tom", "I love Nike shoes, I wore them for every run this year.", week1)
	nike := e.factByText("default", "Tom's favourite shoe brand is Nike")

	q, err := e.eng.PinQuestion(e.ctx, "", question)
	if err != nil {
		t.Fatalf("PinQuestion: %v", err)
	}
	if _, err := e.eng.PinQuestion(e.ctx, "", "  what is tom's favourite shoe brand "); memory.ErrorCode(err) != memory.ECONFLICT {
		t.Errorf("pinning the same question again = %v, want conflict", err)
	}
	if rec := e.recallQ(question); rec.Standing != nil {
		t.Errorf("recall before any answer has a standing answer: %+v", rec.Standing)
	}

	e.clock.set(week1.Add(time.Hour))
	run := e.consolidate("", mnemo.PassStanding)
	if run.Counts["answered"] != 1 || run.LLMCalls != 2 {
		t.Errorf("first standing run: %+v, want 1 answered in 2 calls", run)
	}
	rec := e.recallQ(question)
	if rec.Standing == nil || rec.Standing.Answer != "Tom's favourite brand is Nike." || !slicesEq(rec.Standing.MemoryIDs, nike.ID) {
		t.Fatalf("recall's standing answer = %+v, want Nike resting on %s", rec.Standing, nike.ID)
	}
	c, err := e.eng.Context(e.ctx, "default", mnemo.ContextRequest{Budget: 500})
	if err != nil || !strings.Contains(c.Text, "Standing answers") || !strings.Contains(c.Text, "Tom's favourite brand is Nike.") {
		t.Errorf("the session context lacks the standing answer: %v\n%s", err, c.Text)
	}
	if !strings.HasPrefix(rec.Context, "Standing answer to \""+question+"\": Tom's favourite brand is Nike.") {
		t.Errorf("context does not start with the standing answer:\n%s", rec.Context)
	}
	calls := len(e.srv.ChatRequests())
	res, err := e.eng.Reflect(e.ctx, "", reflection.Request{Question: "what is Tom's favourite shoe brand"})
	if err != nil || !res.Standing || res.Answer != rec.Standing.Answer || res.Calls != 0 {
		t.Errorf("Reflect = %+v, %v; want the standing answer, no call", res, err)
	}
	if n := len(e.srv.ChatRequests()); n != calls {
		t.Errorf("reading the standing answer made %d model calls", n-calls)
	}
	// Nothing changed: the pass asks the model nothing.
	if run := e.consolidate("", mnemo.PassStanding); run.Counts["fresh"] != 1 || run.LLMCalls != 0 {
		t.Errorf("standing run over an unchanged bank: %+v, want 1 fresh, no call", run)
	}

	// A contradicting fact: Hoka replaces Nike at retain.
	e.srv.On(llmtest.Rule{Schema: "conflicts", Contains: "Hoka", Reply: llmtest.Reply{JSON: decisions([3]any{0, "update", nike.ID})}})
	e.clock.set(week3.Add(time.Hour))
	e.retain("default", "Tom", "Switched this month: these Hokas are incredible.", week3)
	hoka := e.factByText("default", "Tom's favourite shoe brand is now Hoka")
	if rec := e.recallQ(question); rec.Standing != nil {
		t.Errorf("recall serves the standing answer resting on a superseded fact: %+v", rec.Standing)
	}
	list, err := e.eng.StandingQuestions(e.ctx, "")
	if err != nil || len(list) != 1 || !strings.Contains(list[0].Stale, nike.ID) {
		t.Errorf("StandingQuestions = %+v, %v; want one, stale for the superseded Nike fact", list, err)
	}

	e.clock.set(week3.Add(2 * time.Hour))
	if run := e.consolidate("", mnemo.PassStanding); run.Counts["answered"] != 1 || run.LLMCalls != 2 {
		t.Errorf("standing run after the contradiction: %+v, want 1 answered in 2 calls", run)
	}
	rec = e.recallQ(question)
	if rec.Standing == nil || rec.Standing.Answer != "Tom's favourite brand is Hoka." || !slicesEq(rec.Standing.MemoryIDs, hoka.ID) {
		t.Fatalf("recall's standing answer after the contradiction = %+v, want Hoka resting on %s", rec.Standing, hoka.ID)
	}
	w := wire.NewRecall(rec)
	if w.Standing == nil || w.Standing.Answer != rec.Standing.Answer || w.Standing.ID != q.ID {
		t.Errorf("wire recall standing = %+v", w.Standing)
	}
	// Another query, or one as of the past, gets no standing answer.
	if rec := e.recallQ("Tom shoes"); rec.Standing != nil {
		t.Errorf("another query got the standing answer")
	}
	old, err := e.eng.Recall(e.ctx, memory.Query{Text: question, Filter: memory.Filter{AsOf: week1.Add(2 * time.Hour)}})
	if err != nil || old.Standing != nil {
		t.Errorf("an as-of recall got today's standing answer: %+v, %v", old.Standing, err)
	}

	// Unpinned, it is gone from every read.
	if _, err := e.eng.UnpinQuestion(e.ctx, "", question); err != nil {
		t.Fatal(err)
	}
	if rec := e.recallQ(question); rec.Standing != nil {
		t.Errorf("recall after the unpin has a standing answer")
	}
	if _, err := e.eng.UnpinQuestion(e.ctx, "", question); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("unpinning again = %v, want not found", err)
	}
}

// TestEngine_Standing_NewFact: a new fact that matches the question
// without superseding its evidence makes the answer stale too.
func TestEngine_Standing_NewFact(t *testing.T) {
	e := newLLMEnv(t)
	e.bank("default")
	e.srv.On(llmtest.Rule{Schema: "conflicts", Reply: llmtest.Reply{JSON: decisions()}})
	e.srv.On(llmtest.Rule{Match: isReflect, Respond: shoeModel})
	at := time.Date(2024, 5, 1, 18, 0, 0, 0, time.UTC)
	e.clock.set(at)
	e.retainScripted("default", "Tom", "Nike are my favourite.", at, "Tom's favourite shoe brand is Nike")
	if _, err := e.eng.PinQuestion(e.ctx, "", "What is Tom's favourite shoe brand?"); err != nil {
		t.Fatal(err)
	}
	e.consolidate("", mnemo.PassStanding)
	if e.recallQ("What is Tom's favourite shoe brand?").Standing == nil {
		t.Fatal("no standing answer after the pass")
	}
	e.clock.set(at.Add(time.Hour))
	e.retainScripted("default", "Tom", "Trying on Asics today.", at.Add(time.Hour), "Tom tried on Asics shoes, his favourite brand may change")
	if rec := e.recallQ("What is Tom's favourite shoe brand?"); rec.Standing != nil {
		t.Errorf("a newer matching fact left the answer fresh: %+v", rec.Standing)
	}
}

// TestEngine_Standing_NoLLM: without a model the pass is skipped with
// its reason, and pinning still works.
func TestEngine_Standing_NoLLM(t *testing.T) {
	eng := open(t, mnemo.Config{AccessFlush: -1, JobPoll: -1})
	ctx := t.Context()
	if _, err := eng.CreateBank(ctx, "default"); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.PinQuestion(ctx, "", "Where does Ana live?"); err != nil {
		t.Fatal(err)
	}
	run, err := eng.Consolidate(ctx, "", mnemo.PassStanding)
	if err != nil || run.Status != memory.RunSkipped || run.Reason == "" {
		t.Errorf("standing pass offline = %+v, %v; want skipped", run, err)
	}
	for _, bad := range []string{"", " ?? ", strings.Repeat("x", memory.MaxStandingQuestionBytes+1)} {
		if _, err := eng.PinQuestion(ctx, "", bad); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("PinQuestion(%.20q) = %v, want invalid", bad, err)
		}
	}
	if _, err := eng.PinQuestion(ctx, "nope", "Why?"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("PinQuestion(unknown bank) = %v, want not found", err)
	}
}

func (e *llmEnv) recallQ(text string) *memory.Recollection {
	e.t.Helper()
	rec, err := e.eng.Recall(e.ctx, memory.Query{Text: text})
	if err != nil {
		e.t.Fatal(err)
	}
	return rec
}

func slicesEq(got []string, want ...string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

// TestEngine_Standing_Tool: reflect's standing_answers tool shows the
// bank's standing answers whose evidence stands — and, while the pass
// answers a question anew, never that question's own old answer.
func TestEngine_Standing_Tool(t *testing.T) {
	e := newLLMEnv(t)
	e.bank("default")
	e.srv.On(llmtest.Rule{Schema: "conflicts", Reply: llmtest.Reply{JSON: decisions()}})
	at := time.Date(2024, 5, 1, 18, 0, 0, 0, time.UTC)
	e.clock.set(at)
	e.retainScripted("default", "Tom", "Nike are my favourite.", at, "Tom's favourite shoe brand is Nike")
	e.retainScripted("default", "Tom", "Green, always green.", at, "Tom's favourite colour is green")
	const shoes, colour = "What is Tom's favourite shoe brand?", "What is Tom's favourite colour?"
	// The model looks at the standing answers first, then recalls, then
	// answers from the fact line that names the question's subject.
	e.srv.On(llmtest.Rule{Match: isReflect, Respond: func(r llmtest.Request) llmtest.Reply {
		res := toolResults(r)
		q := r.Messages[1].Content // after the system message
		switch len(res) {
		case 0:
			return call("standing_answers", map[string]any{})
		case 1:
			return call("recall", map[string]any{"query": q})
		}
		key := "shoe brand"
		if q == colour {
			key = "colour"
		}
		for _, l := range lines(res[1]) {
			if strings.Contains(l.text, key) {
				words := strings.Fields(l.text)
				return call("answer", map[string]any{"answer": words[len(words)-1], "memory_ids": []string{l.id}})
			}
		}
		return llmtest.Reply{Content: "Not known."}
	}})
	if _, err := e.eng.PinQuestion(e.ctx, "", shoes); err != nil {
		t.Fatal(err)
	}
	e.clock.set(at.Add(time.Minute))
	if _, err := e.eng.PinQuestion(e.ctx, "", colour); err != nil {
		t.Fatal(err)
	}
	// standingSeen is what the standing_answers tool showed the loop
	// answering question, in the requests from the n-th on.
	standingSeen := func(from int, question string) string {
		for _, r := range e.srv.ChatRequests()[from:] {
			if res := toolResults(r); len(res) > 0 && isReflect(r) && r.Messages[1].Content == question {
				return res[0]
			}
		}
		t.Fatalf("no loop answered %q", question)
		return ""
	}

	e.clock.set(at.Add(time.Hour))
	from := len(e.srv.ChatRequests())
	e.consolidate("", mnemo.PassStanding)
	if got := standingSeen(from, shoes); got != "No standing answers." {
		t.Errorf("first question's loop saw %q, want none yet", got)
	}
	if got := standingSeen(from, colour); !strings.Contains(got, "Q: "+shoes+"\nA: Nike\n") {
		t.Errorf("second question's loop saw %q, want the first one's answer", got)
	}

	// A newer matching fact makes the shoe answer stale while its
	// evidence stands: answering it anew, the loop does not see it.
	e.clock.set(at.Add(2 * time.Hour))
	e.retainScripted("default", "Tom", "Asics feel good too.", at.Add(2*time.Hour), "Tom tried on Asics shoes")
	e.clock.set(at.Add(3 * time.Hour))
	from = len(e.srv.ChatRequests())
	e.consolidate("", mnemo.PassStanding)
	if got := standingSeen(from, shoes); strings.Contains(got, shoes) {
		t.Errorf("the loop answering %q anew saw its own old answer:\n%s", shoes, got)
	}
	// A reflect of another question sees both.
	e.srv.Reset()
	e.srv.On(llmtest.Rule{Match: isReflect, Respond: func(r llmtest.Request) llmtest.Reply {
		if len(toolResults(r)) == 0 {
			return call("standing_answers", map[string]any{})
		}
		return llmtest.Reply{Content: "Done."}
	}})
	res, err := e.eng.Reflect(e.ctx, "", reflection.Request{Question: "What do we know of Tom?"})
	if err != nil || len(res.Trace) != 1 || res.Trace[0].Tool != "standing_answers" || len(res.Trace[0].MemoryIDs) != 2 {
		t.Errorf("Reflect = %+v, %v; want one standing_answers call showing both answers' evidence", res, err)
	}
}
