package llmtest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
)

// post sends a JSON body and returns the status and decoded answer.
func post(t *testing.T, url string, body any) (int, map[string]any, http.Header) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return resp.StatusCode, m, resp.Header
}

func chat(content string, extra map[string]any) map[string]any {
	b := map[string]any{"model": "m", "messages": []any{
		map[string]any{"role": "system", "content": "You extract."},
		map[string]any{"role": "user", "content": content},
	}}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

func answer(m map[string]any) (content, finish string) {
	c := m["choices"].([]any)[0].(map[string]any)
	msg := c["message"].(map[string]any)
	s, _ := msg["content"].(string)
	return s, c["finish_reason"].(string)
}

func TestServer_URL(t *testing.T) {
	s := llmtest.NewServer()
	defer s.Close()
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") || !strings.HasSuffix(s.URL(), "/v1") {
		t.Errorf("URL = %q", s.URL())
	}
}

func TestServer_On(t *testing.T) {
	t.Run("Order", func(t *testing.T) {
		s := llmtest.NewServer()
		defer s.Close()
		s.On(llmtest.Rule{Contains: "cat", Times: 1, Reply: llmtest.Reply{Content: "first"}}).
			On(llmtest.Rule{Contains: "cat", Reply: llmtest.Reply{Content: "second"}}).
			On(llmtest.Rule{Reply: llmtest.Reply{Content: "fallback"}})
		for _, tt := range []struct{ in, want string }{
			{"a cat", "first"}, {"a cat", "second"}, {"a cat", "second"}, {"a dog", "fallback"},
		} {
			_, m, _ := post(t, s.URL()+"/chat/completions", chat(tt.in, nil))
			if got, _ := answer(m); got != tt.want {
				t.Errorf("%q answered %q, want %q", tt.in, got, tt.want)
			}
		}
	})

	t.Run("Schema", func(t *testing.T) {
		s := llmtest.NewServer()
		defer s.Close()
		s.On(llmtest.Rule{Schema: "facts", Reply: llmtest.Reply{JSON: map[string]any{"facts": []string{}}}})
		s.On(llmtest.Rule{Schema: "conflicts", Reply: llmtest.Reply{JSON: map[string]any{"decisions": []string{}}}})
		rf := map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "conflicts", "schema": map[string]any{}}}
		_, m, _ := post(t, s.URL()+"/chat/completions", chat("x", map[string]any{"response_format": rf}))
		if got, _ := answer(m); got != `{"decisions":[]}` {
			t.Errorf("answer = %q", got)
		}
		// In the fallbacks the schema name comes from provider.SchemaPrompt.
		sp := provider.SchemaPrompt(&memory.Schema{Name: "facts", JSON: []byte(`{"type":"object"}`)})
		body := map[string]any{"model": "m", "messages": []any{map[string]any{"role": "system", "content": "Extract.\n\n" + sp}, map[string]any{"role": "user", "content": "x"}}}
		_, m, _ = post(t, s.URL()+"/chat/completions", body)
		if got, _ := answer(m); got != `{"facts":[]}` {
			t.Errorf("answer = %q", got)
		}
		reqs := s.Requests()
		if got, want := reqs[0].ResponseFormat+"/"+reqs[0].Schema, "json_schema/conflicts"; got != want {
			t.Errorf("request 0 = %q, want %q", got, want)
		}
		if got, want := reqs[1].ResponseFormat+"/"+reqs[1].Schema, "/facts"; got != want {
			t.Errorf("request 1 = %q, want %q", got, want)
		}
	})

	t.Run("ErrNoRule", func(t *testing.T) {
		s := llmtest.NewServer()
		defer s.Close()
		status, m, _ := post(t, s.URL()+"/chat/completions", chat("x", nil))
		if got, want := status, 500; got != want {
			t.Errorf("status = %d, want %d", got, want)
		}
		if got := m["error"].(map[string]any)["message"]; got != llmtest.NoRuleMessage {
			t.Errorf("message = %v, want %q", got, llmtest.NoRuleMessage)
		}
	})

	t.Run("Reply", func(t *testing.T) {
		s := llmtest.NewServer()
		defer s.Close()
		s.On(llmtest.Rule{Contains: "status", Reply: llmtest.Reply{Status: 429, Content: "slow down", RetryAfter: 1500 * time.Millisecond}})
		s.On(llmtest.Rule{Contains: "truncate", Reply: llmtest.Reply{JSON: map[string]any{"a": "bcdefgh"}, TruncateContent: true}})
		s.On(llmtest.Rule{Contains: "tools", Reply: llmtest.Reply{ToolCalls: []memory.ToolCall{{Name: "recall", Arguments: json.RawMessage(`{"q":1}`)}}}})
		s.On(llmtest.Rule{Contains: "usage", Reply: llmtest.Reply{Content: "ok", Usage: memory.Usage{InputTokens: 3, OutputTokens: 4}}})

		status, m, h := post(t, s.URL()+"/chat/completions", chat("status", nil))
		if status != 429 || m["error"].(map[string]any)["message"] != "slow down" {
			t.Errorf("status reply = %d %v", status, m)
		}
		if got, want := h.Get("Retry-After"), "2"; got != want {
			t.Errorf("Retry-After = %q, want %q", got, want)
		}
		if got, want := h.Get("Retry-After-Ms"), "1500"; got != want {
			t.Errorf("Retry-After-Ms = %q, want %q", got, want)
		}

		_, m, _ = post(t, s.URL()+"/chat/completions", chat("truncate", nil))
		if content, finish := answer(m); content != `{"a":"b` || finish != "length" {
			t.Errorf("truncated = %q, %q", content, finish)
		}

		_, m, _ = post(t, s.URL()+"/chat/completions", chat("tools", nil))
		msg := m["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
		call := msg["tool_calls"].([]any)[0].(map[string]any)
		fn := call["function"].(map[string]any)
		if call["id"] == "" || fn["name"] != "recall" || fn["arguments"] != `{"q":1}` {
			t.Errorf("tool call = %v", call)
		}

		_, m, _ = post(t, s.URL()+"/chat/completions", chat("usage", nil))
		u := m["usage"].(map[string]any)
		if u["prompt_tokens"] != 3.0 || u["completion_tokens"] != 4.0 {
			t.Errorf("usage = %v", u)
		}
	})

	t.Run("TruncateBody", func(t *testing.T) {
		s := llmtest.NewServer()
		defer s.Close()
		s.On(llmtest.Rule{Reply: llmtest.Reply{Content: "ok", TruncateBody: true}})
		b, _ := json.Marshal(chat("x", nil))
		resp, err := http.Post(s.URL()+"/chat/completions", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if json.Valid(raw) || len(raw) == 0 {
			t.Errorf("body %q is valid JSON", raw)
		}
	})

	t.Run("HangReleasedByClose", func(t *testing.T) {
		s := llmtest.NewServer()
		s.On(llmtest.Rule{Reply: llmtest.Reply{Hang: true}})
		done := make(chan struct{})
		go func() {
			defer close(done)
			b, _ := json.Marshal(chat("x", nil))
			resp, err := http.Post(s.URL()+"/chat/completions", "application/json", bytes.NewReader(b))
			if err == nil {
				resp.Body.Close()
			}
		}()
		for len(s.Requests()) == 0 {
			time.Sleep(time.Millisecond)
		}
		s.Close()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatal("hanging request not released by Close")
		}
	})
}

func TestServer_Reject(t *testing.T) {
	s := llmtest.NewServer()
	defer s.Close()
	s.RejectJSONSchema(true)
	s.RejectJSONObject(true)
	s.On(llmtest.Rule{Reply: llmtest.Reply{Content: "ok"}})
	for _, typ := range []string{"json_schema", "json_object"} {
		rf := map[string]any{"type": typ}
		if typ == "json_schema" {
			rf["json_schema"] = map[string]any{"name": "x"}
		}
		status, m, _ := post(t, s.URL()+"/chat/completions", chat("x", map[string]any{"response_format": rf}))
		if status != 400 || !strings.Contains(m["error"].(map[string]any)["message"].(string), "response_format "+typ) {
			t.Errorf("%s: %d %v, want a 400 about response_format", typ, status, m)
		}
	}
	if status, _, _ := post(t, s.URL()+"/chat/completions", chat("x", nil)); status != 200 {
		t.Errorf("plain request: status %d, want 200", status)
	}
}

func TestServer_Requests(t *testing.T) {
	s := llmtest.NewServer()
	defer s.Close()
	s.On(llmtest.Rule{Reply: llmtest.Reply{Content: "ok"}})
	body := chat("hello", map[string]any{"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "recall"}}}})
	post(t, s.URL()+"/chat/completions", body)
	r := s.Requests()[0]
	if r.Path != llmtest.PathChat || r.Model != "m" || r.System != "You extract." || len(r.Messages) != 2 || r.Messages[1] != (llmtest.Message{Role: "user", Content: "hello"}) {
		t.Errorf("request = %+v", r)
	}
	if len(r.Tools) != 1 || r.Tools[0] != "recall" {
		t.Errorf("tools = %v", r.Tools)
	}
	if got := len(s.ChatRequests()); got != 1 {
		t.Errorf("ChatRequests = %d, want 1", got)
	}
	s.Reset()
	if got := len(s.Requests()); got != 0 {
		t.Errorf("after Reset: %d requests", got)
	}
}

func TestServer_Embeddings(t *testing.T) {
	s := llmtest.NewServer()
	defer s.Close()
	_, m, _ := post(t, s.URL()+"/embeddings", map[string]any{"model": "e", "input": []string{"a", "b"}})
	data := m["data"].([]any)
	if len(data) != 2 {
		t.Fatalf("data = %v", data)
	}
	v := data[1].(map[string]any)["embedding"].([]any)
	if got, want := len(v), llmtest.DefaultDimension; got != want {
		t.Errorf("dimension = %d, want %d", got, want)
	}
	var norm float64
	for i, x := range v {
		norm += x.(float64) * x.(float64)
		if float32(x.(float64)) != llmtest.Vector("b", llmtest.DefaultDimension)[i] {
			t.Fatalf("vector differs from Vector(%q)", "b")
		}
	}
	if math.Abs(norm-1) > 1e-5 {
		t.Errorf("norm = %v, want 1", norm)
	}
	s.SetDimension(5)
	_, m, _ = post(t, s.URL()+"/embeddings", map[string]any{"model": "e", "input": "one"})
	if got := len(m["data"].([]any)[0].(map[string]any)["embedding"].([]any)); got != 5 {
		t.Errorf("dimension = %d, want 5", got)
	}
	if got := s.Requests()[1].Input; len(got) != 1 || got[0] != "one" {
		t.Errorf("input = %v", got)
	}
}

func TestVector(t *testing.T) {
	a, b := llmtest.Vector("x", 16), llmtest.Vector("x", 16)
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("Vector is not deterministic")
		}
	}
	c := llmtest.Vector("y", 16)
	same := true
	for i := range a {
		same = same && a[i] == c[i]
	}
	if same {
		t.Error("different texts, same vector")
	}
}

func TestServer_Models(t *testing.T) {
	s := llmtest.NewServer()
	defer s.Close()
	resp, err := http.Get(s.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if len(m.Data) != 1 || m.Data[0].ID != llmtest.DefaultModel {
		t.Errorf("models = %+v", m)
	}
}

// TestRespond: a rule's Respond reads the request and computes the
// answer; with recording off the server keeps no request but counts it.
func TestRespond(t *testing.T) {
	s := llmtest.NewServer()
	defer s.Close()
	s.On(llmtest.Rule{Respond: func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: "echo: " + r.Messages[len(r.Messages)-1].Content}
	}})
	s.SetRecording(false)
	for _, word := range []string{"one", "two"} {
		body := `{"model":"m","messages":[{"role":"user","content":"` + word + `"}]}`
		resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), "echo: "+word) {
			t.Errorf("reply to %q: %s", word, b)
		}
	}
	if n := len(s.Requests()); n != 0 || s.Served() != 2 {
		t.Errorf("recording off: %d requests kept, %d served; want 0 and 2", n, s.Served())
	}
}
