package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/mnemo-ai/mnemo/memory"
)

// Access log attribute keys.
const (
	logMethod   = "method"
	logRoute    = "route"
	logPath     = "path"
	logStatus   = "status"
	logDuration = "duration"
	logBank     = "bank"
	logKey      = "key_id"
	logBytes    = "bytes"
)

// reqInfo is what the inner layers learn about a request for the access
// log: the key that made it.
type reqInfo struct{ keyID string }

type infoKey struct{}

// info returns ctx's reqInfo; a throwaway one outside observe.
func info(ctx context.Context) *reqInfo {
	if ri, ok := ctx.Value(infoKey{}).(*reqInfo); ok {
		return ri
	}
	return &reqInfo{}
}

// recorder remembers a response's status and size.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Flush implements http.Flusher for streamed answers (export, MCP).
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// observe wraps the mux: it times every request, counts it by route
// pattern and status (and errors by code), and writes one access log line.
// The key's secret is never logged, only its id.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &reqInfo{}
		rec := &recorder{ResponseWriter: w}
		r = r.WithContext(context.WithValue(r.Context(), infoKey{}, ri))
		next.ServeHTTP(rec, r)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		d := time.Since(start)
		route := r.Pattern // set by the mux on r: "POST /v1/banks/{bank}/recall"
		if route == "" {
			route = "unmatched"
		}
		s.metrics.request(route, rec.status, d)
		level := slog.LevelInfo
		if rec.status >= 500 {
			level = slog.LevelError
		}
		s.log.LogAttrs(r.Context(), level, "http request",
			slog.String(logMethod, r.Method), slog.String(logRoute, route), slog.String(logPath, r.URL.Path),
			slog.Int(logStatus, rec.status), slog.Duration(logDuration, d), slog.String(logBank, r.PathValue("bank")),
			slog.String(logKey, ri.keyID), slog.Int64(logBytes, rec.bytes))
	})
}

// guard is huma middleware for the operations that need a key: it
// authenticates the request, authorizes its {bank} for the operation's
// scope (a bank the key may not read answers as an unknown bank), and
// reads a JSON body whole under MaxBody, refusing invalid UTF-8.
func (s *Server) guard(ctx huma.Context, next func(huma.Context)) {
	o := ctx.Operation()
	need, ok := o.Metadata[metaScope].(Scope)
	if !ok {
		next(ctx)
		return
	}
	r, w := humago.Unwrap(ctx)
	p, err := s.authenticate(r)
	if err != nil {
		s.writeError(w, err)
		return
	}
	info(r.Context()).keyID = p.KeyID
	if bank := ctx.Param("bank"); bank != "" {
		if err := s.authorize(p, bank, need); err != nil {
			s.writeError(w, err)
			return
		}
	}
	if _, raw := o.Metadata[metaRaw]; !raw && r.Body != nil && r.Body != http.NoBody {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBody))
		if err != nil {
			s.writeError(w, s.fail(err))
			return
		}
		if !utf8.Valid(body) {
			s.writeError(w, memory.Errorf(memory.EINVALID, "request body is not valid UTF-8"))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	next(huma.WithValue(ctx, principalKey{}, p))
}

// tooLarge is the message of a body over limit bytes.
func tooLarge(limit int64) string {
	return fmt.Sprintf("request body is larger than %s bytes", strconv.FormatInt(limit, 10))
}
