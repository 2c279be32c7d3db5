package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
)

// readyTimeout bounds the store read /readyz makes.
const readyTimeout = 2 * time.Second

type healthOutput struct{ Body wire.Health }

// registerHealth adds /healthz (the process answers) and /readyz (the
// store answers too). Neither needs a key nor says anything about banks.
func (s *Server) registerHealth() {
	register(s, op(http.MethodGet, "/healthz", "healthz", "The process is alive", "", "health"),
		func(ctx context.Context, _ *struct{}) (*healthOutput, error) {
			return &healthOutput{Body: wire.Health{Status: "ok"}}, nil
		})
	register(s, op(http.MethodGet, "/readyz", "readyz", "The store answers", "", "health"),
		func(ctx context.Context, _ *struct{}) (*healthOutput, error) {
			ctx, cancel := context.WithTimeout(ctx, readyTimeout)
			defer cancel()
			if _, err := s.eng.Banks(ctx); err != nil {
				s.log.Warn("not ready", "err", err)
				return nil, newAPIError(memory.EUNAVAILABLE, "the store does not answer")
			}
			return &healthOutput{Body: wire.Health{Status: "ready"}}, nil
		})
}
