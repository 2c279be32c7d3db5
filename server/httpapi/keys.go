package httpapi

import (
	"context"
	"net/http"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
)

type createKeyInput struct{ Body wire.CreateKey }

type createdKeyOutput struct{ Body wire.CreatedKey }

type keysInput struct {
	Bank string `query:"bank" doc:"only the keys for this bank (* for the keys for every bank); default all keys"`
}

type keyListOutput struct{ Body wire.KeyList }

type keyIDInput struct {
	ID string `path:"id" doc:"key id (key_…)"`
}

type keyOutput struct{ Body wire.Key }

// registerKeys adds the operators' key management: create (the secret
// is answered once), list and revoke. Each needs an admin key for every
// bank.
func (s *Server) registerKeys() {
	create := op(http.MethodPost, "/v1/keys", "createKey", "Create an API key (its secret is shown once)", ScopeAdmin, "keys")
	create.DefaultStatus = http.StatusCreated
	register(s, create, func(ctx context.Context, in *createKeyInput) (*createdKeyOutput, error) {
		if err := s.authorizeAll(ctx); err != nil {
			return nil, err
		}
		req := mnemo.KeyRequest{Bank: in.Body.Bank, Scope: memory.Scope(in.Body.Scope), Name: in.Body.Name}
		if in.Body.ExpiresAt != "" {
			t, err := wire.ParseTime(in.Body.ExpiresAt)
			if err != nil {
				return nil, s.fail(memory.Errorf(memory.EINVALID, "expires_at: %s", memory.ErrorMessage(err)))
			}
			req.ExpiresAt = t
		}
		secret, k, err := s.eng.CreateKey(ctx, req)
		if err != nil {
			return nil, s.fail(err)
		}
		return &createdKeyOutput{Body: wire.NewCreatedKey(secret, k)}, nil
	})
	register(s, op(http.MethodGet, "/v1/keys", "listKeys", "List API keys (never their secrets)", ScopeAdmin, "keys"),
		func(ctx context.Context, in *keysInput) (*keyListOutput, error) {
			if err := s.authorizeAll(ctx); err != nil {
				return nil, err
			}
			ks, err := s.eng.Keys(ctx, in.Bank)
			if err != nil {
				return nil, s.fail(err)
			}
			return &keyListOutput{Body: wire.NewKeyList(ks)}, nil
		})
	register(s, op(http.MethodDelete, "/v1/keys/{id}", "revokeKey", "Revoke an API key", ScopeAdmin, "keys"),
		func(ctx context.Context, in *keyIDInput) (*keyOutput, error) {
			if err := s.authorizeAll(ctx); err != nil {
				return nil, err
			}
			k, err := s.eng.RevokeKey(ctx, in.ID)
			if err != nil {
				return nil, s.fail(err)
			}
			return &keyOutput{Body: wire.NewKey(k)}, nil
		})
}

// authorizeAll refuses, as the API's error, a request whose key is not an
// admin key for every bank: managing keys concerns every bank.
func (s *Server) authorizeAll(ctx context.Context) error {
	p, _ := PrincipalFrom(ctx)
	if p.local {
		return nil
	}
	if s.opts.Auth == nil || s.opts.Auth.Authorize(p, "", ScopeAdmin) != nil {
		return s.fail(memory.Errorf(memory.EFORBIDDEN, "managing keys needs an admin key for every bank"))
	}
	return nil
}
