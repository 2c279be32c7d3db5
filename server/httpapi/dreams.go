package httpapi

import (
	"context"
	"net/http"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
)

type dreamListOutput struct{ Body wire.DreamList }

type restoreObservationsInput struct {
	Bank string `path:"bank" doc:"bank name"`
	Body wire.ObservationIDs
}

// registerDreams adds what the dream pass and archival show and undo: the
// bank's dreams, and the restore of archived observations (archived
// facts come back through POST …/facts/restore).
func (s *Server) registerDreams() {
	register(s, op(http.MethodGet, "/v1/banks/{bank}/dreams", "listDreams", "List a bank's dreams (cross-domain insights, never part of recall), newest first", ScopeRead, "consolidation"),
		func(ctx context.Context, in *limitInput) (*dreamListOutput, error) {
			ds, err := s.eng.Dreams(ctx, in.Bank, in.Limit)
			if err != nil {
				return nil, s.fail(err)
			}
			return &dreamListOutput{Body: wire.NewDreamList(ds)}, nil
		})
	register(s, op(http.MethodPost, "/v1/banks/{bank}/observations/restore", "restoreObservations", "Bring archived observations back into recall (all or nothing)", ScopeWrite, "consolidation"),
		func(ctx context.Context, in *restoreObservationsInput) (*statusChangeOutput, error) {
			changed, err := s.eng.RestoreObservations(ctx, in.Bank, in.Body.IDs)
			if err != nil {
				return nil, s.fail(err)
			}
			return &statusChangeOutput{Body: wire.NewStatusChange(changed, memory.StatusActive)}, nil
		})
}
