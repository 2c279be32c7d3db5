package httpapi

import (
	"context"
	"net/http"

	"github.com/mnemo-ai/mnemo/wire"
)

type communityListOutput struct{ Body wire.CommunityList }

// registerCommunities adds the bank's entity communities, as the last
// communities pass of consolidation left them.
func (s *Server) registerCommunities() {
	register(s, op(http.MethodGet, "/v1/banks/{bank}/communities", "listCommunities", "List a bank's entity communities (clusters of entities found by the communities pass), the most members first", ScopeRead, "consolidation"),
		func(ctx context.Context, in *bankPath) (*communityListOutput, error) {
			cs, err := s.eng.Communities(ctx, in.Bank)
			if err != nil {
				return nil, s.fail(err)
			}
			return &communityListOutput{Body: wire.NewCommunityList(cs)}, nil
		})
}
