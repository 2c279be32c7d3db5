package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/mnemo-ai/mnemo/wire"
)

type recallInput struct {
	Bank string `path:"bank" doc:"bank name"`
	Body wire.RecallRequest
}

type recallOutput struct{ Body wire.Recall }

// registerRecall adds recall with every option of memory.Query.
func (s *Server) registerRecall() {
	register(s, op(http.MethodPost, "/v1/banks/{bank}/recall", "recall", "Recall what is relevant to a query", ScopeRead, "recall"),
		func(ctx context.Context, in *recallInput) (*recallOutput, error) {
			q, err := in.Body.MemoryQuery(in.Bank)
			if err != nil {
				return nil, s.fail(err)
			}
			start := time.Now()
			rec, err := s.eng.Recall(ctx, q)
			s.metrics.recalls.WithLabelValues(outcome(err)).Observe(time.Since(start).Seconds())
			if err != nil {
				return nil, s.fail(err)
			}
			return &recallOutput{Body: wire.NewRecall(rec)}, nil
		})
}
