package httpapi

import (
	"context"
	"net/http"

	"github.com/mnemo-ai/mnemo/wire"
)

type pinQuestionInput struct {
	Bank string `path:"bank" doc:"bank name"`
	Body wire.PinQuestion
}

type standingInput struct {
	Bank string `path:"bank" doc:"bank name"`
	ID   string `path:"id" doc:"the pinned question's id"`
}

type standingOutput struct{ Body wire.Standing }

type standingListOutput struct{ Body wire.StandingList }

// registerStanding adds the bank's pinned questions: pin, list (with
// their answers and freshness) and unpin.
func (s *Server) registerStanding() {
	pin := op(http.MethodPost, "/v1/banks/{bank}/standing", "pinQuestion", "Pin a question: consolidation keeps its answer fresh, and reflect and recall return it first", ScopeWrite, "recall")
	pin.DefaultStatus = http.StatusCreated
	register(s, pin, func(ctx context.Context, in *pinQuestionInput) (*standingOutput, error) {
		q, err := s.eng.PinQuestion(ctx, in.Bank, in.Body.Question)
		if err != nil {
			return nil, s.fail(err)
		}
		return &standingOutput{Body: wire.NewStanding(q)}, nil
	})
	register(s, op(http.MethodGet, "/v1/banks/{bank}/standing", "listStanding", "List the pinned questions with their answers and whether each is fresh", ScopeRead, "recall"),
		func(ctx context.Context, in *bankPath) (*standingListOutput, error) {
			qs, err := s.eng.StandingQuestions(ctx, in.Bank)
			if err != nil {
				return nil, s.fail(err)
			}
			out := wire.StandingList{Questions: []wire.Standing{}}
			for _, q := range qs {
				out.Questions = append(out.Questions, wire.NewStandingStatus(q.StandingQuestion, q.Stale))
			}
			return &standingListOutput{Body: out}, nil
		})
	register(s, op(http.MethodDelete, "/v1/banks/{bank}/standing/{id}", "unpinQuestion", "Unpin a question and drop its answer", ScopeWrite, "recall"),
		func(ctx context.Context, in *standingInput) (*standingOutput, error) {
			q, err := s.eng.UnpinQuestion(ctx, in.Bank, in.ID)
			if err != nil {
				return nil, s.fail(err)
			}
			return &standingOutput{Body: wire.NewStanding(q)}, nil
		})
}
