package httpapi

import (
	"context"
	"net/http"

	"github.com/mnemo-ai/mnemo/wire"
)

type statsOutput struct{ Body wire.Stats }

// registerStats adds a bank's counts.
func (s *Server) registerStats() {
	register(s, op(http.MethodGet, "/v1/banks/{bank}/stats", "stats", "Count what a bank holds", ScopeRead, "banks"),
		func(ctx context.Context, in *bankPath) (*statsOutput, error) {
			st, err := s.eng.Stats(ctx, in.Bank)
			if err != nil {
				return nil, s.fail(err)
			}
			return &statsOutput{Body: wire.NewStats(in.Bank, st)}, nil
		})
}
