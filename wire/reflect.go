package wire

import (
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/reflection"
)

// ReflectRequest is the body of POST /v1/banks/{bank}/reflect: the
// question, and optionally the moment to answer as of and the loop's
// budgets (0: the defaults).
type ReflectRequest struct {
	Question  string `json:"question" minLength:"1" maxLength:"4000" doc:"the question to answer from the bank's memory"`
	AsOf      string `json:"as_of,omitempty" doc:"answer from what the bank knew then (RFC 3339 or YYYY-MM-DD)"`
	MaxSteps  int    `json:"max_steps,omitempty" minimum:"0" maximum:"32" doc:"model turns at most (0: 8)"`
	MaxTokens int    `json:"max_tokens,omitempty" minimum:"0" doc:"tokens at most, input and output of every call (0: 100000)"`
}

// Reflect is reflect's answer: the answer, the ids of the memories it
// rests on, every tool call the loop made, whether it is a standing
// answer (no model call), and the calls and tokens spent.
type Reflect struct {
	Answer       string        `json:"answer"`
	MemoryIDs    []string      `json:"memory_ids"`
	Trace        []ReflectStep `json:"trace"`
	Standing     bool          `json:"standing"`
	LLMCalls     int           `json:"llm_calls"`
	InputTokens  int           `json:"input_tokens"`
	OutputTokens int           `json:"output_tokens"`
}

// ReflectStep is one tool call of the loop: the tool, its arguments as
// the model sent them (JSON text), the memory ids it showed, and its
// error when it failed.
type ReflectStep struct {
	Tool      string   `json:"tool"`
	Arguments string   `json:"arguments"`
	MemoryIDs []string `json:"memory_ids"`
	Error     string   `json:"error,omitempty"`
}

// NewReflect is r's wire shape; its lists are never null.
func NewReflect(r reflection.Result) Reflect {
	out := Reflect{Answer: r.Answer, MemoryIDs: nonNil(r.MemoryIDs), Trace: make([]ReflectStep, 0, len(r.Trace)), Standing: r.Standing,
		LLMCalls: r.Calls, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens}
	for _, s := range r.Trace {
		out.Trace = append(out.Trace, ReflectStep{Tool: s.Tool, Arguments: s.Arguments, MemoryIDs: nonNil(s.MemoryIDs), Error: s.Error})
	}
	return out
}

// Standing is a pinned question with its latest answer. AnsweredAt is
// null until the standing pass first answers it; Fresh says whether the
// answer is served as it is (Stale says why not), when known.
type Standing struct {
	ID         string     `json:"id"`
	Question   string     `json:"question"`
	Answer     string     `json:"answer"`
	MemoryIDs  []string   `json:"memory_ids"`
	PinnedAt   time.Time  `json:"pinned_at"`
	AnsweredAt *time.Time `json:"answered_at"`
	Fresh      *bool      `json:"fresh,omitempty"`
	Stale      string     `json:"stale,omitempty"`
}

// NewStanding is q's wire shape, freshness unknown.
func NewStanding(q *memory.StandingQuestion) Standing {
	s := Standing{ID: q.ID, Question: q.Question, Answer: q.Answer, MemoryIDs: nonNil(q.MemoryIDs), PinnedAt: q.CreatedAt}
	if !q.AnsweredAt.IsZero() {
		t := q.AnsweredAt
		s.AnsweredAt = &t
	}
	return s
}

// NewStandingStatus is q's wire shape with its freshness: stale is why
// the answer is not fresh, "" when it is.
func NewStandingStatus(q *memory.StandingQuestion, stale string) Standing {
	s := NewStanding(q)
	fresh := stale == ""
	s.Fresh, s.Stale = &fresh, stale
	return s
}

// StandingList is a bank's pinned questions, oldest pinned first.
type StandingList struct {
	Questions []Standing `json:"questions"`
}

// PinQuestion is the body of POST /v1/banks/{bank}/standing.
type PinQuestion struct {
	Question string `json:"question" minLength:"1" maxLength:"1000" doc:"the question to keep answered"`
}

func nonNil(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}
