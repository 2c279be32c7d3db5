package httpapi

import (
	"context"
	"net/http"

	"github.com/mnemo-ai/mnemo/wire"
)

type consolidateInput struct {
	Bank string `path:"bank" doc:"bank name"`
	Body wire.Consolidate
}

type limitInput struct {
	Bank  string `path:"bank" doc:"bank name"`
	Limit int    `query:"limit" minimum:"0" doc:"at most this many, newest first; 0 means all"`
}

type runOutput struct{ Body wire.Run }

type runListOutput struct{ Body wire.RunList }

type tiersOutput struct{ Body wire.Tiers }

type consolidationSettingsOutput struct{ Body wire.ConsolidationSettings }

type observationListOutput struct{ Body wire.ObservationList }

// registerConsolidate adds consolidation on demand and what it shows:
// runs, tier stats and observations.
func (s *Server) registerConsolidate() {
	register(s, op(http.MethodPost, "/v1/banks/{bank}/consolidate", "consolidate", "Run a consolidation pass now and return its run record", ScopeWrite, "consolidation"),
		func(ctx context.Context, in *consolidateInput) (*runOutput, error) {
			if _, err := s.eng.Bank(ctx, in.Bank); err != nil {
				return nil, s.fail(err)
			}
			r, err := s.eng.Consolidate(ctx, in.Bank, in.Body.Pass)
			if err != nil {
				return nil, s.fail(err)
			}
			return &runOutput{Body: wire.NewRun(r)}, nil
		})
	register(s, op(http.MethodGet, "/v1/banks/{bank}/consolidation", "consolidationSettings", "List a bank's consolidation settings (numbers and triggers) with their values; PATCH /v1/banks/{bank} overrides them", ScopeRead, "consolidation"),
		func(ctx context.Context, in *bankPath) (*consolidationSettingsOutput, error) {
			knobs, err := s.eng.ConsolidationSettings(ctx, in.Bank)
			if err != nil {
				return nil, s.fail(err)
			}
			return &consolidationSettingsOutput{Body: wire.NewConsolidationSettings(knobs)}, nil
		})
	register(s, op(http.MethodGet, "/v1/banks/{bank}/runs", "listRuns", "List a bank's consolidation runs, newest first", ScopeRead, "consolidation"),
		func(ctx context.Context, in *limitInput) (*runListOutput, error) {
			if _, err := s.eng.Bank(ctx, in.Bank); err != nil {
				return nil, s.fail(err)
			}
			rs, err := s.eng.Runs(ctx, in.Bank, in.Limit)
			if err != nil {
				return nil, s.fail(err)
			}
			return &runListOutput{Body: wire.NewRunList(rs)}, nil
		})
	register(s, op(http.MethodGet, "/v1/banks/{bank}/tiers", "tiers", "Count a bank's entities per memory tier", ScopeRead, "consolidation"),
		func(ctx context.Context, in *bankPath) (*tiersOutput, error) {
			if _, err := s.eng.Bank(ctx, in.Bank); err != nil {
				return nil, s.fail(err)
			}
			st, err := s.eng.Tiers(ctx, in.Bank)
			if err != nil {
				return nil, s.fail(err)
			}
			return &tiersOutput{Body: wire.NewTiers(st)}, nil
		})
	register(s, op(http.MethodGet, "/v1/banks/{bank}/observations", "listObservations", "List a bank's observations, newest first", ScopeRead, "consolidation"),
		func(ctx context.Context, in *limitInput) (*observationListOutput, error) {
			obs, err := s.eng.Observations(ctx, in.Bank, in.Limit)
			if err != nil {
				return nil, s.fail(err)
			}
			return &observationListOutput{Body: wire.NewObservationList(obs)}, nil
		})
}
