package mcpserver_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/provider/openai"
	"github.com/mnemo-ai/mnemo/server/mcpserver"
	"github.com/mnemo-ai/mnemo/wire"
)

// TestServer_Reflect: the reflect tool answers through the engine's
// (scripted) model with the answer in text and the wire shape in the
// structured content; without a model, or with a bad question, it is a
// tool error the caller can read.
func TestServer_Reflect(t *testing.T) {
	off := connect(t, mcpserver.New(openEngine(t), mcpserver.Options{}), nil)
	retain(t, off, map[string]any{"text": "Bob likes tea."})
	if res := call(t, off, "reflect", map[string]any{"question": "What does Bob like?"}); !res.IsError || !strings.Contains(text(res), "unavailable") {
		t.Errorf("reflect without an LLM = %q (error %v), want an unavailable tool error", text(res), res.IsError)
	}

	llm := llmtest.NewServer()
	t.Cleanup(llm.Close)
	eng, err := mnemo.Open(t.Context(), mnemo.Config{DB: filepath.Join(t.TempDir(), "m.db"), JobPoll: -1, SessionIdle: -1, AccessFlush: -1,
		LLM: openai.New(openai.Config{BaseURL: llm.URL(), Model: "scripted"})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	cs := connect(t, mcpserver.New(eng, mcpserver.Options{}), nil)
	if _, err := eng.CreateBank(t.Context(), "default"); err != nil {
		t.Fatal(err)
	}
	llm.On(llmtest.Rule{Match: func(r llmtest.Request) bool { return len(r.Tools) > 0 }, Respond: func(r llmtest.Request) llmtest.Reply {
		for _, m := range r.Messages {
			if m.Role == "tool" {
				return llmtest.Reply{Content: "Memory does not say. (" + m.Content + ")"}
			}
		}
		args, _ := json.Marshal(map[string]any{"name": "Bob"})
		return llmtest.Reply{ToolCalls: []memory.ToolCall{{Name: "about", Arguments: args}}}
	}})
	res := call(t, cs, "reflect", map[string]any{"question": "What does Bob like?"})
	if res.IsError || !strings.HasPrefix(text(res), "Memory does not say.") {
		t.Fatalf("reflect = %q (error %v)", text(res), res.IsError)
	}
	var out wire.Reflect
	structured(t, res, &out)
	if len(out.Trace) != 1 || out.Trace[0].Tool != "about" || out.Trace[0].Error == "" || out.LLMCalls != 2 {
		t.Errorf("structured = %+v, want one about call that found no Bob, 2 calls", out)
	}
	if res := call(t, cs, "reflect", map[string]any{"question": " "}); !res.IsError || !strings.Contains(text(res), "empty") {
		t.Errorf("empty question = %q, want a tool error", text(res))
	}
}
