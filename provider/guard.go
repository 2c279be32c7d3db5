// Package provider holds what every LLM, embedding and rerank client
// shares: the [Guard] that retries, times out, caps concurrency and counts
// usage; the provider [Error] with its retry hint; and the structured-output
// helpers ([StripThink], [ExtractJSON], [Validate], [SchemaPrompt]).
//
// The clients themselves live in subpackages, one per technology
// (provider/openai, provider/anthropic, provider/hashembed); the scripted
// OpenAI-compatible test server lives in provider/llmtest. Nothing here
// talks to the network.
package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Defaults of a [Guard] made by [NewGuard].
const (
	// DefaultRetries is how many attempts follow the first one when a
	// provider is unavailable (EUNAVAILABLE or a per-attempt timeout).
	DefaultRetries = 3
	// DefaultMalformedRetries is how many attempts follow a malformed
	// answer (see [ErrMalformed]).
	DefaultMalformedRetries = 1
	// DefaultTimeout bounds one attempt.
	DefaultTimeout = 60 * time.Second
	// DefaultBackoff is the first retry delay; it doubles per retry.
	DefaultBackoff = 500 * time.Millisecond
	// DefaultMaxBackoff caps the retry delay, Retry-After hints included.
	DefaultMaxBackoff = 10 * time.Second
	// DefaultConcurrency caps the calls in flight through one guard.
	DefaultConcurrency = 4
)

// Stage names under which [Guard.Stats] counts calls.
const (
	// StageChat counts the LLM calls whose request names no Stage.
	StageChat = "chat"
	// StageEmbed counts the calls of a guarded [memory.Embedder].
	StageEmbed = "embed"
	// StageRerank counts the calls of a guarded [memory.Reranker].
	StageRerank = "rerank"
)

// Error is a provider failure. It carries a memory error code and a
// one-line message safe to show (never an API key), the HTTP status when
// there was one, the server's Retry-After hint and the underlying cause.
//
// errors.As(err, **memory.Error) finds the code and message, so
// [memory.ErrorCode] works on it; errors.Is reaches the cause (for example
// [ErrMalformed], [context.Canceled]).
type Error struct {
	// Code is one of the memory error codes (memory.EUNAVAILABLE, …).
	Code string
	// Message is one line, e.g. "HTTP 500: overloaded".
	Message string
	// Status is the HTTP status of the failed response; 0 when none.
	Status int
	// RetryDelay is the server's Retry-After hint; 0 when none.
	RetryDelay time.Duration
	// Err is the cause; it may be nil.
	Err error
}

// Error returns the code and message, formatted like [memory.Error].
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Unwrap returns the equivalent *memory.Error and the cause.
func (e *Error) Unwrap() []error {
	errs := []error{&memory.Error{Code: e.Code, Message: e.Message}}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// RetryAfter returns the server's Retry-After hint; it implements the
// optional interface the [Guard] looks for in a failed attempt's error.
func (e *Error) RetryAfter() time.Duration { return e.RetryDelay }

// retryAfterer is implemented by errors that carry a server's hint of
// when to retry.
type retryAfterer interface{ RetryAfter() time.Duration }

// Malformed returns an EINVALID [*Error] wrapping [ErrMalformed]: the
// provider answered, but not with what was asked (unparsable JSON, a
// document that violates the schema, a truncated reply). The [Guard]
// retries it [Guard.MalformedRetries] times.
func Malformed(format string, args ...any) *Error {
	return &Error{Code: memory.EINVALID, Message: fmt.Sprintf(format, args...), Err: ErrMalformed}
}

// HTTPError maps an HTTP error status to an [*Error]: 429, 408 and 5xx to
// EUNAVAILABLE, 401 and 403 to EUNAUTHORIZED, 404 to ENOTFOUND (a wrong
// model or base URL) and other statuses to EINVALID. msg is the server's
// message, shortened to one line; retryAfter is the Retry-After hint.
func HTTPError(status int, msg string, retryAfter time.Duration) *Error {
	code := memory.EINVALID
	switch {
	case status == http.StatusTooManyRequests, status == http.StatusRequestTimeout, status >= 500:
		code = memory.EUNAVAILABLE
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		code = memory.EUNAUTHORIZED
	case status == http.StatusNotFound:
		code = memory.ENOTFOUND
	}
	m := fmt.Sprintf("HTTP %d", status)
	if msg = OneLine(msg, maxMessage); msg != "" {
		m += ": " + msg
	}
	return &Error{Code: code, Message: m, Status: status, RetryDelay: retryAfter}
}

// ParseRetryAfter reads a Retry-After header (seconds or an HTTP date,
// relative to now); it returns 0 when the header is absent or unreadable.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if ms := h.Get("Retry-After-Ms"); ms != "" {
		var f float64
		if _, err := fmt.Sscanf(ms, "%g", &f); err == nil && f > 0 {
			return time.Duration(f * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	var f float64
	if _, err := fmt.Sscanf(v, "%g", &f); err == nil {
		if f <= 0 {
			return 0
		}
		return time.Duration(f * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// maxMessage bounds a server message kept in an error.
const maxMessage = 300

// OneLine collapses whitespace in s to single spaces and cuts it to at
// most n bytes (on a rune boundary), adding "…" when it cut.
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !isRuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Redact replaces every occurrence of secret in s with "[redacted]". An
// empty or very short secret (under 4 bytes) leaves s unchanged.
func Redact(s, secret string) string {
	if len(secret) < 4 {
		return s
	}
	return strings.ReplaceAll(s, secret, "[redacted]")
}

// Guard wraps LLMs, embedders and rerankers with retries, per-attempt
// timeouts, one concurrency cap and usage statistics per stage. Every
// outbound provider call of an engine should go through one guard.
//
// Set the fields before the first call; after that a Guard is safe for
// concurrent use. The zero value is not ready: use [NewGuard].
type Guard struct {
	// Retries is how many attempts follow the first one when the provider
	// is unavailable: an error with code memory.EUNAVAILABLE (429, 5xx, a
	// refused connection…) or an attempt that hit Timeout. Default
	// [DefaultRetries]; 0 disables retries.
	Retries int
	// MalformedRetries is how many attempts follow a malformed answer (an
	// error wrapping [ErrMalformed]). Default [DefaultMalformedRetries].
	MalformedRetries int
	// Timeout bounds each attempt, not the whole call; the caller's
	// context bounds the whole call. Default [DefaultTimeout]; 0 means no
	// per-attempt timeout.
	Timeout time.Duration
	// Backoff is the delay before the first retry; it doubles per retry,
	// is capped at MaxBackoff, and each delay is drawn uniformly from
	// [0, delay] ("full jitter"). A Retry-After hint from the server
	// replaces the drawn delay, capped at MaxBackoff. Malformed answers
	// are retried at once. Default [DefaultBackoff].
	Backoff time.Duration
	// MaxBackoff caps every retry delay. Default [DefaultMaxBackoff].
	MaxBackoff time.Duration
	// Concurrency caps the attempts in flight across everything wrapped
	// by this guard; waiting for a slot respects the caller's context.
	// Default [DefaultConcurrency]; 0 or less means no cap.
	Concurrency int
	// Sleep waits d or until ctx is done, returning ctx.Err() then.
	// Default: a timer raced against ctx. Tests inject a recorder.
	Sleep func(ctx context.Context, d time.Duration) error

	once  sync.Once
	slots chan struct{}

	mu    sync.Mutex
	stats map[string]memory.StageStats
}

// NewGuard returns a guard with every field set to its Default* value.
func NewGuard() *Guard {
	return &Guard{
		Retries:          DefaultRetries,
		MalformedRetries: DefaultMalformedRetries,
		Timeout:          DefaultTimeout,
		Backoff:          DefaultBackoff,
		MaxBackoff:       DefaultMaxBackoff,
		Concurrency:      DefaultConcurrency,
		Sleep:            sleep,
	}
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stats returns a copy of the counters per stage ("extract", "embed",
// "rerank", …). Calls counts attempts, Errors failed attempts, Retries the
// attempts that followed a failure, Latency the summed attempt durations.
// Safe for concurrent use.
func (g *Guard) Stats() map[string]memory.StageStats {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make(map[string]memory.StageStats, len(g.stats))
	for k, v := range g.stats {
		out[k] = v
	}
	return out
}

// LLM wraps l so that every Chat goes through the guard, counted under
// req.Stage ([StageChat] when empty). Errors are [*Error]s whose message
// starts with "llm <stage>: ".
func (g *Guard) LLM(l memory.LLM) memory.LLM { return &guardedLLM{g: g, l: l} }

// Embedder wraps e so that every Embed goes through the guard, counted
// under [StageEmbed]. Errors start with "embed: ".
func (g *Guard) Embedder(e memory.Embedder) memory.Embedder { return &guardedEmbedder{g: g, e: e} }

// Reranker wraps r so that every Rerank goes through the guard, counted
// under [StageRerank]. Errors start with "rerank: ".
func (g *Guard) Reranker(r memory.Reranker) memory.Reranker { return &guardedReranker{g: g, r: r} }

var (
	_ memory.LLM      = (*guardedLLM)(nil)
	_ memory.Embedder = (*guardedEmbedder)(nil)
	_ memory.Reranker = (*guardedReranker)(nil)
)

type guardedLLM struct {
	g *Guard
	l memory.LLM
}

func (w *guardedLLM) Name() string { return w.l.Name() }

func (w *guardedLLM) Chat(ctx context.Context, req *memory.ChatRequest) (*memory.ChatResponse, error) {
	stage := StageChat
	if req != nil && req.Stage != "" {
		stage = req.Stage
	}
	var resp *memory.ChatResponse
	err := w.g.do(ctx, stage, "llm "+stage, func(ctx context.Context) (memory.Usage, error) {
		r, err := w.l.Chat(ctx, req)
		if r == nil {
			return memory.Usage{}, err
		}
		if err == nil {
			resp = r
		}
		return r.Usage, err
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

type guardedEmbedder struct {
	g *Guard
	e memory.Embedder
}

func (w *guardedEmbedder) Name() string   { return w.e.Name() }
func (w *guardedEmbedder) Dimension() int { return w.e.Dimension() }

// Lexical passes on what the wrapped embedder says (memory.Lexical).
func (w *guardedEmbedder) Lexical() bool { return memory.IsLexical(w.e) }

func (w *guardedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	var out [][]float32
	err := w.g.do(ctx, StageEmbed, "embed", func(ctx context.Context) (memory.Usage, error) {
		v, err := w.e.Embed(ctx, texts)
		if err == nil {
			out = v
		}
		return memory.Usage{}, err
	})
	return out, err
}

type guardedReranker struct {
	g *Guard
	r memory.Reranker
}

func (w *guardedReranker) Name() string { return w.r.Name() }

func (w *guardedReranker) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	var out []float64
	err := w.g.do(ctx, StageRerank, "rerank", func(ctx context.Context) (memory.Usage, error) {
		v, err := w.r.Rerank(ctx, query, docs)
		if err == nil {
			out = v
		}
		return memory.Usage{}, err
	})
	return out, err
}

// acquire takes a concurrency slot, or fails when ctx is done first.
func (g *Guard) acquire(ctx context.Context) (release func(), err error) {
	g.once.Do(func() {
		if g.Concurrency > 0 {
			g.slots = make(chan struct{}, g.Concurrency)
		}
	})
	if g.slots == nil {
		return func() {}, ctx.Err()
	}
	select {
	case g.slots <- struct{}{}:
		return func() { <-g.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// record adds one attempt to the stage's counters.
func (g *Guard) record(stage string, u memory.Usage, latency time.Duration, failed, retry bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stats == nil {
		g.stats = make(map[string]memory.StageStats)
	}
	s := g.stats[stage]
	s.Calls++
	if failed {
		s.Errors++
	}
	if retry {
		s.Retries++
	}
	s.InputTokens += u.InputTokens
	s.OutputTokens += u.OutputTokens
	s.Latency += latency
	g.stats[stage] = s
}

// do runs call with retries, a per-attempt timeout and a concurrency slot.
func (g *Guard) do(ctx context.Context, stage, prefix string, call func(context.Context) (memory.Usage, error)) error {
	sleepFn := g.Sleep
	if sleepFn == nil {
		sleepFn = sleep
	}
	unavailable, malformed := 0, 0 // retries spent per budget
	for attempt := 1; ; attempt++ {
		release, err := g.acquire(ctx)
		if err != nil {
			return g.canceled(prefix, ctx, err)
		}
		actx, cancel := ctx, context.CancelFunc(func() {})
		if g.Timeout > 0 {
			actx, cancel = context.WithTimeout(ctx, g.Timeout)
		}
		start := time.Now()
		usage, err := call(actx)
		latency := time.Since(start)
		timedOut := err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded)
		cancel()
		release()
		g.record(stage, usage, latency, err != nil, attempt > 1)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return g.canceled(prefix, ctx, ctx.Err())
		}

		var delay time.Duration
		switch {
		case timedOut || memory.ErrorCode(err) == memory.EUNAVAILABLE:
			if unavailable >= g.Retries {
				return final(prefix, "provider unavailable", attempt, err, timedOut, g.Timeout)
			}
			unavailable++
			delay = g.backoff(unavailable)
			var ra retryAfterer
			if errors.As(err, &ra) && ra.RetryAfter() > 0 {
				delay = min(ra.RetryAfter(), g.maxBackoff())
			}
		case errors.Is(err, ErrMalformed):
			if malformed >= g.MalformedRetries {
				return final(prefix, "malformed answer", attempt, err, false, 0)
			}
			malformed++
		default:
			return final(prefix, "", attempt, err, false, 0)
		}
		if err := sleepFn(ctx, delay); err != nil {
			return g.canceled(prefix, ctx, err)
		}
	}
}

func (g *Guard) maxBackoff() time.Duration {
	if g.MaxBackoff > 0 {
		return g.MaxBackoff
	}
	return DefaultMaxBackoff
}

// backoff draws the delay before retry n (1-based): full jitter over
// Backoff·2^(n-1), capped at MaxBackoff.
func (g *Guard) backoff(n int) time.Duration {
	if g.Backoff <= 0 {
		return 0
	}
	d, limit := g.Backoff, g.maxBackoff()
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	return time.Duration(rand.Int64N(int64(d) + 1))
}

// canceled reports that the caller's context ended the call.
func (g *Guard) canceled(prefix string, ctx context.Context, err error) error {
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return &Error{Code: memory.EUNAVAILABLE, Message: prefix + ": " + err.Error(), Err: err}
}

// final builds the one-line error returned after the last attempt, e.g.
// "llm extract: provider unavailable after 4 attempts: HTTP 500: boom".
func final(prefix, what string, attempts int, err error, timedOut bool, timeout time.Duration) error {
	code, msg := memory.ErrorCode(err), memory.ErrorMessage(err)
	if timedOut {
		code, msg = memory.EUNAVAILABLE, fmt.Sprintf("timed out after %s", timeout)
	}
	if code == memory.EINTERNAL {
		// Not a memory error: keep the detail for logs but show one line.
		msg = OneLine(err.Error(), maxMessage)
	}
	var b strings.Builder
	b.WriteString(prefix)
	b.WriteString(": ")
	if what != "" {
		b.WriteString(what)
		if attempts > 1 {
			fmt.Fprintf(&b, " after %d attempts", attempts)
		}
		b.WriteString(": ")
	}
	b.WriteString(msg)
	out := &Error{Code: code, Message: OneLine(b.String(), 2*maxMessage), Err: err}
	var pe *Error
	if errors.As(err, &pe) {
		out.Status = pe.Status
	}
	return out
}

// MapError turns the failure of one HTTP call to a provider into an
// [*Error]. res is the HTTP response when one arrived, its body still
// readable ([PostJSON] and the rerank client pass it). secret, usually the API key, is
// redacted from every message.
//
// The caller's context ending gives EUNAVAILABLE "timeout" or "canceled"
// wrapping ctx.Err(); an HTTP error status maps as in [HTTPError] with the
// server's message ([ErrorMessage]) and Retry-After hint; a complete 2xx
// response that cannot be decoded is malformed (EINVALID wrapping
// [ErrMalformed]); anything else (refused connection, reset, a body cut by
// the network) is EUNAVAILABLE.
func MapError(ctx context.Context, err error, res *http.Response, secret string) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		msg := "canceled"
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			msg = "timed out"
		}
		return &Error{Code: memory.EUNAVAILABLE, Message: msg, Err: ctxErr}
	}
	if res != nil && res.StatusCode >= 400 {
		var body []byte
		if res.Body != nil {
			body, _ = io.ReadAll(io.LimitReader(res.Body, 64<<10))
		}
		return HTTPError(res.StatusCode, Redact(ErrorMessage(body), secret), ParseRetryAfter(res.Header, time.Now()))
	}
	msg := OneLine(Redact(err.Error(), secret), maxMessage)
	if ue := (*url.Error)(nil); errors.As(err, &ue) && res == nil {
		// "Post "https://…": dial tcp …" → the cause; the URL adds nothing.
		msg = "connection failed: " + OneLine(Redact(ue.Err.Error(), secret), maxMessage)
	}
	if res != nil && !strings.Contains(err.Error(), "error reading response body") {
		// A complete response that is not the JSON the API promises.
		return &Error{Code: memory.EINVALID, Message: "unreadable response: " + msg, Status: res.StatusCode, Err: fmt.Errorf("%s: %w", msg, ErrMalformed)}
	}
	return &Error{Code: memory.EUNAVAILABLE, Message: msg, Err: errors.New(msg)}
}

// ErrorMessage extracts the message of an error response body in the
// shapes providers use: {"error":{"message":…}} (OpenAI, Anthropic),
// {"error":"…"} (Ollama), {"message":…}, {"detail":…} (TEI, FastAPI);
// otherwise the body text itself.
func ErrorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case v.Message != "":
			return v.Message
		case json.Unmarshal(v.Detail, &s) == nil && s != "":
			return s
		case len(v.Detail) > 0:
			return string(v.Detail)
		}
	}
	return string(body)
}
