package llmtest_test

import (
	"context"
	"fmt"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/provider/openai"
)

func ExampleNewServer() {
	s := llmtest.NewServer()
	defer s.Close()
	s.On(llmtest.Rule{Contains: "cat", Reply: llmtest.Reply{Content: "<think>easy</think>Miso."}})

	llm := openai.New(openai.Config{BaseURL: s.URL(), Model: "scripted"})
	resp, err := llm.Chat(context.Background(), &memory.ChatRequest{
		Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: "What is the cat called?"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Content)
	fmt.Println(s.Requests()[0].Messages[0].Content)
	// Output:
	// Miso.
	// What is the cat called?
}
