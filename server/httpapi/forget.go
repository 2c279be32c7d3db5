package httpapi

import (
	"context"
	"net/http"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/wire"
)

type forgetInput struct {
	Bank string `path:"bank" doc:"bank name"`
	Body wire.ForgetRequest
}

type forgetOutput struct{ Body wire.Forget }

type forgetLogInput struct {
	Bank  string `path:"bank" doc:"bank name"`
	Limit int    `query:"limit" minimum:"0" doc:"at most this many, newest first; 0 means all"`
}

type forgetLogOutput struct{ Body wire.ForgetLog }

// registerForget adds forget (for good, with an audit record naming the
// key) and the audit log.
func (s *Server) registerForget() {
	register(s, op(http.MethodPost, "/v1/banks/{bank}/forget", "forget",
		"Forget facts for good (ids, query, entity, document, time range); dry_run lists what would go", ScopeWrite, "forget"),
		func(ctx context.Context, in *forgetInput) (*forgetOutput, error) {
			p, _ := PrincipalFrom(ctx)
			b := in.Body
			sel := mnemo.ForgetSelector{IDs: b.IDs, Query: b.Query, Limit: b.Limit, Entity: b.Entity, Document: b.Document, DryRun: b.DryRun, Actor: p.KeyID}
			var err error
			if sel.From, err = optTime("from", b.From); err != nil {
				return nil, s.fail(err)
			}
			if sel.To, err = optTime("to", b.To); err != nil {
				return nil, s.fail(err)
			}
			res, err := s.eng.Forget(ctx, in.Bank, sel)
			if err != nil {
				return nil, s.fail(err)
			}
			return &forgetOutput{Body: wire.NewForget(res)}, nil
		})
	register(s, op(http.MethodGet, "/v1/banks/{bank}/forget/log", "forgetLog", "List a bank's forget audit records, newest first", ScopeRead, "forget"),
		func(ctx context.Context, in *forgetLogInput) (*forgetLogOutput, error) {
			recs, err := s.eng.ForgetLog(ctx, in.Bank, in.Limit)
			if err != nil {
				return nil, s.fail(err)
			}
			return &forgetLogOutput{Body: wire.ForgetLog{Records: wire.NewForgetRecords(recs)}}, nil
		})
}
