package httpapi

import (
	"context"
	"net/http"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
)

type bankPath struct {
	Bank string `path:"bank" doc:"bank name"`
}

type createBankInput struct{ Body wire.CreateBank }

type bankOutput struct{ Body wire.Bank }

type bankListOutput struct{ Body wire.BankList }

type updateBankInput struct {
	Bank string `path:"bank" doc:"bank name"`
	Body wire.UpdateBank
}

type deletedOutput struct{ Body wire.Deleted }

// registerBanks adds create, list, get, update settings and delete.
func (s *Server) registerBanks() {
	create := op(http.MethodPost, "/v1/banks", "createBank", "Create a bank", ScopeAdmin, "banks")
	create.DefaultStatus = http.StatusCreated
	register(s, create, func(ctx context.Context, in *createBankInput) (*bankOutput, error) {
		p, _ := PrincipalFrom(ctx)
		if err := s.authorize(p, in.Body.Name, ScopeAdmin); err != nil {
			// Refused before looking: the answer says nothing of the bank.
			return nil, s.fail(memory.Errorf(memory.EFORBIDDEN, "this key cannot create bank %q", in.Body.Name))
		}
		b, err := s.eng.CreateBank(ctx, in.Body.Name)
		if err != nil {
			return nil, s.fail(err)
		}
		return &bankOutput{Body: wire.NewBank(b)}, nil
	})
	register(s, op(http.MethodGet, "/v1/banks", "listBanks", "List the banks the key can read", ScopeRead, "banks"),
		func(ctx context.Context, _ *struct{}) (*bankListOutput, error) {
			p, _ := PrincipalFrom(ctx)
			banks, err := s.eng.Banks(ctx)
			if err != nil {
				return nil, s.fail(err)
			}
			out := wire.BankList{Banks: []wire.Bank{}}
			for _, b := range banks {
				if s.authorize(p, b.ID, ScopeRead) == nil {
					out.Banks = append(out.Banks, wire.NewBank(b))
				}
			}
			return &bankListOutput{Body: out}, nil
		})
	register(s, op(http.MethodGet, "/v1/banks/{bank}", "getBank", "Get a bank and its settings", ScopeRead, "banks"),
		func(ctx context.Context, in *bankPath) (*bankOutput, error) {
			b, err := s.eng.Bank(ctx, in.Bank)
			if err != nil {
				return nil, s.fail(err)
			}
			return &bankOutput{Body: wire.NewBank(b)}, nil
		})
	register(s, op(http.MethodPatch, "/v1/banks/{bank}", "updateBank", "Change a bank's settings (fields left out keep their value)", ScopeAdmin, "banks"),
		func(ctx context.Context, in *updateBankInput) (*bankOutput, error) {
			u := in.Body
			b, err := s.eng.ChangeBank(ctx, in.Bank, func(set *memory.BankSettings) {
				if u.Skepticism != nil {
					set.Skepticism = *u.Skepticism
				}
				if u.Literalism != nil {
					set.Literalism = *u.Literalism
				}
				if u.Empathy != nil {
					set.Empathy = *u.Empathy
				}
				if u.Mission != nil {
					set.Mission = *u.Mission
				}
				if u.Background != nil {
					set.Background = *u.Background
				}
				set.Consolidation = memory.PatchSettings(set.Consolidation, u.Consolidation)
				if u.SecretAllow != nil {
					set.SecretAllow = *u.SecretAllow
				}
			})
			if err != nil {
				return nil, s.fail(err)
			}
			return &bankOutput{Body: wire.NewBank(b)}, nil
		})
	register(s, op(http.MethodDelete, "/v1/banks/{bank}", "deleteBank", "Delete a bank and everything in it", ScopeAdmin, "banks"),
		func(ctx context.Context, in *bankPath) (*deletedOutput, error) {
			if err := s.eng.DeleteBank(ctx, in.Bank); err != nil {
				return nil, s.fail(err)
			}
			return &deletedOutput{Body: wire.Deleted{Deleted: in.Bank}}, nil
		})
}
