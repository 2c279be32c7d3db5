package mnemo_test

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
	"github.com/mnemo-ai/mnemo/provider/hashembed"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/provider/openai"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// dreamEnv is an engine with an LLM behind llmtest's scripted server, on
// a new SQLite file, with bank b under the consolidation settings over.
func dreamEnv(t *testing.T, over map[string]string) (*mnemo.Engine, *llmtest.Server, *clock) {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	g := provider.NewGuard()
	g.Backoff, g.MaxBackoff, g.Timeout = time.Millisecond, 5*time.Millisecond, 2*time.Second
	c := &clock{t: time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)}
	eng, err := mnemo.Open(t.Context(), mnemo.Config{
		DB:            filepath.Join(t.TempDir(), "mnemo.db"),
		LLM:           openai.New(openai.Config{BaseURL: srv.URL(), APIKey: "sk-test", Model: "scripted"}),
		Guard:         g,
		Now:           c.now,
		AccessFlush:   -1,
		JobPoll:       -1,
		SessionIdle:   -1,
		Consolidation: consolidate.RunnerConfig{PendingEvery: -1, Idle: -1, DailyAt: -1},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if _, err := eng.CreateBank(t.Context(), "b"); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.ChangeBank(t.Context(), "b", func(s *memory.BankSettings) { s.Consolidation = over }); err != nil {
		t.Fatal(err)
	}
	return eng, srv, c
}

// writeFacts stores facts of bank b through the engine's store, embedded
// with the engine's own (built-in) embedder, as retain would have; each
// changed by change first when it is not nil.
func writeFacts(t *testing.T, eng *mnemo.Engine, doc string, texts []string, change func(i int, f *memory.Fact)) *memory.WriteBatch {
	t.Helper()
	ctx := context.Background()
	st := mnemo.StoreOf(eng)
	emb := hashembed.New(hashembed.DefaultDimension)
	if err := st.SetBankEmbedder(ctx, "b", emb.Name(), emb.Dimension()); err != nil {
		t.Fatal(err)
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	w := storetest.NewTestBatch("b", doc, texts...)
	for i, f := range w.Facts {
		f.Embedding = vecs[i]
		if change != nil {
			change(i, f)
		}
	}
	if _, err := st.Write(ctx, w); err != nil {
		t.Fatal(err)
	}
	return w
}

// chatHas reports whether some message of r holds every word.
func chatHas(r llmtest.Request, words ...string) bool {
	for _, w := range words {
		found := false
		for _, m := range r.Messages {
			found = found || strings.Contains(m.Content, w)
		}
		if !found {
			return false
		}
	}
	return true
}

// TestEngine_Dreams runs the dream pass end to end: the real OpenAI
// client against the scripted server, the built-in embedder, SQLite.
// Three topics make three clusters and three pairs; the model bridges
// two, the evaluator keeps one; the next night's identical insight is a
// duplicate; recall never returns a dream.
func TestEngine_Dreams(t *testing.T) {
	ctx := context.Background()
	// Dreams on, k = 3: one cluster per topic.
	eng, srv, c := dreamEnv(t, map[string]string{"dreams": "on", "dream_min_clusters": "3"})
	var texts []string
	for i := range 8 {
		texts = append(texts,
			fmt.Sprintf("Sam trains for the city marathon with interval runs in week %d", i+1),
			fmt.Sprintf("Sam bakes sourdough bread from a rye starter, loaf number %d", i+1),
			fmt.Sprintf("Sam plants tomatoes and beans in garden bed %d of the allotment", i+1))
	}
	writeFacts(t, eng, "doc", texts, nil)

	const (
		keep   = "Sam proofs his training plan the way he proofs dough: slowly, overnight, never rushed."
		reject = "Sam waters the beans on the days he does not run."
	)
	srv.On(llmtest.Rule{Schema: "dream", Match: func(r llmtest.Request) bool { return chatHas(r, "marathon", "sourdough") },
		Reply: llmtest.Reply{JSON: map[string]string{"bridge": "slow fermentation", "insight": keep}}})
	srv.On(llmtest.Rule{Schema: "dream", Match: func(r llmtest.Request) bool { return chatHas(r, "marathon", "tomatoes") },
		Reply: llmtest.Reply{JSON: map[string]string{"bridge": "watering schedule", "insight": reject}}})
	srv.On(llmtest.Rule{Schema: "dream", Reply: llmtest.Reply{JSON: map[string]string{"bridge": "", "insight": ""}}})
	// The evaluator keeps the one insight worth it, wherever it stands.
	for i := range consolidate.DefaultDreamMaxPairs {
		srv.On(llmtest.Rule{Schema: "dream_evaluation", Match: func(r llmtest.Request) bool { return chatHas(r, fmt.Sprintf("[%d] BRIDGE: slow fermentation", i)) },
			Reply: llmtest.Reply{JSON: map[string]any{"selected": []int{i}, "reasoning": "the only surprising one"}}})
	}

	r, err := eng.Consolidate(ctx, "b", mnemo.PassDreams)
	if err != nil {
		t.Fatalf("Consolidate(dreams): %v", err)
	}
	want := map[string]int{"sampled": 24, "clusters": 3, "pairs": 3, "bridged": 2, "failed": 0, "kept": 1, "duplicates": 0, "stored": 1}
	if r.Status != memory.RunOK || !maps.Equal(r.Counts, want) || r.LLMCalls != 4 {
		t.Fatalf("run: %+v, want ok with %v and 4 LLM calls", r, want)
	}
	evals := 0
	for _, req := range srv.ChatRequests() {
		if req.Schema == "dream_evaluation" {
			evals++
			if !chatHas(req, keep, reject) {
				t.Errorf("the evaluator did not see both candidates: %+v", req.Messages)
			}
		}
	}
	if evals != 1 {
		t.Errorf("%d evaluator calls, want 1", evals)
	}
	dreams, err := eng.Dreams(ctx, "b", 0)
	if err != nil || len(dreams) != 1 || dreams[0].Insight != keep || dreams[0].Bridge != "slow fermentation" || len(dreams[0].SourceFactIDs) != 6 {
		t.Fatalf("Dreams: %+v, %v; want the kept insight from 6 facts", dreams, err)
	}

	// Dreams never enter recall, however close the question.
	rec, err := eng.Recall(ctx, memory.Query{BankID: "b", Text: keep, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rec.Results {
		if res.Fact.ID == dreams[0].ID || strings.Contains(res.Fact.Text, "proofs his training plan") {
			t.Errorf("recall returned the dream: %+v", res.Fact)
		}
	}
	if strings.Contains(rec.Context, "proofs his training plan") || strings.Contains(rec.Context, "slow fermentation") || len(rec.Observations) != 0 {
		t.Errorf("recall's context holds the dream: %q", rec.Context)
	}

	// The next night the model says the same again: a duplicate.
	c.set(c.now().Add(24 * time.Hour))
	r, err = eng.Consolidate(ctx, "b", mnemo.PassDreams)
	if err != nil || r.Counts["kept"] != 1 || r.Counts["duplicates"] != 1 || r.Counts["stored"] != 0 {
		t.Errorf("second run: %+v, %v; want the kept insight a duplicate", r, err)
	}
	if dreams, _ := eng.Dreams(ctx, "b", 0); len(dreams) != 1 {
		t.Errorf("%d dreams after the second run, want 1", len(dreams))
	}
}

// Off by default: with an LLM configured the pass is recorded as skipped,
// with the reason, and asks the model nothing.
func TestEngine_Dreams_Off(t *testing.T) {
	ctx := context.Background()
	eng, srv, _ := dreamEnv(t, nil)
	r, err := eng.Consolidate(ctx, "b", mnemo.PassDreams)
	if err != nil || r.Status != memory.RunSkipped || r.Reason != consolidate.DreamsOff || r.LLMCalls != 0 {
		t.Errorf("dreams off: %+v, %v; want skipped, %q", r, err, consolidate.DreamsOff)
	}
	runs, err := eng.Runs(ctx, "b", 0)
	if err != nil || len(runs) != 1 || runs[0].Status != memory.RunSkipped || runs[0].Reason != consolidate.DreamsOff {
		t.Errorf("stored run: %+v, %v", runs, err)
	}
	if n := len(srv.ChatRequests()); n != 0 {
		t.Errorf("%d chat requests, want none", n)
	}
	if ds, err := eng.Dreams(ctx, "b", 0); err != nil || len(ds) != 0 {
		t.Errorf("Dreams: %v, %v; want none", ds, err)
	}
	if _, err := eng.Dreams(ctx, "nope", 0); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("Dreams(unknown bank): %v, want ENOTFOUND", err)
	}
}
