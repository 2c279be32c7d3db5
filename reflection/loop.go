package reflection

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/memory"
)

// The loop's budgets and bounds.
const (
	// DefaultMaxSteps is how many model calls a reflect makes at most
	// when the request does not say.
	DefaultMaxSteps = 8
	// MaxSteps is the largest step budget a request may ask for.
	MaxSteps = 32
	// DefaultMaxTokens is the token budget (input and output summed over
	// every call) when the request does not say: enough for eight turns
	// over a few recalls of ten memories each.
	DefaultMaxTokens = 100_000
	// MaxQuestionBytes bounds a question.
	MaxQuestionBytes = 4000
	// MaxToolResultBytes bounds the text one tool call shows the model,
	// so that a bank of long documents cannot flood the context.
	MaxToolResultBytes = 8000
	// DefaultAnswerTokens bounds each model reply.
	DefaultAnswerTokens = 1024
	// Stage is the usage stage of reflect's model calls.
	Stage = "reflect"
)

// ErrNoAnswer is in the chain of the error Run returns when the budget
// ran out before the model answered (errors.Is); the error's code is
// memory.EUNAVAILABLE: a larger budget, or a better model, may answer.
var ErrNoAnswer = errors.New("no answer within the budget")

// Memory is what the loop reads of a bank: recall, an entity's facts and
// relations, and a fact's source text. The façade (mnemo.Engine)
// implements it with its own methods; tests may implement it over
// anything. Methods are called from one goroutine at a time.
type Memory interface {
	// Recall answers a recall query (memory.Query, with its filters).
	Recall(ctx context.Context, q memory.Query) (*memory.Recollection, error)
	// About returns an entity of bank by name or alias with up to limit
	// of its facts and its relations, or ENOTFOUND.
	About(ctx context.Context, bank, name string, limit int) (*memory.About, error)
	// FactSource returns one fact of bank and the chunks of the document
	// it came from, in order (none for a fact without a document), or
	// ENOTFOUND.
	FactSource(ctx context.Context, bank, factID string) (*memory.Fact, []*memory.Chunk, error)
	// StandingAnswers returns bank's answered standing questions whose
	// evidence still stands (seed 003 §5's mental models).
	StandingAnswers(ctx context.Context, bank string) ([]*memory.StandingQuestion, error)
}

// Persona is what shapes the system prompt: the bank's disposition
// (each 1–5, 0 unset; Hindsight's skepticism, literalism, empathy) and
// its mission and background text (memory.BankSettings). It never
// changes what recall finds (seed 003 §5.2).
type Persona struct {
	Skepticism, Literalism, Empathy int
	Mission, Background             string
}

// PersonaOf is the persona of a bank with settings s.
func PersonaOf(s memory.BankSettings) Persona {
	return Persona{Skepticism: s.Skepticism, Literalism: s.Literalism, Empathy: s.Empathy, Mission: s.Mission, Background: s.Background}
}

// Loop answers questions from one store's memory with one model. It is
// safe for concurrent use: each Run keeps its own state.
type Loop struct {
	LLM    memory.LLM
	Memory Memory
	// Now is the clock the system prompt dates "today" by; nil means
	// time.Now.
	Now func() time.Time
}

// Check validates req and returns it with its defaults filled in:
// a question of 1 to MaxQuestionBytes of UTF-8 (trimmed), MaxSteps 0
// (DefaultMaxSteps) to MaxSteps, MaxTokens 0 (DefaultMaxTokens) or
// positive. A bad request is EINVALID.
func Check(req Request) (Request, error) {
	req.Question = strings.TrimSpace(req.Question)
	switch {
	case req.Question == "":
		return req, memory.Errorf(memory.EINVALID, "the question is empty")
	case !utf8.ValidString(req.Question):
		return req, memory.Errorf(memory.EINVALID, "the question is not valid UTF-8")
	case len(req.Question) > MaxQuestionBytes:
		return req, memory.Errorf(memory.EINVALID, "the question is %d bytes, more than %d", len(req.Question), MaxQuestionBytes)
	case req.MaxSteps < 0 || req.MaxSteps > MaxSteps:
		return req, memory.Errorf(memory.EINVALID, "max_steps %d: want 1 to %d (0 for %d)", req.MaxSteps, MaxSteps, DefaultMaxSteps)
	case req.MaxTokens < 0:
		return req, memory.Errorf(memory.EINVALID, "max_tokens %d: want a positive budget (0 for %d)", req.MaxTokens, DefaultMaxTokens)
	}
	if req.MaxSteps == 0 {
		req.MaxSteps = DefaultMaxSteps
	}
	if req.MaxTokens == 0 {
		req.MaxTokens = DefaultMaxTokens
	}
	if !req.AsOf.IsZero() {
		req.AsOf = req.AsOf.UTC()
	}
	return req, nil
}

// Run answers req from bank's memory: it calls the model with the tools
// (recall, search_observations, about, expand, standing_answers, answer)
// and runs the
// tools the model calls, until the model answers — with the answer tool,
// or with plain text — or the budget runs out.
//
// The last step (MaxSteps) offers only the answer tool, telling the
// model to answer from what it found: a model that keeps searching gets
// one turn to give its best answer. If it still does not answer, or the
// tokens spent reach MaxTokens before it answers, Run returns an error
// with code EUNAVAILABLE and ErrNoAnswer in its chain, and the Result so
// far (trace, calls, tokens) with no answer: a half answer is never
// passed off as one. A model call that fails ends the run with that
// error (its code kept: EUNAVAILABLE for a provider down), wrapped with
// the step; the Result again holds what was done. A tool that fails on
// the model's input (an unknown entity, a bad filter) is shown to the
// model as the tool's answer, and the loop goes on; a tool that fails
// because memory is unavailable ends the run.
//
// Result.MemoryIDs are the memories the answer cites (the answer tool's
// memory_ids, and ids in brackets in the answer's text) that a tool
// showed in this run, in the order the loop first met them; ids the
// model made up are dropped.
func (l *Loop) Run(ctx context.Context, bank string, p Persona, req Request) (Result, error) {
	res := Result{MemoryIDs: []string{}, Trace: []Step{}}
	req, err := Check(req)
	if err != nil {
		return res, err
	}
	if l.LLM == nil {
		return res, memory.Errorf(memory.EUNAVAILABLE, "reflect needs an LLM, and none is configured")
	}
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	r := &run{loop: l, bank: bank, req: req, shown: map[string]bool{}}
	system := SystemPrompt(p, now(), req.AsOf)
	msgs := []memory.ChatMessage{{Role: memory.RoleUser, Content: req.Question}}
	for step := 1; step <= req.MaxSteps; step++ {
		final := step == req.MaxSteps
		cr := &memory.ChatRequest{Stage: Stage, System: system, Messages: msgs, Tools: tools, MaxTokens: DefaultAnswerTokens}
		if final {
			cr.System = system + "\n\n" + finalNote
			cr.Tools = []memory.Tool{answerTool}
		}
		resp, err := l.LLM.Chat(ctx, cr)
		res.Calls++
		if err != nil {
			return r.finish(res), fmt.Errorf("reflect step %d: %w", step, err)
		}
		res.InputTokens += resp.Usage.InputTokens
		res.OutputTokens += resp.Usage.OutputTokens
		if answer, ids, ok := r.answer(resp); ok {
			res.Answer = answer
			res.MemoryIDs = r.cited(ids, answer)
			return r.finish(res), nil
		}
		if len(resp.ToolCalls) == 0 {
			return r.finish(res), memory.Errorf(memory.EUNAVAILABLE, "reflect step %d: the model replied with neither an answer nor a tool call", step)
		}
		if final {
			break
		}
		if spent := res.InputTokens + res.OutputTokens; spent >= req.MaxTokens {
			return r.finish(res), fmt.Errorf("%w: %w", memory.Errorf(memory.EUNAVAILABLE,
				"reflect: %d tokens spent in %d steps, the budget is %d, and the model has not answered", spent, step, req.MaxTokens), ErrNoAnswer)
		}
		msgs = append(msgs, memory.ChatMessage{Role: memory.RoleAssistant, Content: resp.Content, ToolCalls: resp.ToolCalls})
		for _, call := range resp.ToolCalls {
			out, err := r.call(ctx, call)
			if err != nil {
				return r.finish(res), fmt.Errorf("reflect step %d, tool %s: %w", step, call.Name, err)
			}
			msgs = append(msgs, memory.ChatMessage{Role: memory.RoleTool, ToolCallID: call.ID, Content: out})
		}
	}
	return r.finish(res), fmt.Errorf("%w: %w", memory.Errorf(memory.EUNAVAILABLE,
		"reflect: the model gave no answer in %d steps (the last offered only the answer tool)", req.MaxSteps), ErrNoAnswer)
}

// finalNote is added to the system prompt of the last step.
const finalNote = "This is your last turn: no more lookups. Call answer now with the best answer the memories you found support, and their ids; if they do not answer the question, say so."

// run is one Run's state.
type run struct {
	loop  *Loop
	bank  string
	req   Request
	trace []Step
	// met lists the memory ids tools showed, in the order first met;
	// shown is its set.
	met   []string
	shown map[string]bool
}

// finish copies the trace into res.
func (r *run) finish(res Result) Result {
	res.Trace = append(res.Trace, r.trace...)
	return res
}

// answer returns the model's answer when resp is one: an answer tool
// call with a non-empty answer, or plain text with no tool call.
func (r *run) answer(resp *memory.ChatResponse) (string, []string, bool) {
	for _, c := range resp.ToolCalls {
		if c.Name != answerTool.Name {
			continue
		}
		var a struct {
			Answer    string   `json:"answer"`
			MemoryIDs []string `json:"memory_ids"`
		}
		if err := json.Unmarshal(c.Arguments, &a); err == nil && strings.TrimSpace(a.Answer) != "" {
			r.trace = append(r.trace, Step{Tool: c.Name, Arguments: string(c.Arguments), MemoryIDs: r.known(a.MemoryIDs)})
			return strings.TrimSpace(a.Answer), a.MemoryIDs, true
		}
	}
	if len(resp.ToolCalls) == 0 && strings.TrimSpace(resp.Content) != "" {
		return strings.TrimSpace(resp.Content), nil, true
	}
	return "", nil, false
}

// citation finds "[id]" in an answer's text.
var citation = regexp.MustCompile(`\[([A-Za-z0-9_:.\-]+)\]`)

// cited returns the ids among ids and the answer's bracketed citations
// that a tool showed, in the order first met; never nil.
func (r *run) cited(ids []string, answer string) []string {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	for _, m := range citation.FindAllStringSubmatch(answer, -1) {
		want[m[1]] = true
	}
	out := []string{}
	for _, id := range r.met {
		if want[id] {
			out = append(out, id)
		}
	}
	return out
}

// known keeps the ids a tool showed, in ids' order.
func (r *run) known(ids []string) []string {
	var out []string
	for _, id := range ids {
		if r.shown[id] && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// meet records ids as shown.
func (r *run) meet(ids []string) {
	for _, id := range ids {
		if !r.shown[id] {
			r.shown[id] = true
			r.met = append(r.met, id)
		}
	}
}

// call runs one tool call and returns what the model is shown. An error
// is returned only when the run must end (memory unavailable, the
// context done); the model's own mistakes come back as text.
func (r *run) call(ctx context.Context, c memory.ToolCall) (string, error) {
	step := Step{Tool: c.Name, Arguments: string(c.Arguments)}
	out, ids, err := r.exec(ctx, c)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		switch memory.ErrorCode(err) {
		case memory.EINVALID, memory.ENOTFOUND:
		default:
			step.Error = err.Error()
			r.trace = append(r.trace, step)
			return "", err
		}
		step.Error = memory.ErrorMessage(err)
		r.trace = append(r.trace, step)
		return "error: " + step.Error, nil
	}
	r.meet(ids)
	step.MemoryIDs = ids
	r.trace = append(r.trace, step)
	return clip(out, MaxToolResultBytes), nil
}

// clip cuts s to at most n bytes on a rune boundary, saying so.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "\n[… cut: the rest did not fit; narrow the search]"
}
