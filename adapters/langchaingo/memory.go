// Package langchaingo gives a langchaingo chain mnemo's long-term memory:
// [Memory] implements langchaingo's schema.Memory, so a chain such as
// chains.NewConversation recalls what the bank knows about each input
// into its "history" variable and retains each exchange afterwards.
//
// It lives in a module of its own, so that mnemo itself does not depend
// on langchaingo.
package langchaingo

import (
	"context"
	"fmt"
	"sync"

	"github.com/tmc/langchaingo/schema"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
)

// Engine is what the adapter needs of mnemo (*mnemo.Engine implements it).
type Engine interface {
	Recall(ctx context.Context, q memory.Query) (*memory.Recollection, error)
	Retain(ctx context.Context, req memory.RetainRequest) (*memory.RetainResult, error)
	Forget(ctx context.Context, bank string, sel mnemo.ForgetSelector) (*memory.ForgetResult, error)
}

// Memory is a langchaingo schema.Memory backed by one mnemo bank. It is
// safe for concurrent use.
type Memory struct {
	eng Engine
	// Bank is the bank read and written; "" is mnemo's default bank.
	Bank string
	// MemoryKey is the prompt variable the recalled context fills;
	// default "history", as chains.NewConversation expects.
	MemoryKey string
	// InputKey and OutputKey name the chain's input and output values;
	// empty means the only value there is.
	InputKey, OutputKey string
	// Budget is the recalled context's token budget and Limit the number
	// of memories; zero means mnemo's defaults.
	Budget, Limit int
	// Human and AI are the speakers the exchange is retained under;
	// defaults "user" and "assistant".
	Human, AI string

	mu    sync.Mutex
	saved []string // documents SaveContext wrote, for Clear
}

var _ schema.Memory = (*Memory)(nil)

// New returns a memory over bank of eng with the defaults.
func New(eng Engine, bank string) *Memory {
	return &Memory{eng: eng, Bank: bank, MemoryKey: "history", Human: "user", AI: "assistant"}
}

// GetMemoryKey implements schema.Memory.
func (m *Memory) GetMemoryKey(context.Context) string { return m.MemoryKey }

// MemoryVariables implements schema.Memory: the one variable it fills.
func (m *Memory) MemoryVariables(context.Context) []string { return []string{m.MemoryKey} }

// LoadMemoryVariables implements schema.Memory: it recalls what the bank
// knows about the chain's input and returns it, as the token-budgeted
// context mnemo packs for a prompt, under MemoryKey ("" when nothing is
// relevant or the bank is new).
func (m *Memory) LoadMemoryVariables(ctx context.Context, inputs map[string]any) (map[string]any, error) {
	input, err := value(inputs, m.InputKey)
	if err != nil {
		return nil, err
	}
	out := map[string]any{m.MemoryKey: ""}
	if input == "" {
		return out, nil
	}
	rec, err := m.eng.Recall(ctx, memory.Query{BankID: m.Bank, Text: input, Budget: m.Budget, Limit: m.Limit})
	if memory.ErrorCode(err) == memory.ENOTFOUND {
		return out, nil // nothing retained yet
	}
	if err != nil {
		return nil, err
	}
	if len(rec.Results) > 0 || len(rec.Observations) > 0 {
		out[m.MemoryKey] = rec.Context
	}
	return out, nil
}

// SaveContext implements schema.Memory: it retains the exchange (the
// chain's input and output) as one conversation item.
func (m *Memory) SaveContext(ctx context.Context, inputs, outputs map[string]any) error {
	input, err := value(inputs, m.InputKey)
	if err != nil {
		return err
	}
	output, err := value(outputs, m.OutputKey)
	if err != nil {
		return err
	}
	var msgs []memory.Message
	if input != "" {
		msgs = append(msgs, memory.Message{Speaker: m.Human, Text: input})
	}
	if output != "" {
		msgs = append(msgs, memory.Message{Speaker: m.AI, Text: output})
	}
	if len(msgs) == 0 {
		return nil
	}
	res, err := m.eng.Retain(ctx, memory.RetainRequest{BankID: m.Bank, Source: memory.SourceChat, Messages: msgs})
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.saved = append(m.saved, res.DocumentID)
	m.mu.Unlock()
	return nil
}

// Clear implements schema.Memory: it forgets, for good, what this Memory
// saved (the exchanges SaveContext retained through it); the rest of the
// bank stays.
func (m *Memory) Clear(ctx context.Context) error {
	m.mu.Lock()
	docs := m.saved
	m.saved = nil
	m.mu.Unlock()
	for i, doc := range docs {
		if _, err := m.eng.Forget(ctx, m.Bank, mnemo.ForgetSelector{Document: doc, Actor: "langchaingo"}); err != nil && memory.ErrorCode(err) != memory.ENOTFOUND {
			m.mu.Lock()
			m.saved = append(docs[i:], m.saved...)
			m.mu.Unlock()
			return err
		}
	}
	return nil
}

// value is the string under key in values, or the only value there is
// when key is empty.
func value(values map[string]any, key string) (string, error) {
	var v any
	switch {
	case key != "":
		var ok bool
		if v, ok = values[key]; !ok {
			return "", fmt.Errorf("mnemo memory: no %q among the values", key)
		}
	case len(values) == 1:
		for _, x := range values {
			v = x
		}
	case len(values) == 0:
		return "", nil
	default:
		return "", fmt.Errorf("mnemo memory: %d values and no key set to pick one (set InputKey / OutputKey)", len(values))
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case fmt.Stringer:
		return x.String(), nil
	default:
		return "", fmt.Errorf("mnemo memory: value is a %T, not text", v)
	}
}
