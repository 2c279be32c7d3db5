package anthropic_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/anthropic"
)

func ExampleNew() {
	// A stand-in for the Messages API that answers with the forced tool call.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","stop_reason":"tool_use",
			"usage":{"input_tokens":20,"output_tokens":9},
			"content":[{"type":"tool_use","id":"toolu_1","name":"facts","input":{"facts":["Lena has a cat"]}}]}`)
	}))
	defer srv.Close()

	llm := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "sk-ant-example", Model: "claude-test"})
	resp, err := llm.Chat(context.Background(), &memory.ChatRequest{
		Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: "Lena adopted a cat."}},
		Schema:   &memory.Schema{Name: "facts", JSON: []byte(`{"type":"object","properties":{"facts":{"type":"array","items":{"type":"string"}}},"required":["facts"]}`)},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(resp.JSON), resp.Usage.InputTokens, resp.Usage.OutputTokens)
	// Output: {"facts":["Lena has a cat"]} 20 9
}
