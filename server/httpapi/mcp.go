package httpapi

import (
	"context"
	"net/http"

	"github.com/mnemo-ai/mnemo/server/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// MCPPath is where Options.MCP is served.
const MCPPath = "/mcp"

// mountMCP serves the MCP handler h (mcpserver.Handler) at MCPPath behind
// the API's key check. The request's key reaches the tools as the SDK's
// bearer token info (auth.TokenInfo): the key's bank as
// mcpserver.BankClaim, so a key for one bank can name no other, and its
// scopes, so a read key cannot retain or forget. The key id is the
// token's user: an MCP session stays with the key that opened it. A
// local request without a key (InsecureLocal) reaches every bank.
func (s *Server) mountMCP(h http.Handler) {
	bearer := auth.RequireBearerToken(func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		p, ok := PrincipalFrom(r.Context())
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return tokenInfo(p), nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true}) // expiry is checked per request by Authenticate
	withToken := bearer(h)
	s.Mount(MCPPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, _ := PrincipalFrom(r.Context()); p.local {
			h.ServeHTTP(w, r)
			return
		}
		withToken.ServeHTTP(w, r)
	}))
}

// tokenInfo is the MCP bearer token info of p: its bank claim (none for
// a key of every bank) and its scope with the scopes it includes.
func tokenInfo(p Principal) *auth.TokenInfo {
	ti := &auth.TokenInfo{UserID: p.KeyID, Extra: map[string]any{}}
	if p.Bank != "" {
		ti.Extra[mcpserver.BankClaim] = p.Bank
	}
	for _, sc := range []Scope{ScopeRead, ScopeWrite, ScopeAdmin} {
		ti.Scopes = append(ti.Scopes, string(sc))
		if sc == p.Scope {
			break
		}
	}
	return ti
}
