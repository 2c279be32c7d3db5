// Package openai is the client for OpenAI-compatible chat and embedding
// APIs: OpenAI itself and, by base URL, Ollama (/v1), vLLM, llama.cpp
// server, LM Studio and OpenRouter. It speaks the REST API directly with
// net/http and encoding/json (the official SDK added 8 MB of resident
// memory and 25 MB of binary to every mnemo process, started or not): one
// request per call, no retries; retries, timeouts and the concurrency cap
// live in provider.Guard.
//
// Structured output degrades by what the server accepts: response_format
// json_schema first, then json_object with the schema in the system
// prompt, then a plain prompt whose answer is parsed out of free text.
// Every answer is checked against the request's schema.
//
// The package never reads the environment; configuration comes from
// [Config] and [EmbedConfig].
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
)

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1"

// Structured-output modes, from the strictest to the most lenient.
const (
	modeJSONSchema int32 = iota // response_format json_schema, strict
	modeJSONObject              // response_format json_object + schema prompt
	modePrompt                  // schema prompt only, JSON parsed from text
)

// Config configures a chat [Client].
type Config struct {
	// BaseURL of the API, up to and including the version, e.g.
	// "http://localhost:11434/v1" for Ollama. Default [DefaultBaseURL].
	BaseURL string
	// APIKey is sent as a bearer token; empty sends none (local servers).
	APIKey string
	// Model is the model id; required.
	Model string
	// HTTPClient makes the requests; nil means a client without a timeout
	// (each call's context bounds it).
	HTTPClient *http.Client
	// Headers are added to every request (e.g. OpenRouter's
	// HTTP-Referer).
	Headers map[string]string
}

// Client is an OpenAI-compatible chat model; it implements [memory.LLM].
// It is safe for concurrent use. It remembers which structured-output mode
// and parameters the server accepts, so a fallback is paid once.
type Client struct {
	cfg    Config
	url    string      // BaseURL + "/chat/completions"
	header http.Header // authorization and the configured headers

	mode             atomic.Int32 // modeJSONSchema, modeJSONObject or modePrompt
	noTemperature    atomic.Bool  // the model rejects "temperature"
	completionTokens atomic.Bool  // send max_completion_tokens, not max_tokens
}

var _ memory.LLM = (*Client)(nil)

// New returns a chat client for cfg, filling BaseURL with
// [DefaultBaseURL] when empty. It makes no request.
func New(cfg Config) *Client {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	return &Client{cfg: cfg, url: endpoint(cfg.BaseURL, "chat/completions"), header: headers(cfg.APIKey, cfg.Headers)}
}

// endpoint joins the base URL and a path.
func endpoint(baseURL, path string) string {
	return strings.TrimRight(baseURL, "/") + "/" + path
}

// headers returns the headers every request carries: the key as a bearer
// token (none when empty) and the configured extras.
func headers(apiKey string, extra map[string]string) http.Header {
	h := http.Header{}
	for k, v := range extra {
		h.Set(k, v)
	}
	if apiKey != "" {
		h.Set("Authorization", "Bearer "+apiKey)
	}
	return h
}

// Name returns "openai:" followed by the model.
func (c *Client) Name() string { return "openai:" + c.cfg.Model }

// Chat sends req and returns the reply with <think> blocks removed.
//
// With req.Schema set, the reply's JSON is the validated document; the
// request uses the strictest structured-output mode the server has not
// rejected (json_schema, then json_object, then a plain prompt). An
// answer that cannot be parsed, violates the schema or was cut at the
// token limit is an EINVALID [provider.Error] wrapping
// [provider.ErrMalformed]; it comes with a response holding the raw
// Content and Usage so the tokens can still be counted.
//
// Errors: EUNAVAILABLE for 429, 5xx, timeouts and connection failures
// (with the server's Retry-After hint), EUNAUTHORIZED for 401/403,
// ENOTFOUND for 404 (wrong model or base URL), EINVALID for other
// refusals. Messages are one line and never contain the API key.
func (c *Client) Chat(ctx context.Context, req *memory.ChatRequest) (*memory.ChatResponse, error) {
	if req == nil {
		return nil, memory.Errorf(memory.EINVALID, "chat: nil request")
	}
	if c.cfg.Model == "" {
		return nil, memory.Errorf(memory.EINVALID, "chat: no model configured")
	}
	for {
		mode := c.mode.Load()
		params, err := c.params(req, mode)
		if err != nil {
			return nil, err
		}
		comp, err := c.send(ctx, params)
		if err == nil {
			return c.reply(req, comp)
		}
		var pe *provider.Error
		if !errors.As(err, &pe) {
			return nil, err
		}
		msg := strings.ToLower(pe.Message)
		switch {
		case req.Schema != nil && mode < modePrompt && formatRejected(pe.Status, msg):
			c.mode.CompareAndSwap(mode, mode+1)
		case rejected(pe.Status) && req.MaxTokens > 0 && !c.completionTokens.Load() && strings.Contains(msg, "max_completion_tokens"):
			c.completionTokens.Store(true)
		case rejected(pe.Status) && !c.noTemperature.Load() && strings.Contains(msg, "temperature"):
			c.noTemperature.Store(true)
		default:
			return nil, err
		}
	}
}

// rejected reports whether an HTTP status says the server refused the
// request itself (as opposed to the key, the model or its capacity).
func rejected(status int) bool {
	return status == http.StatusBadRequest || status == http.StatusUnprocessableEntity ||
		status == http.StatusNotImplemented
}

// formatRejected reports whether a failure says the server does not
// support the response_format sent. Some servers answer 500 rather than
// 400 for an unknown format, and OpenRouter 404 when no backend of the
// model supports the parameters.
func formatRejected(status int, msg string) bool {
	switch {
	case rejected(status), status == http.StatusInternalServerError:
		for _, s := range []string{"response_format", "response format", "json_schema", "json schema", "json_object", "structured output", "json mode"} {
			if strings.Contains(msg, s) {
				return true
			}
		}
	case status == http.StatusNotFound:
		return strings.Contains(msg, "no endpoints found")
	}
	return false
}

// The request and reply of /chat/completions, as far as mnemo uses them.
type (
	chatRequest struct {
		Model               string          `json:"model"`
		Messages            []chatMessage   `json:"messages"`
		Tools               []chatTool      `json:"tools,omitempty"`
		ResponseFormat      *responseFormat `json:"response_format,omitempty"`
		MaxTokens           int             `json:"max_tokens,omitempty"`
		MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
		Temperature         *float64        `json:"temperature,omitempty"`
	}
	chatMessage struct {
		Role       string     `json:"role"`
		Content    *string    `json:"content,omitempty"`
		ToolCalls  []toolCall `json:"tool_calls,omitempty"`
		ToolCallID string     `json:"tool_call_id,omitempty"`
	}
	toolCall struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	chatTool struct {
		Type     string       `json:"type"`
		Function functionSpec `json:"function"`
	}
	functionSpec struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	responseFormat struct {
		Type       string      `json:"type"`
		JSONSchema *jsonSchema `json:"json_schema,omitempty"`
	}
	jsonSchema struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Schema      json.RawMessage `json:"schema"`
		Strict      bool            `json:"strict"`
	}
	chatCompletion struct {
		Choices []struct {
			Message struct {
				Content   *string `json:"content"`
				Refusal   string  `json:"refusal"`
				ToolCalls []struct {
					ID       string `json:"id"`
					Type     string `json:"type"`
					Function struct {
						Name string `json:"name"`
						// Arguments is a JSON string holding an object;
						// some servers (Ollama) send the object itself.
						Arguments json.RawMessage `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
)

// text returns a pointer to s, for a message's content.
func text(s string) *string { return &s }

// params builds the request for req in the given mode.
func (c *Client) params(req *memory.ChatRequest, mode int32) (*chatRequest, error) {
	p := &chatRequest{Model: c.cfg.Model}
	system := req.System
	if req.Schema != nil && mode != modeJSONSchema {
		if system != "" {
			system += "\n\n"
		}
		system += provider.SchemaPrompt(req.Schema)
	}
	if system != "" {
		p.Messages = append(p.Messages, chatMessage{Role: "system", Content: text(system)})
	}
	for i, m := range req.Messages {
		switch m.Role {
		case memory.RoleUser:
			p.Messages = append(p.Messages, chatMessage{Role: "user", Content: text(m.Content)})
		case memory.RoleAssistant:
			a := chatMessage{Role: "assistant"}
			if m.Content != "" || len(m.ToolCalls) == 0 {
				a.Content = text(m.Content)
			}
			for _, tc := range m.ToolCalls {
				call := toolCall{ID: tc.ID, Type: "function"}
				call.Function.Name = tc.Name
				call.Function.Arguments = string(tc.Arguments)
				if call.Function.Arguments == "" {
					call.Function.Arguments = "{}"
				}
				a.ToolCalls = append(a.ToolCalls, call)
			}
			p.Messages = append(p.Messages, a)
		case memory.RoleTool:
			p.Messages = append(p.Messages, chatMessage{Role: "tool", Content: text(m.Content), ToolCallID: m.ToolCallID})
		default:
			return nil, memory.Errorf(memory.EINVALID, "chat: message %d: unknown role %q", i, m.Role)
		}
	}
	for _, t := range req.Tools {
		fn := functionSpec{Name: t.Name, Description: t.Description, Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
		if len(bytes.TrimSpace(t.Parameters)) > 0 {
			var params map[string]any
			if err := json.Unmarshal(t.Parameters, &params); err != nil || params == nil {
				return nil, memory.Errorf(memory.EINVALID, "chat: tool %s: parameters are not a JSON object", t.Name)
			}
			fn.Parameters = t.Parameters
		}
		p.Tools = append(p.Tools, chatTool{Type: "function", Function: fn})
	}
	if s := req.Schema; s != nil {
		switch mode {
		case modeJSONSchema:
			if !json.Valid(s.JSON) {
				return nil, memory.Errorf(memory.EINVALID, "chat: schema %s is not valid JSON", s.Name)
			}
			p.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: &jsonSchema{Name: s.Name, Description: s.Description, Schema: s.JSON, Strict: true}}
		case modeJSONObject:
			p.ResponseFormat = &responseFormat{Type: "json_object"}
		}
	}
	if req.MaxTokens > 0 {
		if c.completionTokens.Load() {
			p.MaxCompletionTokens = req.MaxTokens
		} else {
			p.MaxTokens = req.MaxTokens
		}
	}
	if !c.noTemperature.Load() {
		t := req.Temperature
		p.Temperature = &t
	}
	return p, nil
}

// send makes one request.
func (c *Client) send(ctx context.Context, p *chatRequest) (*chatCompletion, error) {
	var comp chatCompletion
	if err := provider.PostJSON(ctx, c.cfg.HTTPClient, c.url, c.header, p, &comp, c.cfg.APIKey); err != nil {
		return nil, err
	}
	return &comp, nil
}

// reply turns a completion into a response, parsing and validating the
// structured answer when req asked for one.
func (c *Client) reply(req *memory.ChatRequest, comp *chatCompletion) (*memory.ChatResponse, error) {
	resp := &memory.ChatResponse{Usage: memory.Usage{
		InputTokens:  comp.Usage.PromptTokens,
		OutputTokens: comp.Usage.CompletionTokens,
	}}
	if len(comp.Choices) == 0 {
		return resp, provider.Malformed("reply has no choices")
	}
	choice := comp.Choices[0]
	msg := choice.Message
	if msg.Content != nil {
		resp.Content = provider.StripThink(*msg.Content)
	}
	for _, tc := range msg.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		args := bytes.TrimSpace(tc.Function.Arguments)
		var str string
		if json.Unmarshal(args, &str) == nil {
			args = bytes.TrimSpace([]byte(str))
		}
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		resp.ToolCalls = append(resp.ToolCalls, memory.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: json.RawMessage(args)})
	}
	if req.Schema == nil || len(resp.ToolCalls) > 0 && resp.Content == "" {
		return resp, nil
	}
	if msg.Refusal != "" && resp.Content == "" {
		return resp, memory.Errorf(memory.EINVALID, "model refused: %s", provider.OneLine(msg.Refusal, 200))
	}
	doc, err := structured(resp.Content, choice.FinishReason, req.Schema)
	if err != nil {
		return resp, err
	}
	resp.JSON = doc
	return resp, nil
}

// structured parses and validates the structured answer in content, given
// the reply's finish reason ("length" when cut at the token limit). Errors
// are malformed-answer [provider.Error]s.
func structured(content, finishReason string, schema *memory.Schema) (json.RawMessage, error) {
	content = provider.StripThink(content)
	var doc []byte
	if trimmed := strings.TrimSpace(content); json.Valid([]byte(trimmed)) {
		doc = []byte(trimmed)
	} else {
		var err error
		if doc, err = provider.ExtractJSON(content); err != nil {
			if finishReason == "length" {
				return nil, provider.Malformed("reply cut at the token limit (finish_reason length) before the JSON was complete")
			}
			return nil, provider.Malformed("%s", strings.TrimSuffix(err.Error(), ": "+provider.ErrMalformed.Error()))
		}
	}
	if err := provider.Validate(schema, doc); err != nil {
		if !errors.Is(err, provider.ErrMalformed) {
			return nil, err
		}
		return nil, provider.Malformed("%s", strings.TrimSuffix(err.Error(), ": "+provider.ErrMalformed.Error()))
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, doc); err != nil {
		return doc, nil
	}
	return compact.Bytes(), nil
}
