package openai_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/provider/openai"
)

const testKey = "sk-test-0123456789abcdef"

var factsSchema = &memory.Schema{Name: "facts", Description: "Facts in the text.", JSON: []byte(`{
	"type": "object",
	"properties": {"facts": {"type": "array", "items": {"type": "string"}}},
	"required": ["facts"],
	"additionalProperties": false
}`)}

func newClient(t *testing.T) (*llmtest.Server, *openai.Client) {
	t.Helper()
	s := llmtest.NewServer()
	t.Cleanup(s.Close)
	return s, openai.New(openai.Config{BaseURL: s.URL(), APIKey: testKey, Model: "gpt-test", Headers: map[string]string{"X-Title": "mnemo"}})
}

func factsReq() *memory.ChatRequest {
	return &memory.ChatRequest{
		Stage:    "extract",
		System:   "Extract facts.",
		Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: "Lena adopted a cat named Miso."}},
		Schema:   factsSchema,
	}
}

// body decodes a recorded request body.
func body(t *testing.T, r llmtest.Request) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body %s: %v", r.Body, err)
	}
	return m
}

func TestClient_Name(t *testing.T) {
	if got, want := openai.New(openai.Config{Model: "gpt-4o-mini"}).Name(), "openai:gpt-4o-mini"; got != want {
		t.Errorf("Name = %q, want %q", got, want)
	}
}

func TestClient_Chat(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		s, c := newClient(t)
		s.On(llmtest.Rule{Reply: llmtest.Reply{Content: "<think>they said hi</think>\nHello Lena!", Usage: memory.Usage{InputTokens: 9, OutputTokens: 3}}})
		resp, err := c.Chat(t.Context(), &memory.ChatRequest{
			System:      "Be brief.",
			Messages:    []memory.ChatMessage{{Role: memory.RoleUser, Content: "hi"}, {Role: memory.RoleAssistant, Content: "hello"}, {Role: memory.RoleUser, Content: "I am Lena"}},
			MaxTokens:   100,
			Temperature: 0.2,
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := resp.Content, "Hello Lena!"; got != want {
			t.Errorf("Content = %q, want %q", got, want)
		}
		if got, want := resp.Usage, (memory.Usage{InputTokens: 9, OutputTokens: 3}); got != want {
			t.Errorf("Usage = %+v, want %+v", got, want)
		}
		reqs := s.Requests()
		if len(reqs) != 1 {
			t.Fatalf("requests = %d, want 1", len(reqs))
		}
		r := reqs[0]
		if got, want := r.Path, "/v1/chat/completions"; got != want {
			t.Errorf("path = %q, want %q", got, want)
		}
		if got, want := r.Header.Get("Authorization"), "Bearer "+testKey; got != want {
			t.Errorf("Authorization = %q, want %q", got, want)
		}
		if got, want := r.Header.Get("X-Title"), "mnemo"; got != want {
			t.Errorf("X-Title = %q, want %q", got, want)
		}
		if got, want := r.Model, "gpt-test"; got != want {
			t.Errorf("model = %q, want %q", got, want)
		}
		if got, want := r.System, "Be brief."; got != want {
			t.Errorf("system = %q, want %q", got, want)
		}
		wantMsgs := []llmtest.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "hi"}, {Role: "assistant", Content: "hello"}, {Role: "user", Content: "I am Lena"}}
		if got := r.Messages; len(got) != len(wantMsgs) {
			t.Fatalf("messages = %v, want %v", got, wantMsgs)
		}
		for i, m := range wantMsgs {
			if r.Messages[i] != m {
				t.Errorf("message %d = %v, want %v", i, r.Messages[i], m)
			}
		}
		b := body(t, r)
		if got, want := b["max_tokens"], 100.0; got != want {
			t.Errorf("max_tokens = %v, want %v", got, want)
		}
		if got, want := b["temperature"], 0.2; got != want {
			t.Errorf("temperature = %v, want %v", got, want)
		}
		if _, ok := b["response_format"]; ok {
			t.Errorf("response_format sent without a schema")
		}
	})

	t.Run("Schema", func(t *testing.T) {
		s, c := newClient(t)
		s.On(llmtest.Rule{Schema: "facts", Reply: llmtest.Reply{Content: "<think>one fact</think>{\"facts\": [\"Lena has a cat\"]}"}})
		resp, err := c.Chat(t.Context(), factsReq())
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(resp.JSON), `{"facts":["Lena has a cat"]}`; got != want {
			t.Errorf("JSON = %s, want %s", got, want)
		}
		r := s.Requests()[0]
		if got, want := r.ResponseFormat, "json_schema"; got != want {
			t.Errorf("response_format = %q, want %q", got, want)
		}
		rf := body(t, r)["response_format"].(map[string]any)["json_schema"].(map[string]any)
		if got, want := rf["strict"], true; got != want {
			t.Errorf("strict = %v, want %v", got, want)
		}
		if got, want := rf["description"], "Facts in the text."; got != want {
			t.Errorf("description = %v, want %v", got, want)
		}
		var want any
		_ = json.Unmarshal(factsSchema.JSON, &want)
		if !reflect.DeepEqual(rf["schema"], want) {
			t.Errorf("schema = %v, want %v", rf["schema"], want)
		}
		if got := r.System; got != "Extract facts." {
			t.Errorf("system = %q, want the caller's prompt only", got)
		}
	})

	t.Run("FallbackChain", func(t *testing.T) {
		s, c := newClient(t)
		s.RejectJSONSchema(true)
		s.RejectJSONObject(true)
		s.On(llmtest.Rule{Schema: "facts", Reply: llmtest.Reply{Content: "Sure, here they are:\n```json\n{\"facts\": [\"Lena has a cat\"]}\n```"}})
		for range 2 {
			resp, err := c.Chat(t.Context(), factsReq())
			if err != nil {
				t.Fatal(err)
			}
			if got, want := string(resp.JSON), `{"facts":["Lena has a cat"]}`; got != want {
				t.Errorf("JSON = %s, want %s", got, want)
			}
		}
		var got []string
		for _, r := range s.Requests() {
			got = append(got, r.ResponseFormat)
		}
		want := []string{"json_schema", "json_object", "", ""} // the second call remembers
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("response formats = %q, want %q", got, want)
		}
		last := s.Requests()[3]
		if !strings.HasPrefix(last.System, "Extract facts.\n\n") || !strings.Contains(last.System, provider.SchemaPrompt(factsSchema)) {
			t.Errorf("system = %q, want the caller's prompt and the schema prompt", last.System)
		}
	})

	t.Run("FallbackJSONObject", func(t *testing.T) {
		s, c := newClient(t)
		s.RejectJSONSchema(true)
		s.On(llmtest.Rule{Schema: "facts", Match: func(r llmtest.Request) bool { return r.ResponseFormat == "json_object" },
			Reply: llmtest.Reply{JSON: map[string]any{"facts": []string{"x"}}}})
		if _, err := c.Chat(t.Context(), factsReq()); err != nil {
			t.Fatal(err)
		}
		if got, want := len(s.Requests()), 2; got != want {
			t.Errorf("requests = %d, want %d", got, want)
		}
	})

	t.Run("FallbackOn500", func(t *testing.T) {
		s, c := newClient(t)
		s.On(llmtest.Rule{Match: func(r llmtest.Request) bool { return r.ResponseFormat == "json_schema" },
			Reply: llmtest.Reply{Status: 500, Content: "Unsupported response_format type: json_schema"}})
		s.On(llmtest.Rule{Schema: "facts", Reply: llmtest.Reply{JSON: map[string]any{"facts": []string{"x"}}}})
		if _, err := c.Chat(t.Context(), factsReq()); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range s.Requests() {
			got = append(got, r.ResponseFormat)
		}
		if want := []string{"json_schema", "json_object"}; !reflect.DeepEqual(got, want) {
			t.Errorf("response formats = %q, want %q", got, want)
		}
	})

	t.Run("ToolCalls", func(t *testing.T) {
		s, c := newClient(t)
		s.On(llmtest.Rule{Match: func(r llmtest.Request) bool { return r.Messages[len(r.Messages)-1].Role == "user" },
			Reply: llmtest.Reply{ToolCalls: []memory.ToolCall{{ID: "call_7", Name: "recall", Arguments: json.RawMessage(`{"query":"cat"}`)}}}})
		s.On(llmtest.Rule{Contains: "Miso is a cat", Reply: llmtest.Reply{Content: "Lena's cat is Miso."}})
		tools := []memory.Tool{{Name: "recall", Description: "Search memory.", Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)}}
		req := &memory.ChatRequest{Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: "What is Lena's cat called?"}}, Tools: tools}
		resp, err := c.Chat(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.ToolCalls) != 1 {
			t.Fatalf("ToolCalls = %+v, want one", resp.ToolCalls)
		}
		tc := resp.ToolCalls[0]
		if tc.ID != "call_7" || tc.Name != "recall" || string(tc.Arguments) != `{"query":"cat"}` {
			t.Errorf("ToolCall = %+v", tc)
		}
		if got := s.Requests()[0].Tools; len(got) != 1 || got[0] != "recall" {
			t.Errorf("tools = %v, want [recall]", got)
		}

		req.Messages = append(req.Messages,
			memory.ChatMessage{Role: memory.RoleAssistant, ToolCalls: resp.ToolCalls},
			memory.ChatMessage{Role: memory.RoleTool, ToolCallID: tc.ID, Content: "Miso is a cat owned by Lena."})
		resp, err = c.Chat(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := resp.Content, "Lena's cat is Miso."; got != want {
			t.Errorf("Content = %q, want %q", got, want)
		}
		msgs := body(t, s.Requests()[1])["messages"].([]any)
		asst := msgs[1].(map[string]any)
		calls := asst["tool_calls"].([]any)
		fn := calls[0].(map[string]any)["function"].(map[string]any)
		if calls[0].(map[string]any)["id"] != "call_7" || fn["name"] != "recall" || fn["arguments"] != `{"query":"cat"}` {
			t.Errorf("assistant tool call sent as %v", calls[0])
		}
		tool := msgs[2].(map[string]any)
		if tool["role"] != "tool" || tool["tool_call_id"] != "call_7" {
			t.Errorf("tool message sent as %v", tool)
		}
	})

	t.Run("TemperatureRejected", func(t *testing.T) {
		s, c := newClient(t)
		s.On(llmtest.Rule{Match: func(r llmtest.Request) bool { return bytes.Contains(r.Body, []byte(`"temperature"`)) },
			Reply: llmtest.Reply{Status: 400, Content: "Unsupported value: 'temperature' does not support 0 with this model."}})
		s.On(llmtest.Rule{Reply: llmtest.Reply{Content: "ok"}})
		for range 2 {
			if _, err := c.Chat(t.Context(), &memory.ChatRequest{Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: "hi"}}}); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := len(s.Requests()), 3; got != want {
			t.Errorf("requests = %d, want %d (one rejection, remembered)", got, want)
		}
	})

	t.Run("MaxCompletionTokens", func(t *testing.T) {
		s, c := newClient(t)
		s.On(llmtest.Rule{Match: func(r llmtest.Request) bool { return bytes.Contains(r.Body, []byte(`"max_tokens"`)) },
			Reply: llmtest.Reply{Status: 400, Content: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."}})
		s.On(llmtest.Rule{Reply: llmtest.Reply{Content: "ok"}})
		if _, err := c.Chat(t.Context(), &memory.ChatRequest{MaxTokens: 50, Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: "hi"}}}); err != nil {
			t.Fatal(err)
		}
		if got, want := body(t, s.Requests()[1])["max_completion_tokens"], 50.0; got != want {
			t.Errorf("max_completion_tokens = %v, want %v", got, want)
		}
	})

	t.Run("ErrMalformed", func(t *testing.T) {
		for _, tt := range []struct {
			name  string
			reply llmtest.Reply
			want  string
		}{
			{"TruncatedContent", llmtest.Reply{JSON: map[string]any{"facts": []string{"a", "b"}}, TruncateContent: true}, "token limit"},
			{"TruncatedBody", llmtest.Reply{JSON: map[string]any{"facts": []string{"a"}}, TruncateBody: true}, "unreadable response"},
			{"SchemaViolation", llmtest.Reply{JSON: map[string]any{"facts": []int{1}}}, "violates schema facts"},
			{"NoJSON", llmtest.Reply{Content: "<think>{\"facts\":[]}</think>No facts."}, "no JSON"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				s, c := newClient(t)
				s.On(llmtest.Rule{Reply: tt.reply})
				resp, err := c.Chat(t.Context(), factsReq())
				if !errors.Is(err, provider.ErrMalformed) {
					t.Fatalf("err = %v, want ErrMalformed", err)
				}
				if got, want := memory.ErrorCode(err), memory.EINVALID; got != want {
					t.Errorf("code = %q, want %q", got, want)
				}
				if !strings.Contains(err.Error(), tt.want) {
					t.Errorf("err = %q, want it to mention %q", err, tt.want)
				}
				if tt.name != "TruncatedBody" && resp == nil {
					t.Error("no response with the usage")
				}
			})
		}
	})

	t.Run("Errors", func(t *testing.T) {
		for _, tt := range []struct {
			status int
			code   string
		}{
			{400, memory.EINVALID},
			{401, memory.EUNAUTHORIZED},
			{403, memory.EUNAUTHORIZED},
			{404, memory.ENOTFOUND},
			{429, memory.EUNAVAILABLE},
			{500, memory.EUNAVAILABLE},
			{503, memory.EUNAVAILABLE},
		} {
			t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
				s, c := newClient(t)
				s.On(llmtest.Rule{Reply: llmtest.Reply{Status: tt.status, Content: "request with key " + testKey + " refused", RetryAfter: 1500 * time.Millisecond}})
				_, err := c.Chat(t.Context(), factsReq())
				if got := memory.ErrorCode(err); got != tt.code {
					t.Fatalf("code = %q, want %q (%v)", got, tt.code, err)
				}
				if strings.Contains(err.Error(), testKey) {
					t.Errorf("error %q contains the API key", err)
				}
				want := fmt.Sprintf("HTTP %d", tt.status) + ": request with key [redacted] refused"
				if got := memory.ErrorMessage(err); got != want {
					t.Errorf("message = %q, want %q", got, want)
				}
				var pe *provider.Error
				if !errors.As(err, &pe) {
					t.Fatalf("err %T is not a *provider.Error", err)
				}
				if got, want := pe.RetryAfter(), 1500*time.Millisecond; got != want {
					t.Errorf("RetryAfter = %v, want %v", got, want)
				}
				if got := len(s.Requests()); got != 1 {
					t.Errorf("requests = %d, want 1 (no client retries)", got)
				}
			})
		}
	})

	t.Run("ErrNoRule", func(t *testing.T) {
		_, c := newClient(t)
		_, err := c.Chat(t.Context(), factsReq())
		if !strings.Contains(err.Error(), llmtest.NoRuleMessage) {
			t.Errorf("err = %v, want %q", err, llmtest.NoRuleMessage)
		}
	})

	t.Run("ErrConnection", func(t *testing.T) {
		s, c := newClient(t)
		s.Close()
		_, err := c.Chat(t.Context(), factsReq())
		if got, want := memory.ErrorCode(err), memory.EUNAVAILABLE; got != want {
			t.Errorf("code = %q, want %q (%v)", got, want, err)
		}
		if got := memory.ErrorMessage(err); !strings.HasPrefix(got, "connection failed: dial tcp ") {
			t.Errorf("message = %q, want a failed connection", got)
		}
	})

	t.Run("ErrInvalidRequest", func(t *testing.T) {
		_, c := newClient(t)
		_, err := c.Chat(t.Context(), &memory.ChatRequest{Messages: []memory.ChatMessage{{Role: "system", Content: "x"}}})
		if got, want := memory.ErrorCode(err), memory.EINVALID; got != want {
			t.Errorf("code = %q, want %q (%v)", got, want, err)
		}
		_, err = openai.New(openai.Config{BaseURL: "http://127.0.0.1:1/v1"}).Chat(t.Context(), factsReq())
		if got, want := memory.ErrorCode(err), memory.EINVALID; got != want {
			t.Errorf("no model: code = %q, want %q (%v)", got, want, err)
		}
	})
}
