package httpapi

import (
	"context"
	"net"
	"net/http"
	"strings"

	"github.com/mnemo-ai/mnemo/memory"
)

// Scope is what a key may do: read (recall, list, get, export), write
// (retain) or admin (create, change, delete and import banks). A wider
// scope includes the narrower ones; the Authenticator decides.
type Scope string

// The scopes, narrowest first.
const (
	ScopeRead  Scope = "read"
	ScopeWrite Scope = "write"
	ScopeAdmin Scope = "admin"
)

// Principal is who a request's key says it is. The API only logs KeyID
// and hands the Principal back to the Authenticator; Bank and Scope are
// there for Authenticators that keep them in it.
type Principal struct {
	// KeyID names the key in logs; never the secret.
	KeyID string
	// Bank is the one bank the key may reach; "" means every bank.
	Bank  string
	Scope Scope

	local bool // --insecure-local without a key: everything allowed
}

// Authenticator checks API keys. Implementations must be safe for
// concurrent use.
type Authenticator interface {
	// Authenticate returns the principal of a key's secret (what follows
	// "Bearer "), or an error: EUNAUTHORIZED for a secret that is unknown,
	// revoked or expired.
	Authenticate(ctx context.Context, secret string) (Principal, error)
	// Authorize returns nil when p may act on bank with scope need, and
	// an error otherwise. The API answers a key that may not even read
	// bank exactly as it answers an unknown bank (404), so that a key
	// never learns another bank exists, and a key that may read but not
	// act with need with 403.
	Authorize(p Principal, bank string, need Scope) error
}

type principalKey struct{}

// PrincipalFrom returns the principal the API authenticated for ctx's
// request (handlers mounted with Options.Extra or Server.Mount see it),
// and whether there is one.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// IsLoopback reports whether addr (host:port, or a bare host) is a
// loopback address: an IP in 127.0.0.0/8 or ::1, or "localhost".
func IsLoopback(addr string) bool {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// authenticate returns the principal of r: its bearer key's, or with
// InsecureLocal and no key, the local principal for a loopback peer.
func (s *Server) authenticate(r *http.Request) (Principal, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		if s.opts.InsecureLocal && IsLoopback(r.RemoteAddr) {
			return Principal{KeyID: "local", local: true}, nil
		}
		return Principal{}, memory.Errorf(memory.EUNAUTHORIZED, "missing API key: send Authorization: Bearer <key>")
	}
	scheme, secret, ok := strings.Cut(h, " ")
	secret = strings.TrimSpace(secret)
	if !ok || !strings.EqualFold(scheme, "Bearer") || secret == "" {
		return Principal{}, memory.Errorf(memory.EUNAUTHORIZED, "malformed Authorization header: send Authorization: Bearer <key>")
	}
	if s.opts.Auth == nil {
		return Principal{}, memory.Errorf(memory.EUNAUTHORIZED, "this server has no API keys")
	}
	p, err := s.opts.Auth.Authenticate(r.Context(), secret)
	if err != nil {
		if c := memory.ErrorCode(err); c == memory.EUNAVAILABLE || c == memory.EINTERNAL {
			return Principal{}, err
		}
		// Whatever the reason (unknown, revoked, expired), the same answer.
		return Principal{}, memory.Errorf(memory.EUNAUTHORIZED, "invalid API key")
	}
	p.local = false
	return p, nil
}

// authorize returns nil when p may act on bank with need; an unknown
// bank's error when p may not even read it (the answer a bank that does
// not exist gets); and a forbidden error otherwise.
func (s *Server) authorize(p Principal, bank string, need Scope) error {
	if p.local {
		return nil
	}
	if s.opts.Auth == nil {
		return memory.UnknownBank(bank)
	}
	if s.opts.Auth.Authorize(p, bank, need) == nil {
		return nil
	}
	if need != ScopeRead && s.opts.Auth.Authorize(p, bank, ScopeRead) == nil {
		return memory.Errorf(memory.EFORBIDDEN, "this key's scope does not allow %s on bank %q", need, bank)
	}
	return memory.UnknownBank(bank)
}

// Protect wraps h so that it runs only for requests with a valid key (or
// local ones under InsecureLocal); h finds the principal with
// PrincipalFrom and authorizes banks itself.
func (s *Server) Protect(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := s.authenticate(r)
		if err != nil {
			s.writeError(w, err)
			return
		}
		info(r.Context()).keyID = p.KeyID
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	})
}

// Authorize reports whether the principal of ctx (see PrincipalFrom) may
// act on bank with need, with the API's answers: nil; an unknown bank's
// ENOTFOUND when it may not even read the bank (the same error a bank that
// does not exist gives); a forbidden error otherwise. Handlers mounted
// behind Protect (MCP) call it for every bank they touch.
func (s *Server) Authorize(ctx context.Context, bank string, need Scope) error {
	p, ok := PrincipalFrom(ctx)
	if !ok {
		return memory.Errorf(memory.EUNAUTHORIZED, "no authenticated key")
	}
	return s.authorize(p, bank, need)
}
