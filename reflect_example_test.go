package mnemo_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/provider/openai"
	"github.com/mnemo-ai/mnemo/reflection"
)

// ExampleEngine_Reflect answers a question with a model that looks
// things up first: here llmtest's scripted server stands in for the
// model, recalling once and answering from what it was shown.
func ExampleEngine_Reflect() {
	dir, err := os.MkdirTemp("", "mnemo-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "memory.db")
	ctx := context.Background()

	// Retain offline (the heuristic extractor), then open with a model.
	offline, err := mnemo.Open(ctx, mnemo.Config{DB: db})
	if err != nil {
		panic(err)
	}
	if _, err := offline.Retain(ctx, memory.RetainRequest{Text: "Alice moved to Lisbon in May."}); err != nil {
		panic(err)
	}
	offline.Close()

	model := llmtest.NewServer()
	defer model.Close()
	model.On(llmtest.Rule{Respond: func(r llmtest.Request) llmtest.Reply {
		for _, m := range r.Messages {
			if m.Role == "tool" && strings.Contains(m.Content, "Lisbon") {
				return llmtest.Reply{Content: "Alice lives in Lisbon."}
			}
		}
		return llmtest.Reply{ToolCalls: []memory.ToolCall{{Name: "recall", Arguments: []byte(`{"query":"Alice lives"}`)}}}
	}})
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: db, LLM: openai.New(openai.Config{BaseURL: model.URL(), Model: "scripted"})})
	if err != nil {
		panic(err)
	}
	defer eng.Close()

	res, err := eng.Reflect(ctx, "default", reflection.Request{Question: "Where does Alice live?"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Answer)
	for _, s := range res.Trace {
		fmt.Println("tool:", s.Tool, s.Arguments)
	}
	fmt.Println("model calls:", res.Calls)
	// Output:
	// Alice lives in Lisbon.
	// tool: recall {"query":"Alice lives"}
	// model calls: 2
}
