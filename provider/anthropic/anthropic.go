// Package anthropic is the client for Anthropic's Messages API, built on
// the official anthropic-sdk-go with the SDK's retries turned off:
// retries, timeouts and the concurrency cap live in provider.Guard.
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
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
)

// DefaultBaseURL is Anthropic's API; the client appends /v1/messages.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultMaxTokens bounds an answer when the request sets no MaxTokens
// (the Messages API requires a bound).
const DefaultMaxTokens = 4096

// requestTimeout is passed to the SDK so that it does not compute its
// own; the caller's context (through provider.Guard) bounds each call.
const requestTimeout = time.Hour

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
	cfg Config
	svc sdk.MessageService
}

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
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	// Only explicit options: the SDK's NewClient reads ANTHROPIC_* variables.
	opts := []option.RequestOption{
		option.WithBaseURL(strings.TrimSuffix(strings.TrimRight(cfg.BaseURL, "/"), "/v1") + "/"),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // provider.Guard retries
		option.WithRequestTimeout(requestTimeout),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return &Client{cfg: cfg, svc: sdk.NewMessageService(opts...)}
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
	var res *http.Response
	msg, err := c.svc.New(ctx, p, option.WithResponseInto(&res))
	if err != nil {
		return nil, provider.MapError(ctx, err, res, c.cfg.APIKey)
	}
	return reply(req, msg, wrapped)
}

// params builds the SDK request; wrapped reports that the schema was
// wrapped in an object under [wrapKey].
func (c *Client) params(req *memory.ChatRequest) (sdk.MessageNewParams, bool, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = c.cfg.MaxTokens
	}
	p := sdk.MessageNewParams{
		Model:       sdk.Model(c.cfg.Model),
		MaxTokens:   int64(maxTokens),
		Temperature: sdk.Float(req.Temperature),
	}
	if req.System != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	msgs, err := messages(req.Messages)
	if err != nil {
		return p, false, err
	}
	p.Messages = msgs
	for _, t := range req.Tools {
		tool, err := toolParam(t.Name, t.Description, t.Parameters)
		if err != nil {
			return p, false, err
		}
		p.Tools = append(p.Tools, tool)
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
		tool, err := toolParam(s.Name, desc, schema)
		if err != nil {
			return p, false, err
		}
		p.Tools = append(p.Tools, tool)
		if len(req.Tools) == 0 {
			p.ToolChoice = sdk.ToolChoiceParamOfTool(s.Name)
		} else {
			p.ToolChoice = sdk.ToolChoiceUnionParam{OfAny: &sdk.ToolChoiceAnyParam{}}
		}
	}
	return p, wrapped, nil
}

// messages converts the chat, merging consecutive turns of one side (tool
// results travel in the user turn that follows the tool calls).
func messages(in []memory.ChatMessage) ([]sdk.MessageParam, error) {
	var out []sdk.MessageParam
	add := func(role sdk.MessageParamRole, blocks ...sdk.ContentBlockParamUnion) {
		if len(blocks) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			return
		}
		out = append(out, sdk.MessageParam{Role: role, Content: blocks})
	}
	for i, m := range in {
		switch m.Role {
		case memory.RoleUser:
			add(sdk.MessageParamRoleUser, sdk.NewTextBlock(m.Content))
		case memory.RoleAssistant:
			var blocks []sdk.ContentBlockParamUnion
			if m.Content != "" {
				blocks = append(blocks, sdk.NewTextBlock(m.Content))
			}
			for _, tc := range m.ToolCalls {
				input := json.RawMessage(tc.Arguments)
				if len(bytes.TrimSpace(input)) == 0 {
					input = json.RawMessage("{}")
				}
				blocks = append(blocks, sdk.NewToolUseBlock(tc.ID, input, tc.Name))
			}
			add(sdk.MessageParamRoleAssistant, blocks...)
		case memory.RoleTool:
			add(sdk.MessageParamRoleUser, sdk.NewToolResultBlock(m.ToolCallID, m.Content, false))
		default:
			return nil, memory.Errorf(memory.EINVALID, "chat: message %d: unknown role %q", i, m.Role)
		}
	}
	return out, nil
}

// toolParam builds a tool from a JSON Schema object.
func toolParam(name, desc string, schema json.RawMessage) (sdk.ToolUnionParam, error) {
	in := sdk.ToolInputSchemaParam{Properties: map[string]any{}}
	if len(bytes.TrimSpace(schema)) > 0 {
		var m map[string]any
		if err := json.Unmarshal(schema, &m); err != nil {
			return sdk.ToolUnionParam{}, memory.Errorf(memory.EINVALID, "chat: tool %s: schema is not a JSON object", name)
		}
		if props, ok := m["properties"]; ok {
			in.Properties = props
		}
		if req, ok := m["required"].([]any); ok {
			for _, r := range req {
				if s, ok := r.(string); ok {
					in.Required = append(in.Required, s)
				}
			}
		}
		delete(m, "type")
		delete(m, "properties")
		delete(m, "required")
		delete(m, "$schema")
		if len(m) > 0 {
			in.ExtraFields = m
		}
	}
	tool := sdk.ToolUnionParamOfTool(in, name)
	if desc != "" {
		tool.OfTool.Description = sdk.String(desc)
	}
	return tool, nil
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
func reply(req *memory.ChatRequest, msg *sdk.Message, wrapped bool) (*memory.ChatResponse, error) {
	resp := &memory.ChatResponse{Usage: memory.Usage{
		InputTokens:  int(msg.Usage.InputTokens + msg.Usage.CacheReadInputTokens + msg.Usage.CacheCreationInputTokens),
		OutputTokens: int(msg.Usage.OutputTokens),
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
		if msg.StopReason == sdk.StopReasonRefusal {
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
		if msg.StopReason == sdk.StopReasonMaxTokens {
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
func malformed(stop sdk.StopReason, format string, args ...any) error {
	e := provider.Malformed(format, args...)
	if stop == sdk.StopReasonMaxTokens {
		e.Message = "reply cut at the token limit (stop_reason max_tokens): " + e.Message
	}
	return e
}
