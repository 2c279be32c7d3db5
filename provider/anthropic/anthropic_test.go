package anthropic_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
	"github.com/mnemo-ai/mnemo/provider/anthropic"
)

const testKey = "sk-ant-test-0123456789"

var factsSchema = &memory.Schema{Name: "facts", Description: "Record the facts.", JSON: []byte(`{
	"type": "object",
	"properties": {"facts": {"type": "array", "items": {"type": "string"}}},
	"required": ["facts"],
	"additionalProperties": false
}`)}

// fake is a Messages API server answering with scripted bodies.
type fake struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	reqs    []*http.Request
	bodies  []map[string]any
	status  int
	header  map[string]string
	replies []string // response bodies, in order; the last one repeats
}

func newFake(t *testing.T, replies ...string) *fake {
	f := &fake{t: t, status: http.StatusOK, replies: replies}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		f.t.Errorf("body %s: %v", b, err)
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, r)
	f.bodies = append(f.bodies, m)
	reply := f.replies[min(len(f.bodies), len(f.replies))-1]
	status := f.status
	f.mu.Unlock()
	for k, v := range f.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, reply)
}

func (f *fake) client() *anthropic.Client {
	return anthropic.New(anthropic.Config{BaseURL: f.srv.URL, APIKey: testKey, Model: "claude-test"})
}

func message(stop string, content ...string) string {
	return `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","stop_reason":"` + stop +
		`","stop_sequence":null,"usage":{"input_tokens":21,"output_tokens":8},"content":[` + strings.Join(content, ",") + `]}`
}

func text(s string) string {
	b, _ := json.Marshal(s)
	return `{"type":"text","text":` + string(b) + `}`
}

func toolUse(id, name, input string) string {
	return `{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":` + input + `}`
}

func TestClient_Name(t *testing.T) {
	if got, want := anthropic.New(anthropic.Config{Model: "claude-x"}).Name(), "anthropic:claude-x"; got != want {
		t.Errorf("Name = %q, want %q", got, want)
	}
}

func TestClient_Chat(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		f := newFake(t, message("end_turn", text("<think>greet</think>Hello Lena!")))
		resp, err := f.client().Chat(t.Context(), &memory.ChatRequest{
			System:      "Be brief.",
			Messages:    []memory.ChatMessage{{Role: memory.RoleUser, Content: "I am Lena"}},
			Temperature: 0.3,
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := resp.Content, "Hello Lena!"; got != want {
			t.Errorf("Content = %q, want %q", got, want)
		}
		if got, want := resp.Usage, (memory.Usage{InputTokens: 21, OutputTokens: 8}); got != want {
			t.Errorf("Usage = %+v, want %+v", got, want)
		}
		r, b := f.reqs[0], f.bodies[0]
		if got, want := r.URL.Path, "/v1/messages"; got != want {
			t.Errorf("path = %q, want %q", got, want)
		}
		if got, want := r.Header.Get("x-api-key"), testKey; got != want {
			t.Errorf("x-api-key = %q, want %q", got, want)
		}
		if got, want := r.Header.Get("anthropic-version"), "2023-06-01"; got != want {
			t.Errorf("anthropic-version = %q, want %q", got, want)
		}
		if got := r.Header.Get("anthropic-version"); got == "" {
			t.Error("no anthropic-version header")
		}
		if got, want := b["model"], "claude-test"; got != want {
			t.Errorf("model = %v, want %v", got, want)
		}
		if got, want := b["max_tokens"], float64(anthropic.DefaultMaxTokens); got != want {
			t.Errorf("max_tokens = %v, want %v", got, want)
		}
		if got, want := b["temperature"], 0.3; got != want {
			t.Errorf("temperature = %v, want %v", got, want)
		}
		sys := b["system"].([]any)[0].(map[string]any)
		if got, want := sys["text"], "Be brief."; got != want {
			t.Errorf("system = %v, want %v", got, want)
		}
		if _, ok := b["tools"]; ok {
			t.Error("tools sent without a schema or tools")
		}
	})

	t.Run("ForcedToolCall", func(t *testing.T) {
		f := newFake(t, message("tool_use", toolUse("toolu_1", "facts", `{"facts": ["Lena has a cat"]}`)))
		resp, err := f.client().Chat(t.Context(), &memory.ChatRequest{
			System:    "Extract facts.",
			Messages:  []memory.ChatMessage{{Role: memory.RoleUser, Content: "Lena adopted a cat."}},
			Schema:    factsSchema,
			MaxTokens: 1000,
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(resp.JSON), `{"facts":["Lena has a cat"]}`; got != want {
			t.Errorf("JSON = %s, want %s", got, want)
		}
		if len(resp.ToolCalls) != 0 {
			t.Errorf("ToolCalls = %+v, want none (the schema tool is the answer)", resp.ToolCalls)
		}
		b := f.bodies[0]
		if got, want := b["max_tokens"], 1000.0; got != want {
			t.Errorf("max_tokens = %v, want %v", got, want)
		}
		tools := b["tools"].([]any)
		if len(tools) != 1 {
			t.Fatalf("tools = %v, want one", tools)
		}
		tool := tools[0].(map[string]any)
		if got, want := tool["name"], "facts"; got != want {
			t.Errorf("tool name = %v, want %v", got, want)
		}
		if got, want := tool["description"], "Record the facts."; got != want {
			t.Errorf("tool description = %v, want %v", got, want)
		}
		var wantSchema any
		_ = json.Unmarshal(factsSchema.JSON, &wantSchema)
		if got := tool["input_schema"]; !reflect.DeepEqual(got, wantSchema) {
			t.Errorf("input_schema = %v, want %v", got, wantSchema)
		}
		if got, want := b["tool_choice"], map[string]any{"type": "tool", "name": "facts"}; !reflect.DeepEqual(got, want) {
			t.Errorf("tool_choice = %v, want %v", got, want)
		}
	})

	t.Run("ArraySchema", func(t *testing.T) {
		schema := &memory.Schema{Name: "ids", JSON: []byte(`{"type":"array","items":{"type":"integer"}}`)}
		f := newFake(t, message("tool_use", toolUse("toolu_1", "ids", `{"result": [1, 2]}`)))
		resp, err := f.client().Chat(t.Context(), &memory.ChatRequest{Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: "x"}}, Schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(resp.JSON), `[1,2]`; got != want {
			t.Errorf("JSON = %s, want %s", got, want)
		}
		is := f.bodies[0]["tools"].([]any)[0].(map[string]any)["input_schema"].(map[string]any)
		if got, want := is["type"], "object"; got != want {
			t.Errorf("input_schema type = %v, want %v (tool inputs are objects)", got, want)
		}
	})

	t.Run("ToolCalls", func(t *testing.T) {
		f := newFake(t, message("tool_use", text("Let me look."), toolUse("toolu_9", "recall", `{"query":"cat"}`)))
		tools := []memory.Tool{{Name: "recall", Description: "Search memory.", Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)}}
		resp, err := f.client().Chat(t.Context(), &memory.ChatRequest{
			Messages: []memory.ChatMessage{
				{Role: memory.RoleUser, Content: "What is Lena's cat called?"},
				{Role: memory.RoleAssistant, ToolCalls: []memory.ToolCall{{ID: "toolu_1", Name: "recall", Arguments: json.RawMessage(`{"query":"Lena"}`)}, {ID: "toolu_2", Name: "recall", Arguments: json.RawMessage(`{"query":"pet"}`)}}},
				{Role: memory.RoleTool, ToolCallID: "toolu_1", Content: "Lena lives in Lyon."},
				{Role: memory.RoleTool, ToolCallID: "toolu_2", Content: "no result"},
			},
			Tools: tools,
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := resp.Content, "Let me look."; got != want {
			t.Errorf("Content = %q, want %q", got, want)
		}
		if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID != "toolu_9" || resp.ToolCalls[0].Name != "recall" || string(resp.ToolCalls[0].Arguments) != `{"query":"cat"}` {
			t.Errorf("ToolCalls = %+v", resp.ToolCalls)
		}
		msgs := f.bodies[0]["messages"].([]any)
		if got, want := len(msgs), 3; got != want {
			t.Fatalf("messages = %d, want %d (tool results merged into one user turn)", got, want)
		}
		asst := msgs[1].(map[string]any)
		if got, want := asst["role"], "assistant"; got != want {
			t.Errorf("role = %v, want %v", got, want)
		}
		use := asst["content"].([]any)[0].(map[string]any)
		if use["type"] != "tool_use" || use["id"] != "toolu_1" || !reflect.DeepEqual(use["input"], map[string]any{"query": "Lena"}) {
			t.Errorf("tool_use block = %v", use)
		}
		results := msgs[2].(map[string]any)
		if got, want := results["role"], "user"; got != want {
			t.Errorf("role = %v, want %v", got, want)
		}
		blocks := results["content"].([]any)
		if len(blocks) != 2 || blocks[0].(map[string]any)["tool_use_id"] != "toolu_1" || blocks[1].(map[string]any)["tool_use_id"] != "toolu_2" {
			t.Errorf("tool results = %v", blocks)
		}
		tool := f.bodies[0]["tools"].([]any)[0].(map[string]any)
		if got, want := tool["name"], "recall"; got != want {
			t.Errorf("tool = %v, want %v", got, want)
		}
		if _, ok := f.bodies[0]["tool_choice"]; ok {
			t.Error("tool_choice forced without a schema")
		}
	})

	t.Run("ErrMalformed", func(t *testing.T) {
		for _, tt := range []struct{ name, reply, want string }{
			{"SchemaViolation", message("tool_use", toolUse("t", "facts", `{"facts": "one"}`)), "violates schema facts"},
			{"MaxTokens", message("max_tokens", toolUse("t", "facts", `{}`)), "token limit"},
			{"NoToolCall", message("end_turn", text("I won't use tools.")), "no facts tool call"},
			{"Truncated", `{"id":"msg_1","type":"message","content":[{"type":"te`, "unreadable response"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				f := newFake(t, tt.reply)
				_, err := f.client().Chat(t.Context(), &memory.ChatRequest{Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: "x"}}, Schema: factsSchema})
				if !errors.Is(err, provider.ErrMalformed) {
					t.Fatalf("err = %v, want ErrMalformed", err)
				}
				if !strings.Contains(err.Error(), tt.want) {
					t.Errorf("err = %q, want it to mention %q", err, tt.want)
				}
			})
		}
	})

	t.Run("TextFallback", func(t *testing.T) {
		f := newFake(t, message("end_turn", text("```json\n{\"facts\": []}\n```")))
		resp, err := f.client().Chat(t.Context(), &memory.ChatRequest{Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: "x"}}, Schema: factsSchema})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(resp.JSON), `{"facts":[]}`; got != want {
			t.Errorf("JSON = %s, want %s", got, want)
		}
	})

	t.Run("Errors", func(t *testing.T) {
		for _, tt := range []struct {
			status int
			code   string
		}{
			{400, memory.EINVALID},
			{401, memory.EUNAUTHORIZED},
			{429, memory.EUNAVAILABLE},
			{500, memory.EUNAVAILABLE},
			{529, memory.EUNAVAILABLE},
		} {
			f := newFake(t, `{"type":"error","error":{"type":"some_error","message":"refused key `+testKey+`"}}`)
			f.status = tt.status
			f.header = map[string]string{"Retry-After": "2"}
			_, err := f.client().Chat(t.Context(), &memory.ChatRequest{Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: "x"}}})
			if got := memory.ErrorCode(err); got != tt.code {
				t.Errorf("HTTP %d: code = %q, want %q (%v)", tt.status, got, tt.code, err)
			}
			if err != nil && strings.Contains(err.Error(), testKey) {
				t.Errorf("HTTP %d: error %q contains the API key", tt.status, err)
			}
			if got, want := len(f.reqs), 1; got != want {
				t.Errorf("HTTP %d: requests = %d, want %d (no client retries)", tt.status, got, want)
			}
		}
	})
}
