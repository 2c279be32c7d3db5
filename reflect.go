package mnemo

import (
	"context"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/reflection"
)

// The engine is the memory the reflect loop reads: its Recall, About,
// FactSource and StandingAnswers, nothing else.
var _ reflection.Memory = (*Engine)(nil)

// Reflect answers a question from bank's memory (seed 003 §5): a fresh
// standing answer to the question when the bank pinned it (see
// PinQuestion), at no model cost (Result.Standing); otherwise the
// reflection loop, in which the configured LLM calls recall,
// search_observations, about, expand and standing_answers until it answers or req's
// budget runs out (reflection.Loop.Run says what happens then). The
// bank's disposition and mission shape the loop's system prompt, never
// what recall finds. A question asked as of a time (req.AsOf) is never
// answered from a standing answer, which is today's.
//
// A bad request is EINVALID; an unknown bank ENOTFOUND; an engine with no
// LLM EUNAVAILABLE (unless a standing answer serves). On an error the
// Result still holds the trace, calls and tokens of what was done.
func (e *Engine) Reflect(ctx context.Context, bank string, req reflection.Request) (reflection.Result, error) {
	return e.reflect(ctx, bank, req)
}

// CanReflect reports whether Reflect can call a model (an LLM is
// configured); without one it answers only from standing answers.
func (e *Engine) CanReflect() bool { return e.llm != nil }

// reflect is Reflect.
func (e *Engine) reflect(ctx context.Context, bank string, req reflection.Request) (reflection.Result, error) {
	bank = defaultBank(bank)
	empty := reflection.Result{MemoryIDs: []string{}, Trace: []reflection.Step{}}
	req, err := reflection.Check(req)
	if err != nil {
		return empty, err
	}
	if err := e.whole(ctx, bank); err != nil {
		return empty, err
	}
	if req.AsOf.IsZero() {
		if s, err := e.standingAnswer(ctx, bank, req.Question); err != nil {
			return empty, err
		} else if s != nil {
			return reflection.Result{Answer: s.Answer, MemoryIDs: append([]string{}, s.MemoryIDs...), Trace: []reflection.Step{}, Standing: true}, nil
		}
	}
	if e.llm == nil {
		return empty, memory.Errorf(memory.EUNAVAILABLE, "reflect needs an LLM, and none is configured")
	}
	b, err := e.store.Bank(ctx, bank)
	if err != nil {
		return empty, err
	}
	loop := &reflection.Loop{LLM: e.llm, Memory: e, Now: e.now}
	return loop.Run(ctx, bank, reflection.PersonaOf(b.Settings), req)
}

// FactSource returns one fact of bank with the chunks of the document it
// came from, in order: the raw text reflect's expand tool shows. A fact
// without a document (or whose document was replaced) has no chunks. An
// unknown fact or bank is ENOTFOUND.
func (e *Engine) FactSource(ctx context.Context, bank, id string) (*memory.Fact, []*memory.Chunk, error) {
	d, err := e.Fact(ctx, bank, id)
	if err != nil {
		return nil, nil, err
	}
	if d.Fact.DocumentID == "" {
		return d.Fact, nil, nil
	}
	chunks, err := e.store.Chunks(ctx, defaultBank(bank), d.Fact.DocumentID)
	if err != nil && memory.ErrorCode(err) != memory.ENOTFOUND {
		return nil, nil, err
	}
	return d.Fact, chunks, nil
}
