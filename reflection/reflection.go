// Package reflection answers a question from a bank's memory the way
// seed 003 §5 describes reflect: an agentic loop in which the model calls
// tools over memory (recall, observations, an entity's facts, a fact's
// source text) until it answers or a step or token budget runs out. The
// bank's disposition and mission shape the system prompt, never recall.
//
// The package is named reflection, not reflect, so that it does not shadow
// the standard library.
package reflection

import "time"

// Request is one question to reflect on.
type Request struct {
	// Question is what to answer; it must not be empty.
	Question string `json:"question"`
	// AsOf, when set, answers from what the bank knew at that moment.
	AsOf time.Time `json:"as_of,omitzero"`
	// MaxSteps bounds the tool loop (model turns); 0 means the default.
	MaxSteps int `json:"max_steps,omitempty"`
	// MaxTokens bounds the tokens the loop may spend, input and output
	// summed over every call; 0 means the default.
	MaxTokens int `json:"max_tokens,omitempty"`
}

// Result is reflect's answer.
type Result struct {
	// Answer is the model's final answer.
	Answer string `json:"answer"`
	// MemoryIDs are the ids of the memories (facts, observations) the
	// answer used, in the order the loop first met them.
	MemoryIDs []string `json:"memory_ids"`
	// Trace is every tool call the loop made, in order.
	Trace []Step `json:"trace"`
	// Standing is true when the answer is a bank's fresh standing answer
	// to a pinned question, returned without calling a model.
	Standing bool `json:"standing,omitempty"`
	// Calls, InputTokens and OutputTokens count the model calls made.
	Calls        int `json:"llm_calls"`
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// Step is one tool call of the loop and what it returned.
type Step struct {
	Tool      string   `json:"tool"`
	Arguments string   `json:"arguments"`
	MemoryIDs []string `json:"memory_ids,omitempty"`
	// Error is set when the tool failed; the loop shows it to the model.
	Error string `json:"error,omitempty"`
}
