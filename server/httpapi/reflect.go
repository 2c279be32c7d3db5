package httpapi

import (
	"context"
	"net/http"

	"github.com/mnemo-ai/mnemo/reflection"
	"github.com/mnemo-ai/mnemo/wire"
)

type reflectInput struct {
	Bank string `path:"bank" doc:"bank name"`
	Body wire.ReflectRequest
}

type reflectOutput struct{ Body wire.Reflect }

// registerReflect adds reflect: an answer from memory by the engine's
// LLM (503 unavailable when none is configured, or when the model gave
// no answer within the budget).
func (s *Server) registerReflect() {
	register(s, op(http.MethodPost, "/v1/banks/{bank}/reflect", "reflect", "Answer a question from memory with the LLM (an agentic loop over recall, shaped by the bank's disposition)", ScopeRead, "recall"),
		func(ctx context.Context, in *reflectInput) (*reflectOutput, error) {
			req := reflection.Request{Question: in.Body.Question, MaxSteps: in.Body.MaxSteps, MaxTokens: in.Body.MaxTokens}
			if in.Body.AsOf != "" {
				t, err := wire.ParseTime(in.Body.AsOf)
				if err != nil {
					return nil, s.fail(err)
				}
				req.AsOf = t
			}
			res, err := s.eng.Reflect(ctx, in.Bank, req)
			if err != nil {
				return nil, s.fail(err)
			}
			return &reflectOutput{Body: wire.NewReflect(res)}, nil
		})
}
