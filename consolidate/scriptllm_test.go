package consolidate

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/mnemo-ai/mnemo/memory"
)

// ScriptLLM is the passes' tests' scripted model, in process: it answers
// the n-th request (from 1) with Answer's value as JSON (a
// json.RawMessage as it is), and records every request. It does not check
// the schema: the passes must. Exported for the package's external tests.
type ScriptLLM struct {
	Answer func(n int, req *memory.ChatRequest) (any, error)

	mu   sync.Mutex
	reqs []*memory.ChatRequest
}

// Script is a ScriptLLM whose answer depends on the request alone.
func Script(answer func(req *memory.ChatRequest) (any, error)) *ScriptLLM {
	return &ScriptLLM{Answer: func(_ int, req *memory.ChatRequest) (any, error) { return answer(req) }}
}

func (l *ScriptLLM) Name() string { return "script" }

func (l *ScriptLLM) Chat(_ context.Context, req *memory.ChatRequest) (*memory.ChatResponse, error) {
	l.mu.Lock()
	l.reqs = append(l.reqs, req)
	n := len(l.reqs)
	l.mu.Unlock()
	v, err := l.Answer(n, req)
	if err != nil {
		return nil, err
	}
	raw, ok := v.(json.RawMessage)
	if !ok {
		if raw, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	return &memory.ChatResponse{Content: string(raw), JSON: raw, Usage: memory.Usage{InputTokens: 10, OutputTokens: 5}}, nil
}

// Calls counts the requests so far.
func (l *ScriptLLM) Calls() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.reqs)
}

// Requests returns the requests so far, in order.
func (l *ScriptLLM) Requests() []*memory.ChatRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.reqs)
}

// Prompt is the last message of the i-th request (from 0).
func (l *ScriptLLM) Prompt(i int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reqs[i].Messages[len(l.reqs[i].Messages)-1].Content
}

// Reset forgets the requests so far.
func (l *ScriptLLM) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = nil
}
