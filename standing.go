package mnemo

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/internal/id"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/recall"
	"github.com/mnemo-ai/mnemo/reflection"
)

// PassStanding is the consolidation pass that answers a bank's pinned
// questions again when their evidence changed (consolidate.Standing).
const PassStanding = consolidate.PassStanding

// Standing is a pinned question with its latest answer and whether that
// answer is fresh.
type Standing struct {
	*memory.StandingQuestion
	// Stale says why the answer is not fresh ("never answered", "fact …
	// is superseded", …); "" when it is: then reflect and recall hand it
	// back without calling a model.
	Stale string
}

// PinQuestion pins question in bank: the standing pass of consolidation
// answers it (PassStanding, with the configured LLM) and answers it again
// whenever its evidence changes, and while the answer is fresh, Reflect
// and Recall of the same question (compared by memory.NormalizeQuestion)
// return it first at no model cost. A question pinned already is
// ECONFLICT; an empty or oversized one EINVALID; more than
// memory.MaxStandingQuestions in a bank EINVALID; an unknown bank
// ENOTFOUND.
func (e *Engine) PinQuestion(ctx context.Context, bank, question string) (*memory.StandingQuestion, error) {
	bank = defaultBank(bank)
	question = strings.TrimSpace(question)
	if memory.NormalizeQuestion(question) == "" {
		return nil, memory.Errorf(memory.EINVALID, "the question is empty")
	}
	qs, err := e.store.StandingQuestions(ctx, bank)
	if err != nil {
		return nil, err
	}
	if len(qs) >= memory.MaxStandingQuestions {
		return nil, memory.Errorf(memory.EINVALID, "bank %q has %d pinned questions, the most it may have; unpin one first", bank, len(qs))
	}
	// The id is the normalised question's (standingID): pinning the same
	// question twice is a conflict the store sees, and reads find it by
	// key.
	q := &memory.StandingQuestion{ID: standingID(bank, question), BankID: bank,
		Question: question, CreatedAt: e.now().UTC().Truncate(time.Microsecond)}
	if err := e.store.PinQuestion(ctx, bank, q); err != nil {
		if memory.ErrorCode(err) == memory.ECONFLICT {
			return nil, memory.Errorf(memory.ECONFLICT, "bank %q has the question %q pinned already", bank, question)
		}
		return nil, err
	}
	return q, nil
}

// StandingQuestions lists bank's pinned questions, oldest pinned first,
// with their answers and whether each is fresh (consolidate.StandingStale
// against a recall of the question now; no model is called). An unknown
// bank is ENOTFOUND.
func (e *Engine) StandingQuestions(ctx context.Context, bank string) ([]Standing, error) {
	bank = defaultBank(bank)
	qs, err := e.store.StandingQuestions(ctx, bank)
	if err != nil {
		return nil, err
	}
	out := make([]Standing, 0, len(qs))
	for _, q := range qs {
		s := Standing{StandingQuestion: q}
		var rec *memory.Recollection
		if !q.AnsweredAt.IsZero() {
			if rec, err = e.recall.Recall(ctx, memory.Query{BankID: bank, Text: q.Question}); err != nil {
				return nil, err
			}
		}
		if s.Stale, err = consolidate.StandingStale(ctx, e.evidence(), q, rec); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// StandingAnswers returns bank's answered standing questions whose
// evidence still stands — every memory an answer rests on exists and is
// active (consolidate.StandingStale without the recall of each question,
// which the reflect tool that reads them cannot afford per question) —
// oldest pinned first. An unknown bank is ENOTFOUND.
func (e *Engine) StandingAnswers(ctx context.Context, bank string) ([]*memory.StandingQuestion, error) {
	bank = defaultBank(bank)
	qs, err := e.store.StandingQuestions(ctx, bank)
	if err != nil {
		return nil, err
	}
	out := []*memory.StandingQuestion{}
	for _, q := range qs {
		why, err := consolidate.StandingStale(ctx, e.evidence(), q, nil)
		if err != nil {
			return nil, err
		}
		if why == "" {
			out = append(out, q)
		}
	}
	return out, nil
}

// UnpinQuestion removes a pinned question of bank, named by its id or
// its text (compared by memory.NormalizeQuestion), with its answer, and
// returns it. A question the bank has not pinned is ENOTFOUND.
func (e *Engine) UnpinQuestion(ctx context.Context, bank, ref string) (*memory.StandingQuestion, error) {
	bank = defaultBank(bank)
	q, err := e.pinned(ctx, bank, ref)
	if err != nil {
		return nil, err
	}
	if q == nil {
		return nil, memory.Errorf(memory.ENOTFOUND, "bank %q has no pinned question %q", bank, ref)
	}
	if err := e.store.UnpinQuestion(ctx, bank, q.ID); err != nil {
		return nil, err
	}
	return q, nil
}

// pinned returns bank's pinned question whose id is ref or whose text is
// ref's, or nil. A question's id is derived from its normalised text
// (standingID), so either is one lookup by key, whatever the number of
// questions pinned: recall makes it on every query.
func (e *Engine) pinned(ctx context.Context, bank, ref string) (*memory.StandingQuestion, error) {
	ids := []string{standingID(bank, ref)}
	if strings.HasPrefix(ref, "sq_") {
		ids = []string{ref, ids[0]}
	}
	for _, id := range ids {
		if id == "" {
			continue
		}
		q, err := e.store.StandingQuestion(ctx, bank, id)
		if err == nil {
			return q, nil
		}
		if memory.ErrorCode(err) != memory.ENOTFOUND {
			return nil, err
		}
	}
	return nil, nil
}

// standingID is the id of question pinned in bank: the same for every
// question with the same normalised text; "" for an empty one.
func standingID(bank, question string) string {
	norm := memory.NormalizeQuestion(question)
	if norm == "" {
		return ""
	}
	return id.Derive("sq", time.Time{}, bank, norm)
}

// fresh returns bank's standing question asked by text when it has a
// fresh answer, judged against rec, the recall of text now; else nil.
func (e *Engine) fresh(ctx context.Context, bank, text string, rec *memory.Recollection) (*memory.StandingQuestion, error) {
	q, err := e.pinned(ctx, bank, text)
	if err != nil || q == nil || q.AnsweredAt.IsZero() {
		return nil, err
	}
	why, err := consolidate.StandingStale(ctx, e.evidence(), q, rec)
	if err != nil || why != "" {
		return nil, err
	}
	return q, nil
}

// standingAnswer is Reflect's read path: the fresh standing answer to
// question, or nil. It runs recall (no model) to see whether a memory
// newer than the answer matches the question.
func (e *Engine) standingAnswer(ctx context.Context, bank, question string) (*memory.StandingQuestion, error) {
	q, err := e.pinned(ctx, bank, question)
	if err != nil || q == nil || q.AnsweredAt.IsZero() {
		return nil, err
	}
	rec, err := e.recall.Recall(ctx, memory.Query{BankID: bank, Text: question})
	if err != nil {
		return nil, err
	}
	return e.fresh(ctx, bank, question, rec)
}

// attachStanding is Recall's read path: when the query is a pinned
// question of the bank with a fresh answer, the answer goes first — in
// rec.Standing, and as the first line of a text or markdown context
// (its tokens counted in rec.Tokens, on top of the query's budget). A
// query as of a past time gets none: the answer is today's. A failure
// here costs the recall nothing: it is logged and the recall returned
// as it was.
func (e *Engine) attachStanding(ctx context.Context, q memory.Query, rec *memory.Recollection) {
	if !q.Filter.AsOf.IsZero() || rec == nil {
		return
	}
	s, err := e.fresh(ctx, q.BankID, q.Text, rec)
	if err != nil {
		e.log.Warn("standing answer", "bank", q.BankID, "err", err)
		return
	}
	if s == nil {
		return
	}
	rec.Standing = s
	var line string
	switch q.Format {
	case "", memory.FormatText:
		line = "Standing answer to \"" + s.Question + "\": " + strings.Join(strings.Fields(s.Answer), " ") + "\n"
	case memory.FormatMarkdown:
		line = "## Standing answer\n\n**" + s.Question + "** " + strings.Join(strings.Fields(s.Answer), " ") + "\n\n"
	}
	if line != "" {
		rec.Context = line + rec.Context
		rec.Tokens += recall.CountTokens(line)
	}
}

// runStanding runs the standing pass: the reflect loop, with the bank's
// disposition and the run's metered LLM, answers each pinned question
// whose evidence changed.
func (e *Engine) runStanding(ctx context.Context, p passRun) (map[string]int, error) {
	b, err := e.store.Bank(ctx, p.bank)
	if err != nil {
		return nil, err
	}
	persona := reflection.PersonaOf(b.Settings)
	answer := func(ctx context.Context, question string) (string, []string, error) {
		// The question's own old answer is not evidence for its new one.
		loop := &reflection.Loop{LLM: p.llm, Memory: otherAnswers{e, standingID(p.bank, question)}, Now: e.now}
		res, err := loop.Run(ctx, p.bank, persona, reflection.Request{Question: question})
		return res.Answer, res.MemoryIDs, err
	}
	res, err := consolidate.Standing(ctx, standingStore{e.store, e.evidence()}, e.recall.Recall, answer, p.bank, p.now)
	if res == nil {
		return nil, err
	}
	return res.Counts(), err
}

// otherAnswers is the engine as the standing pass's loop reads it: the
// standing answers but the one being answered anew.
type otherAnswers struct {
	*Engine
	skip string
}

func (m otherAnswers) StandingAnswers(ctx context.Context, bank string) ([]*memory.StandingQuestion, error) {
	qs, err := m.Engine.StandingAnswers(ctx, bank)
	return slices.DeleteFunc(qs, func(q *memory.StandingQuestion) bool { return q.ID == m.skip }), err
}

// standingStore is the store with the evidence reader for the pass.
type standingStore struct {
	memory.StandingAnswers
	consolidate.EvidenceReader
}

// evidence reads facts and observations from the store; a store that
// keeps no observations has none to find.
func (e *Engine) evidence() consolidate.EvidenceReader {
	if r, ok := e.store.(consolidate.EvidenceReader); ok {
		return r
	}
	return noObservations{e.store}
}

type noObservations struct{ memory.Store }

func (noObservations) Observations(context.Context, string, []string) ([]*memory.Observation, error) {
	return nil, nil
}
