// Package openai is the client for OpenAI-compatible chat and embedding
// APIs: OpenAI itself and, by base URL, Ollama (/v1), vLLM, llama.cpp
// server, LM Studio and OpenRouter. It is built on the official
// openai-go SDK with the SDK's retries turned off: retries, timeouts and
// the concurrency cap live in provider.Guard.
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

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

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
	cfg  Config
	chat oai.ChatCompletionService

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
	return &Client{cfg: cfg, chat: oai.NewChatCompletionService(options(cfg.BaseURL, cfg.APIKey, cfg.HTTPClient, cfg.Headers)...)}
}

// options builds the SDK options. Only explicit options are used: the SDK
// constructors that read OPENAI_* variables are avoided on purpose.
func options(baseURL, apiKey string, hc *http.Client, headers map[string]string) []option.RequestOption {
	if hc == nil {
		hc = &http.Client{}
	}
	opts := []option.RequestOption{
		option.WithBaseURL(strings.TrimRight(baseURL, "/") + "/"),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // provider.Guard retries
	}
	if apiKey != "" {
		opts = append(opts, option.WithAPIKey(apiKey))
	}
	for k, v := range headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return opts
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

// params builds the SDK request for req in the given mode.
func (c *Client) params(req *memory.ChatRequest, mode int32) (oai.ChatCompletionNewParams, error) {
	p := oai.ChatCompletionNewParams{Model: shared.ChatModel(c.cfg.Model)}
	system := req.System
	if req.Schema != nil && mode != modeJSONSchema {
		if system != "" {
			system += "\n\n"
		}
		system += provider.SchemaPrompt(req.Schema)
	}
	if system != "" {
		p.Messages = append(p.Messages, oai.SystemMessage(system))
	}
	for i, m := range req.Messages {
		switch m.Role {
		case memory.RoleUser:
			p.Messages = append(p.Messages, oai.UserMessage(m.Content))
		case memory.RoleAssistant:
			a := oai.ChatCompletionAssistantMessageParam{}
			if m.Content != "" || len(m.ToolCalls) == 0 {
				a.Content.OfString = oai.String(m.Content)
			}
			for _, tc := range m.ToolCalls {
				args := string(tc.Arguments)
				if args == "" {
					args = "{}"
				}
				a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
						ID:       tc.ID,
						Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: args},
					},
				})
			}
			p.Messages = append(p.Messages, oai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case memory.RoleTool:
			p.Messages = append(p.Messages, oai.ToolMessage(m.Content, m.ToolCallID))
		default:
			return p, memory.Errorf(memory.EINVALID, "chat: message %d: unknown role %q", i, m.Role)
		}
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{}}}
		if t.Description != "" {
			fn.Description = oai.String(t.Description)
		}
		if len(t.Parameters) > 0 {
			var params map[string]any
			if err := json.Unmarshal(t.Parameters, &params); err != nil {
				return p, memory.Errorf(memory.EINVALID, "chat: tool %s: parameters are not a JSON object", t.Name)
			}
			fn.Parameters = params
		}
		p.Tools = append(p.Tools, oai.ChatCompletionFunctionTool(fn))
	}
	if s := req.Schema; s != nil {
		switch mode {
		case modeJSONSchema:
			js := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: s.Name, Strict: oai.Bool(true), Schema: json.RawMessage(s.JSON)}
			if s.Description != "" {
				js.Description = oai.String(s.Description)
			}
			p.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{JSONSchema: js}
		case modeJSONObject:
			p.ResponseFormat.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
		}
	}
	if req.MaxTokens > 0 {
		if c.completionTokens.Load() {
			p.MaxCompletionTokens = oai.Int(int64(req.MaxTokens))
		} else {
			p.MaxTokens = oai.Int(int64(req.MaxTokens))
		}
	}
	if !c.noTemperature.Load() {
		p.Temperature = oai.Float(req.Temperature)
	}
	return p, nil
}

// send makes one request and maps its failure.
func (c *Client) send(ctx context.Context, p oai.ChatCompletionNewParams) (*oai.ChatCompletion, error) {
	var res *http.Response
	comp, err := c.chat.New(ctx, p, option.WithResponseInto(&res))
	if err != nil {
		return nil, provider.MapError(ctx, err, res, c.cfg.APIKey)
	}
	return comp, nil
}

// reply turns a completion into a response, parsing and validating the
// structured answer when req asked for one.
func (c *Client) reply(req *memory.ChatRequest, comp *oai.ChatCompletion) (*memory.ChatResponse, error) {
	resp := &memory.ChatResponse{Usage: memory.Usage{
		InputTokens:  int(comp.Usage.PromptTokens),
		OutputTokens: int(comp.Usage.CompletionTokens),
	}}
	if len(comp.Choices) == 0 {
		return resp, provider.Malformed("reply has no choices")
	}
	choice := comp.Choices[0]
	msg := choice.Message
	resp.Content = provider.StripThink(msg.Content)
	for _, tc := range msg.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		args := json.RawMessage(tc.Function.Arguments)
		if len(bytes.TrimSpace(args)) == 0 {
			args = json.RawMessage("{}")
		}
		resp.ToolCalls = append(resp.ToolCalls, memory.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args})
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
