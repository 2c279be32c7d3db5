package langchaingo_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms/fake"

	"github.com/mnemo-ai/mnemo"
	mnemolc "github.com/mnemo-ai/mnemo/adapters/langchaingo"
)

func open(t *testing.T) *mnemo.Engine {
	t.Helper()
	eng, err := mnemo.Open(t.Context(), mnemo.Config{DB: filepath.Join(t.TempDir(), "m.db"), JobPoll: -1, SessionIdle: -1, AccessFlush: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

// The chain's prompt carries what an earlier run said; Clear forgets
// what this memory saved and nothing else.
func TestMemory_Chain(t *testing.T) {
	ctx := t.Context()
	eng := open(t)
	mem := mnemolc.New(eng, "")
	empty, err := mem.LoadMemoryVariables(ctx, map[string]any{"input": "What is my cat called?"})
	if err != nil || empty["history"] != "" {
		t.Fatalf("a new bank: %v, %v", empty, err)
	}
	llm := fake.NewFakeLLM([]string{"Noted.", "Miso!"})
	chat := chains.NewConversation(llm, mem)
	if _, err := chains.Run(ctx, chat, "My cat is called Miso and she sleeps on the radiator."); err != nil {
		t.Fatal(err)
	}
	got, err := mem.LoadMemoryVariables(ctx, map[string]any{"input": "Where does my cat sleep?"})
	if err != nil {
		t.Fatal(err)
	}
	if h := got["history"].(string); !strings.Contains(h, "radiator") {
		t.Errorf("history = %q, want the radiator", h)
	}
	// Another memory's exchange stays when this one clears.
	other := mnemolc.New(eng, "")
	if err := other.SaveContext(ctx, map[string]any{"input": "My dog is called Rex."}, map[string]any{"text": "Hello Rex!"}); err != nil {
		t.Fatal(err)
	}
	if err := mem.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ = mem.LoadMemoryVariables(ctx, map[string]any{"input": "Where does my cat sleep on the radiator?"})
	if h := got["history"].(string); strings.Contains(h, "radiator") {
		t.Errorf("after Clear, history = %q, want the cat forgotten", h)
	}
	got, _ = mem.LoadMemoryVariables(ctx, map[string]any{"input": "What is my dog called?"})
	if h := got["history"].(string); !strings.Contains(h, "Rex") {
		t.Errorf("the other memory's exchange went too: %q", h)
	}
}

// Values that do not say which is the input are an error, not a guess.
func TestMemory_Keys(t *testing.T) {
	mem := mnemolc.New(open(t), "")
	if _, err := mem.LoadMemoryVariables(t.Context(), map[string]any{"a": "x", "b": "y"}); err == nil {
		t.Error("two inputs and no InputKey: no error")
	}
	mem.InputKey = "question"
	if _, err := mem.LoadMemoryVariables(t.Context(), map[string]any{"a": "x"}); err == nil {
		t.Error("InputKey missing from the inputs: no error")
	}
	if _, err := mem.LoadMemoryVariables(t.Context(), map[string]any{"question": 3}); err == nil {
		t.Error("a number as the input: no error")
	}
}
