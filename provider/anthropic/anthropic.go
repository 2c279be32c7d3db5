// Package anthropic is the client for Anthropic's Messages API. It speaks
// the REST API directly with net/http and encoding/json (the official SDK
// added resident memory and binary size to every mnemo process, started
// or not): one request per call, no retries; retries, timeouts and the
// concurrency cap live in provider.Guard.
//
// Structured output goes through a forced tool call: the request offers
// one tool named after the schema, with the schema as its input_schema,
// and tool_choice forces it; the tool's input is the answer, validated
// against the schema.
//
// The package never reads the environment; configuration comes from
// [Config].
package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
)

// DefaultBaseURL is Anthropic's API; the client appends /v1/messages.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultMaxTokens bounds an answer when the request sets no MaxTokens
// (the Messages API requires a bound).
const DefaultMaxTokens = 4096

// apiVersion is the Messages API version the client speaks.
const apiVersion = "2023-06-01"

// Stop reasons the client tells apart.
const (
	stopMaxTokens = "max_tokens"
	stopRefusal   = "refusal"
)

// wrapKey names the property a non-object schema is wrapped in: tool
// inputs must be objects.
const wrapKey = "result"

// Config configures a [Client].
type Config struct {
	// BaseURL of the API, without /v1. Default [DefaultBaseURL].
	BaseURL string
	// APIKey is sent as x-api-key; empty sends none (a proxy that adds
	// it).
	APIKey string
	// Model is the model id, e.g. "claude-sonnet-4-5"; required.
	Model string
	// MaxTokens bounds answers of requests without MaxTokens. Default
	// [DefaultMaxTokens].
	MaxTokens int
	// HTTPClient makes the requests; nil means a client without a timeout
	// (each call's context bounds it).
	HTTPClient *http.Client
	// Headers are added to every request.
	Headers map[string]string
}

// Client is an Anthropic chat model; it implements [memory.LLM]. It is
// safe for concurrent use.
type Client struct {
	cfg    Config
	url    string
	header http.Header
}

// The request and reply of /v1/messages, as far as mnemo uses them.
type (
	messagesRequest struct {
		Model       string      `json:"model"`
		MaxTokens   int         `json:"max_tokens"`
		Temperature float64     `json:"temperature"`
		System      []textBlock `json:"system,omitempty"`
		Messages    []message   `json:"messages"`
		Tools       []tool      `json:"tools,omitempty"`
		ToolChoice  *toolChoice `json:"tool_choice,omitempty"`
	}
	message struct {
		Role    string `json:"role"`
		Content []any  `json:"content"` // textBlock, toolUseBlock, toolResultBlock
	}
	textBlock struct {
		Type string `json:"type"` // "text"
		Text string `json:"text"`
	}
	toolUseBlock struct {
		Type  string          `json:"type"` // "tool_use"
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	toolResultBlock struct {
		Type      string `json:"type"` // "tool_result"
		ToolUseID string `json:"tool_use_id"`
		Content   string `json:"content"`
	}
	tool struct {
		Name        string         `json:"name"`
		Description string         `json:"description,omitempty"`
		InputSchema map[string]any `json:"input_schema"`
	}
	toolChoice struct {
		Type string `json:"type"` // "tool" or "any"
		Name string `json:"name,omitempty"`
	}
	messageReply struct {
		Content []struct {
			Type  string          `json:"type"`
			Text  string          `json:"text"`
			ID    string          `json:"id"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
		StopReason string `json:"stop_reason"`
		Usage      struct {
			InputTokens              int `json:"input_tokens"`
			OutputTokens             int `json:"output_tokens"`
			CacheReadInputTokens     int `json:"cache_read_input_tokens"`
			CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
		} `json:"usage"`
	}
)

var _ memory.LLM = (*Client)(nil)

// New returns a client for cfg, filling BaseURL and MaxTokens with their
// defaults when empty. It makes no request.
func New(cfg Config) *Client {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	h := http.Header{}
	for k, v := range cfg.Headers {
		h.Set(k, v)
	}
	if cfg.APIKey != "" {
		h.Set("X-Api-Key", cfg.APIKey)
	}
	h.Set("Anthropic-Version", apiVersion)
	base := strings.TrimSuffix(strings.TrimRight(cfg.BaseURL, "/"), "/v1")
	return &Client{cfg: cfg, url: base + "/v1/messages", header: h}
}

// Name returns "anthropic:" followed by the model.
func (c *Client) Name() string { return "anthropic:" + c.cfg.Model }

// Chat sends req and returns the reply.
//
// With req.Schema set, the reply's JSON is the input of the forced schema
// tool, validated against the schema; if req also has Tools the model may
// call any of them instead (tool_choice "any"), and such calls come back
// as ToolCalls. An answer that violates the schema or was cut at the
// token limit is an EINVALID [provider.Error] wrapping
// [provider.ErrMalformed], returned with a response holding the Usage.
//
// Errors map like provider.MapError: 429, 5xx (529 overloaded included),
// timeouts and connection failures are EUNAVAILABLE; 401/403
// EUNAUTHORIZED; 404 ENOTFOUND; other refusals EINVALID. Messages never
// contain the API key.
func (c *Client) Chat(ctx context.Context, req *memory.ChatRequest) (*memory.ChatResponse, error) {
	if req == nil {
		return nil, memory.Errorf(memory.EINVALID, "chat: nil request")
	}
	if c.cfg.Model == "" {
		return nil, memory.Errorf(memory.EINVALID, "chat: no model configured")
	}
	p, wrapped, err := c.params(req)
	if err != nil {
		return nil, err
	}
	var msg messageReply
	if err := provider.PostJSON(ctx, c.cfg.HTTPClient, c.url, c.header, p, &msg, c.cfg.APIKey); err != nil {
		return nil, err
	}
	return reply(req, &msg, wrapped)
}

// params builds the request; wrapped reports that the schema was wrapped
// in an object under [wrapKey].
func (c *Client) params(req *memory.ChatRequest) (*messagesRequest, bool, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = c.cfg.MaxTokens
	}
	p := &messagesRequest{Model: c.cfg.Model, MaxTokens: maxTokens, Temperature: req.Temperature}
	if req.System != "" {
		p.System = []textBlock{{Type: "text", Text: req.System}}
	}
	msgs, err := messages(req.Messages)
	if err != nil {
		return nil, false, err
	}
	p.Messages = msgs
	for _, t := range req.Tools {
		tl, err := toolParam(t.Name, t.Description, t.Parameters)
		if err != nil {
			return nil, false, err
		}
		p.Tools = append(p.Tools, tl)
	}
	var wrapped bool
	if s := req.Schema; s != nil {
		schema := []byte(s.JSON)
		if !isObjectSchema(schema) {
			schema, wrapped = wrapSchema(schema), true
		}
		desc := s.Description
		if desc == "" {
			desc = "Record the answer. Call this tool with the complete answer as its input."
		}
		tl, err := toolParam(s.Name, desc, schema)
		if err != nil {
			return nil, false, err
		}
		p.Tools = append(p.Tools, tl)
		if len(req.Tools) == 0 {
			p.ToolChoice = &toolChoice{Type: "tool", Name: s.Name}
		} else {
			p.ToolChoice = &toolChoice{Type: "any"}
		}
	}
	return p, wrapped, nil
}

// messages converts the chat, merging consecutive turns of one side (tool
// results travel in the user turn that follows the tool calls).
func messages(in []memory.ChatMessage) ([]message, error) {
	var out []message
	add := func(role string, blocks ...any) {
		if len(blocks) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			return
		}
		out = append(out, message{Role: role, Content: blocks})
	}
	for i, m := range in {
		switch m.Role {
		case memory.RoleUser:
			add("user", textBlock{Type: "text", Text: m.Content})
		case memory.RoleAssistant:
			var blocks []any
			if m.Content != "" {
				blocks = append(blocks, textBlock{Type: "text", Text: m.Content})
			}
			for _, tc := range m.ToolCalls {
				input := json.RawMessage(bytes.TrimSpace(tc.Arguments))
				if len(input) == 0 {
					input = json.RawMessage("{}")
				}
				if !json.Valid(input) {
					return nil, memory.Errorf(memory.EINVALID, "chat: message %d: tool call %s: arguments are not JSON", i, tc.ID)
				}
				blocks = append(blocks, toolUseBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: input})
			}
			add("assistant", blocks...)
		case memory.RoleTool:
			add("user", toolResultBlock{Type: "tool_result", ToolUseID: m.ToolCallID, Content: m.Content})
		default:
			return nil, memory.Errorf(memory.EINVALID, "chat: message %d: unknown role %q", i, m.Role)
		}
	}
	return out, nil
}

// toolParam builds a tool from a JSON Schema object: its input_schema is
// the schema as an object type, without "$schema".
func toolParam(name, desc string, schema json.RawMessage) (tool, error) {
	in := map[string]any{}
	if len(bytes.TrimSpace(schema)) > 0 {
		if err := json.Unmarshal(schema, &in); err != nil || in == nil {
			return tool{}, memory.Errorf(memory.EINVALID, "chat: tool %s: schema is not a JSON object", name)
		}
	}
	delete(in, "$schema")
	in["type"] = "object"
	if _, ok := in["properties"]; !ok {
		in["properties"] = map[string]any{}
	}
	return tool{Name: name, Description: desc, InputSchema: in}, nil
}

// isObjectSchema reports whether schema describes JSON objects.
func isObjectSchema(schema []byte) bool {
	var s struct {
		Type json.RawMessage `json:"type"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return false
	}
	var t string
	if json.Unmarshal(s.Type, &t) == nil {
		return t == "object"
	}
	return len(s.Type) == 0 // no type: take it as an object schema with properties
}

// wrapSchema puts a non-object schema under one required property.
func wrapSchema(schema []byte) []byte {
	b, _ := json.Marshal(map[string]any{
		"type":                 "object",
		"properties":           map[string]json.RawMessage{wrapKey: schema},
		"required":             []string{wrapKey},
		"additionalProperties": false,
	})
	return b
}

// reply turns a message into a response.
func reply(req *memory.ChatRequest, msg *messageReply, wrapped bool) (*memory.ChatResponse, error) {
	resp := &memory.ChatResponse{Usage: memory.Usage{
		InputTokens:  msg.Usage.InputTokens + msg.Usage.CacheReadInputTokens + msg.Usage.CacheCreationInputTokens,
		OutputTokens: msg.Usage.OutputTokens,
	}}
	var text strings.Builder
	var answer json.RawMessage
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			if req.Schema != nil && b.Name == req.Schema.Name && answer == nil {
				answer = b.Input
				if len(answer) == 0 {
					answer = json.RawMessage("null")
				}
				continue
			}
			input := b.Input
			if len(bytes.TrimSpace(input)) == 0 {
				input = json.RawMessage("{}")
			}
			resp.ToolCalls = append(resp.ToolCalls, memory.ToolCall{ID: b.ID, Name: b.Name, Arguments: input})
		}
	}
	resp.Content = provider.StripThink(text.String())
	if req.Schema == nil {
		return resp, nil
	}
	if answer == nil {
		if len(resp.ToolCalls) > 0 {
			return resp, nil // the model chose another tool
		}
		if msg.StopReason == stopRefusal {
			return resp, memory.Errorf(memory.EINVALID, "model refused: %s", provider.OneLine(resp.Content, 200))
		}
		// No tool call: take JSON from the text, as a last resort.
		doc, err := provider.ExtractJSON(resp.Content)
		if err != nil {
			return resp, malformed(msg.StopReason, "no %s tool call and no JSON in the text", req.Schema.Name)
		}
		answer, wrapped = doc, false // the text answers the schema itself
	}
	if wrapped {
		var w map[string]json.RawMessage
		if err := json.Unmarshal(answer, &w); err != nil || w[wrapKey] == nil {
			return resp, malformed(msg.StopReason, "tool input has no %q property", wrapKey)
		}
		answer = w[wrapKey]
	}
	if err := provider.Validate(req.Schema, answer); err != nil {
		if msg.StopReason == stopMaxTokens {
			return resp, malformed(msg.StopReason, "%s", err.Error())
		}
		if !errors.Is(err, provider.ErrMalformed) {
			return resp, err // the schema itself is broken
		}
		return resp, provider.Malformed("%s", strings.TrimSuffix(err.Error(), ": "+provider.ErrMalformed.Error()))
	}
	var compact bytes.Buffer
	if json.Compact(&compact, answer) == nil {
		answer = compact.Bytes()
	}
	resp.JSON = answer
	return resp, nil
}

// malformed builds a malformed-answer error, naming the token limit when
// the reply was cut by it.
func malformed(stop string, format string, args ...any) error {
	e := provider.Malformed(format, args...)
	if stop == stopMaxTokens {
		e.Message = "reply cut at the token limit (stop_reason max_tokens): " + e.Message
	}
	return e
}
