package consolidate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// PassStanding answers a bank's pinned questions again when their
// evidence changed (Hindsight's mental models, kept fresh; LLM).
const PassStanding = "standing"

// EvidenceReader reads the memories a standing answer rests on.
type EvidenceReader interface {
	Facts(ctx context.Context, bankID string, ids []string) ([]*memory.Fact, error)
	Observations(ctx context.Context, bankID string, ids []string) ([]*memory.Observation, error)
}

// StandingStore is what the standing pass reads and writes.
type StandingStore interface {
	EvidenceReader
	StandingQuestions(ctx context.Context, bankID string) ([]*memory.StandingQuestion, error)
	SetStandingAnswer(ctx context.Context, bankID, id, answer string, memoryIDs []string, at time.Time) error
}

// RecallFunc is recall over a bank (the façade's): the standing pass
// asks it what a question matches now.
type RecallFunc func(ctx context.Context, q memory.Query) (*memory.Recollection, error)

// AnswerFunc answers a question from a bank's memory with a model (the
// façade's reflect loop) and returns the answer and the ids of the
// memories it rests on.
type AnswerFunc func(ctx context.Context, question string) (answer string, memoryIDs []string, err error)

// StandingResult counts what a standing pass did.
type StandingResult struct {
	// Questions is how many pinned questions were checked.
	Questions int
	// Answered is how many were answered again (a model was asked).
	Answered int
	// Fresh is how many kept their answer: nothing they rest on or match
	// changed.
	Fresh int
	// Failed is how many could not be answered (the model failed or gave
	// no answer); they keep their old answer, which stays stale.
	Failed int
}

// Counts is the run record's counts.
func (r *StandingResult) Counts() map[string]int {
	return map[string]int{"questions": r.Questions, "answered": r.Answered, "fresh": r.Fresh, "failed": r.Failed}
}

// Standing refreshes the answers of bank's pinned questions whose
// evidence changed (StandingStale says when), asking answer once for
// each of those and for those never answered, and records each new
// answer made at now. A fresh answer costs no model call: a run over a
// bank where nothing changed asks the model nothing. A question
// unpinned while it was being answered is left unpinned. A question
// whose answer fails keeps its old answer and the pass goes on with the
// others; their errors are returned joined, with the counts.
func Standing(ctx context.Context, st StandingStore, recall RecallFunc, answer AnswerFunc, bank string, now time.Time) (*StandingResult, error) {
	qs, err := st.StandingQuestions(ctx, bank)
	if err != nil {
		return nil, err
	}
	res := &StandingResult{}
	var errs []error
	for _, q := range qs {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		res.Questions++
		var rec *memory.Recollection
		if !q.AnsweredAt.IsZero() {
			if rec, err = recall(ctx, memory.Query{BankID: bank, Text: q.Question, Now: now}); err != nil {
				return res, fmt.Errorf("recall %q: %w", q.Question, err)
			}
		}
		why, err := StandingStale(ctx, st, q, rec)
		if err != nil {
			return res, err
		}
		if why == "" {
			res.Fresh++
			continue
		}
		text, ids, err := answer(ctx, q.Question)
		if err != nil {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			res.Failed++
			errs = append(errs, fmt.Errorf("answer %q (%s): %w", q.Question, why, err))
			continue
		}
		switch err := st.SetStandingAnswer(ctx, bank, q.ID, text, ids, now); {
		case memory.ErrorCode(err) == memory.ENOTFOUND:
			// Unpinned meanwhile: the answer goes with it.
		case err != nil:
			return res, err
		default:
			res.Answered++
		}
	}
	return res, errors.Join(errs...)
}

// StandingStale reports why q's answer must be made again, or "" when it
// is fresh. It is stale when it was never answered; when a memory it
// rests on is gone (forgotten), no longer active (superseded by a newer
// fact, archived), or — an observation — changed since the answer; and
// when rec, the recall of the question now (nil: not checked), holds a
// memory learned after the answer that the answer does not rest on: a
// new fact that matches the question. No model is called.
func StandingStale(ctx context.Context, r EvidenceReader, q *memory.StandingQuestion, rec *memory.Recollection) (string, error) {
	if q.AnsweredAt.IsZero() || q.Answer == "" {
		return "never answered", nil
	}
	if len(q.MemoryIDs) > 0 {
		facts, err := r.Facts(ctx, q.BankID, q.MemoryIDs)
		if err != nil {
			return "", err
		}
		found := map[string]bool{}
		for _, f := range facts {
			found[f.ID] = true
			if f.Status != memory.StatusActive {
				return fmt.Sprintf("fact %s is %s", f.ID, f.Status), nil
			}
		}
		var rest []string
		for _, id := range q.MemoryIDs {
			if !found[id] {
				rest = append(rest, id)
			}
		}
		if len(rest) > 0 {
			obs, err := r.Observations(ctx, q.BankID, rest)
			if err != nil {
				return "", err
			}
			for _, o := range obs {
				found[o.ID] = true
				switch {
				case o.Status != "" && o.Status != memory.StatusActive:
					return fmt.Sprintf("observation %s is %s", o.ID, o.Status), nil
				case o.UpdatedAt.After(q.AnsweredAt):
					return fmt.Sprintf("observation %s changed", o.ID), nil
				}
			}
			for _, id := range rest {
				if !found[id] {
					return fmt.Sprintf("memory %s is gone", id), nil
				}
			}
		}
	}
	if rec == nil {
		return "", nil
	}
	newer := func(id string, t time.Time) bool { return t.After(q.AnsweredAt) && !slices.Contains(q.MemoryIDs, id) }
	for _, o := range rec.Observations {
		if newer(o.Observation.ID, o.Observation.UpdatedAt) || newer(o.Observation.ID, o.Observation.CreatedAt) {
			return fmt.Sprintf("observation %s is newer than the answer", o.Observation.ID), nil
		}
		for _, f := range o.Facts {
			if newer(f.ID, f.CreatedAt) {
				return fmt.Sprintf("fact %s is newer than the answer", f.ID), nil
			}
		}
	}
	for _, r := range rec.Results {
		if newer(r.Fact.ID, r.Fact.CreatedAt) {
			return fmt.Sprintf("fact %s is newer than the answer", r.Fact.ID), nil
		}
	}
	return "", nil
}
