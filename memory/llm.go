package memory

import (
	"context"
	"encoding/json"
	"time"
)

// LLM is a chat model. Implementations (provider/openai,
// provider/anthropic) are safe for concurrent use.
//
// Chat returns EUNAVAILABLE for what may pass on a retry (429, 5xx,
// timeouts, a refused connection), EUNAUTHORIZED for a rejected key and
// EINVALID for a request the provider refuses or an answer that does not
// match req.Schema. Retries, timeouts and the concurrency cap live in one
// place (provider.Guard), not in each client.
type LLM interface {
	// Name identifies the provider and model, e.g. "openai:gpt-4o-mini".
	Name() string
	// Chat sends one conversation and returns the model's reply.
	Chat(ctx context.Context, req *ChatRequest) (*ChatResponse, error)
}

// Role is who wrote a chat message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// ChatRequest is one call to an LLM.
type ChatRequest struct {
	// Stage names the pipeline step making the call ("extract",
	// "conflicts", …); usage is counted per stage.
	Stage string
	// System is the system prompt.
	System   string
	Messages []ChatMessage
	// Schema, when set, asks for a JSON answer matching it: the reply's
	// JSON field holds the validated document.
	Schema *Schema
	// Tools the model may call.
	Tools []Tool
	// MaxTokens bounds the answer; 0 means the provider's default.
	MaxTokens int
	// Temperature; 0 asks for the most deterministic answer.
	Temperature float64
}

// ChatMessage is one turn of a chat.
type ChatMessage struct {
	Role    Role
	Content string
	// ToolCalls are the calls an assistant turn made.
	ToolCalls []ToolCall
	// ToolCallID is the call a RoleTool message answers.
	ToolCallID string
}

// Schema is a named JSON Schema (draft 2020-12) for structured output.
type Schema struct {
	Name        string
	Description string
	JSON        json.RawMessage
}

// Tool is a function the model may call; Parameters is its JSON Schema.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// ToolCall is a model's call of a tool.
type ToolCall struct {
	ID        string
	Name      string
	Arguments json.RawMessage
}

// ChatResponse is an LLM's reply.
type ChatResponse struct {
	// Content is the text of the answer, with any <think>…</think>
	// reasoning removed.
	Content string
	// JSON is the structured answer when the request had a Schema; it has
	// been validated against the schema.
	JSON      json.RawMessage
	ToolCalls []ToolCall
	Usage     Usage
}

// Usage counts the tokens of one call.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// Reranker scores documents against a query (a cross-encoder behind a
// Cohere/Jina/TEI-style /rerank API). It is safe for concurrent use.
type Reranker interface {
	Name() string
	// Rerank returns one relevance score per document, in the documents'
	// order; higher is more relevant.
	Rerank(ctx context.Context, query string, docs []string) ([]float64, error)
}

// StageStats counts the provider calls of one pipeline stage.
type StageStats struct {
	Calls        int           `json:"calls"`
	Errors       int           `json:"errors"`
	Retries      int           `json:"retries"`
	InputTokens  int           `json:"input_tokens"`
	OutputTokens int           `json:"output_tokens"`
	Latency      time.Duration `json:"latency_ns"` // summed over calls
}
