package openai_test

import (
	"context"
	"fmt"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/provider/openai"
)

func ExampleNew() {
	s := llmtest.NewServer() // stands in for OpenAI, Ollama, vLLM…
	defer s.Close()
	s.On(llmtest.Rule{Schema: "facts", Reply: llmtest.Reply{JSON: map[string]any{"facts": []string{"Lena has a cat"}}}})

	llm := openai.New(openai.Config{BaseURL: s.URL(), Model: "gpt-4o-mini"})
	resp, err := llm.Chat(context.Background(), &memory.ChatRequest{
		System:   "Extract the facts.",
		Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: "Lena adopted a cat."}},
		Schema:   &memory.Schema{Name: "facts", JSON: []byte(`{"type":"object","properties":{"facts":{"type":"array","items":{"type":"string"}}},"required":["facts"]}`)},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(llm.Name(), string(resp.JSON))
	// Output: openai:gpt-4o-mini {"facts":["Lena has a cat"]}
}

func ExampleNewEmbedder() {
	s := llmtest.NewServer()
	defer s.Close()

	// Dimension 0: the embedder asks the server once.
	e, err := openai.NewEmbedder(context.Background(), openai.EmbedConfig{BaseURL: s.URL(), Model: "text-embedding-3-small"})
	if err != nil {
		fmt.Println(err)
		return
	}
	vs, err := e.Embed(context.Background(), []string{"Lena has a cat", "Miso is a cat"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.Name(), e.Dimension(), len(vs))
	// Output: openai:text-embedding-3-small 64 2
}
