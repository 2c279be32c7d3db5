package mnemo_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// writeGroup writes, through the engine's store, a document of bank b in
// which every pair of the named entities is mentioned together in one
// fact.
func writeGroup(t *testing.T, eng *mnemo.Engine, doc string, names ...string) {
	t.Helper()
	var texts [][2]string
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			texts = append(texts, [2]string{names[i], names[j]})
		}
	}
	var lines []string
	for _, p := range texts {
		lines = append(lines, p[0]+" met "+p[1])
	}
	w := storetest.NewTestBatch("b", doc, lines...)
	for i, p := range texts {
		a, b := memory.EntityID(p[0]), memory.EntityID(p[1])
		w.Refs = append(w.Refs, memory.EntityRef{FactID: w.Facts[i].ID, EntityID: a}, memory.EntityRef{FactID: w.Facts[i].ID, EntityID: b})
		w.Cooccurrences = append(w.Cooccurrences, memory.Cooccurrence{EntityA: min(a, b), EntityB: max(a, b), Count: 1})
	}
	for _, n := range names {
		w.Entities = append(w.Entities, memory.EntityUpsert{Entity: memory.Entity{ID: memory.EntityID(n), Name: n, Type: memory.EntityPerson}, Mentions: 1, Episodes: 1})
	}
	if err := mnemo.StoreOf(eng).SetBankEmbedder(context.Background(), "b", storetest.TestEmbedder, storetest.TestDimension); err != nil {
		t.Fatal(err)
	}
	if _, err := mnemo.StoreOf(eng).Write(context.Background(), w); err != nil {
		t.Fatal(err)
	}
}

// TestEngine_Communities runs the communities pass through the engine
// with a model behind the OpenAI client and llmtest's server: each
// community is summarised once (its call metered in the run record),
// Engine.Communities lists them, a run over an unchanged graph makes no
// call, and a failed call is counted without failing the run.
func TestEngine_Communities(t *testing.T) {
	eng, srv, c := dreamEnv(t, nil)
	ctx := t.Context()
	if cs, err := eng.Communities(ctx, "b"); err != nil || cs == nil || len(cs) != 0 {
		t.Errorf("Communities before the pass: %v, %v; want an empty list", cs, err)
	}
	writeGroup(t, eng, "d1", "Alice", "Bruno", "Chiara", "Dario")
	writeGroup(t, eng, "d2", "Elena", "Farid", "Greta", "Hugo")
	srv.On(llmtest.Rule{Schema: "community_summary", Respond: func(r llmtest.Request) llmtest.Reply {
		prompt := r.Messages[len(r.Messages)-1].Content
		for _, n := range []string{"Alice", "Elena"} {
			if strings.Contains(prompt, n) {
				return llmtest.Reply{JSON: map[string]any{"name": n + "'s circle", "summary": n + " and friends keep meeting."}, Usage: memory.Usage{InputTokens: 100, OutputTokens: 20}}
			}
		}
		return llmtest.Reply{Status: 500, Content: "unknown group"}
	}})
	r, err := eng.Consolidate(ctx, "b", mnemo.PassCommunities)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != memory.RunOK || r.Counts["created"] != 2 || r.Counts["summarised"] != 2 || r.LLMCalls != 2 || r.Tokens != 240 {
		t.Errorf("run: %+v, want 2 created and summarised in 2 calls, 240 tokens", r)
	}
	for _, req := range srv.ChatRequests() {
		if req.ResponseFormat != "json_schema" || req.Schema != "community_summary" {
			t.Errorf("request asks %q %q, want the json_schema community_summary", req.ResponseFormat, req.Schema)
		}
	}
	cs, err := eng.Communities(ctx, "b")
	if err != nil || len(cs) != 2 {
		t.Fatalf("Communities: %v, %v", cs, err)
	}
	for _, x := range cs {
		if !strings.HasSuffix(x.Name, "'s circle") || !strings.Contains(x.Summary, "keep meeting") || len(x.Members) != 4 || !x.SummarizedAt.Equal(c.now()) {
			t.Errorf("community %+v", x)
		}
	}
	srv.Reset()
	r, err = eng.Consolidate(ctx, "b", mnemo.PassCommunities)
	if err != nil || r.LLMCalls != 0 || r.Counts["recomputed"] != 0 {
		t.Errorf("a run over an unchanged graph: %+v, %v; want no call, nothing recomputed", r, err)
	}

	// A third group the model fails on: counted, the run is ok.
	srv.On(llmtest.Rule{Schema: "community_summary", Reply: llmtest.Reply{Status: 400, Content: "bad request"}})
	writeGroup(t, eng, "d3", "Ines", "Jonas", "Kalle")
	r, err = eng.Consolidate(ctx, "b", mnemo.PassCommunities)
	if err != nil || r.Status != memory.RunOK || r.Counts["created"] != 1 || r.Counts["summary_failed"] != 1 || r.LLMCalls < 1 {
		t.Errorf("a failed summary: %+v, %v; want the run ok, 1 created, 1 failed", r, err)
	}
	if cs, _ := eng.Communities(ctx, "b"); len(cs) != 3 {
		t.Errorf("Communities: %d, want 3", len(cs))
	}
	if _, err := eng.Communities(ctx, "nope"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("Communities of an unknown bank: %v, want ENOTFOUND", err)
	}
	runs, _ := eng.ConsolidateAll(ctx, "b") // passes this scripted model has no rule for fail; every pass is tried
	if !slices.ContainsFunc(runs, func(r *memory.Run) bool { return r.Pass == mnemo.PassCommunities }) {
		t.Errorf("a full run has no communities pass: %v", runs)
	}
}

func ExampleEngine_Communities() {
	dir, err := os.MkdirTemp("", "mnemo-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: filepath.Join(dir, "memory.db")})
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	for _, text := range []string{
		"Alice, Bruno and Chiara went climbing at Arco.",
		"Bruno and Chiara cooked dinner for Alice.",
		"Dmitri, Elena and Farid play chess at Kaissa.",
		"Elena beat Dmitri and Farid at Kaissa.",
	} {
		if _, err := eng.Retain(ctx, memory.RetainRequest{Text: text}); err != nil {
			panic(err)
		}
	}
	// The communities pass runs with every full consolidation; here, alone.
	if _, err := eng.Consolidate(ctx, "", mnemo.PassCommunities); err != nil {
		panic(err)
	}
	cs, err := eng.Communities(ctx, "")
	if err != nil {
		panic(err)
	}
	for _, c := range cs {
		fmt.Println(len(c.Members), "members:", c.Name)
	}
	// Output:
	// 4 members: Chiara
	// 3 members: Kaissa
}
