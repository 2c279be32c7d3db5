package provider_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/provider/openai"
)

const testKey = "sk-test-0123456789abcdef"

var factsSchema = &memory.Schema{Name: "facts", JSON: []byte(`{
	"type": "object",
	"properties": {"facts": {"type": "array", "items": {"type": "string"}}},
	"required": ["facts"],
	"additionalProperties": false
}`)}

// sleeps records the delays a guard asked for, without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// newEnv starts a scripted server and a guard with small, fast settings.
func newEnv(t *testing.T) (*llmtest.Server, *provider.Guard, *sleeps, memory.LLM) {
	t.Helper()
	s := llmtest.NewServer()
	t.Cleanup(s.Close)
	g := provider.NewGuard()
	g.Backoff, g.MaxBackoff, g.Timeout = time.Millisecond, 10*time.Second, 2*time.Second
	sl := &sleeps{}
	g.Sleep = sl.sleep
	llm := g.LLM(openai.New(openai.Config{BaseURL: s.URL(), APIKey: testKey, Model: "m"}))
	return s, g, sl, llm
}

func extractReq() *memory.ChatRequest {
	return &memory.ChatRequest{
		Stage:    "extract",
		System:   "Extract facts.",
		Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: "Lena adopted a cat."}},
		Schema:   factsSchema,
	}
}

func TestNewGuard(t *testing.T) {
	g := provider.NewGuard()
	if got, want := g.Retries, provider.DefaultRetries; got != want {
		t.Errorf("Retries = %d, want %d", got, want)
	}
	if got, want := g.MalformedRetries, provider.DefaultMalformedRetries; got != want {
		t.Errorf("MalformedRetries = %d, want %d", got, want)
	}
	if got, want := g.Timeout, provider.DefaultTimeout; got != want {
		t.Errorf("Timeout = %v, want %v", got, want)
	}
	if got, want := g.Backoff, provider.DefaultBackoff; got != want {
		t.Errorf("Backoff = %v, want %v", got, want)
	}
	if got, want := g.MaxBackoff, provider.DefaultMaxBackoff; got != want {
		t.Errorf("MaxBackoff = %v, want %v", got, want)
	}
	if got, want := g.Concurrency, provider.DefaultConcurrency; got != want {
		t.Errorf("Concurrency = %d, want %d", got, want)
	}
	if g.Sleep == nil {
		t.Error("Sleep is nil")
	}
}

func TestGuard_LLM(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		s, g, sl, llm := newEnv(t)
		s.On(llmtest.Rule{Schema: "facts", Reply: llmtest.Reply{JSON: map[string]any{"facts": []string{"Lena has a cat"}}, Usage: memory.Usage{InputTokens: 11, OutputTokens: 7}}})
		resp, err := llm.Chat(t.Context(), extractReq())
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(resp.JSON), `{"facts":["Lena has a cat"]}`; got != want {
			t.Errorf("JSON = %s, want %s", got, want)
		}
		if got, want := llm.Name(), "openai:m"; got != want {
			t.Errorf("Name = %q, want %q", got, want)
		}
		st := g.Stats()["extract"]
		if got, want := st.Calls, 1; got != want {
			t.Errorf("Calls = %d, want %d", got, want)
		}
		if st.Errors != 0 || st.Retries != 0 {
			t.Errorf("Errors, Retries = %d, %d, want 0, 0", st.Errors, st.Retries)
		}
		if got, want := st.InputTokens, 11; got != want {
			t.Errorf("InputTokens = %d, want %d", got, want)
		}
		if got, want := st.OutputTokens, 7; got != want {
			t.Errorf("OutputTokens = %d, want %d", got, want)
		}
		if st.Latency <= 0 {
			t.Errorf("Latency = %v, want > 0", st.Latency)
		}
		if got := sl.got(); len(got) != 0 {
			t.Errorf("slept %v, want no sleep", got)
		}
	})

	t.Run("DefaultStage", func(t *testing.T) {
		s, g, _, llm := newEnv(t)
		s.On(llmtest.Rule{Reply: llmtest.Reply{Content: "hello"}})
		if _, err := llm.Chat(t.Context(), &memory.ChatRequest{Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: "hi"}}}); err != nil {
			t.Fatal(err)
		}
		if got, want := g.Stats()[provider.StageChat].Calls, 1; got != want {
			t.Errorf("chat Calls = %d, want %d", got, want)
		}
	})

	t.Run("429ThenSuccess", func(t *testing.T) {
		s, g, sl, llm := newEnv(t)
		s.On(llmtest.Rule{Times: 1, Reply: llmtest.Reply{Status: 429, Content: "slow down", RetryAfter: 2 * time.Second}})
		s.On(llmtest.Rule{Reply: llmtest.Reply{JSON: map[string]any{"facts": []string{}}, Usage: memory.Usage{InputTokens: 5, OutputTokens: 2}}})
		if _, err := llm.Chat(t.Context(), extractReq()); err != nil {
			t.Fatal(err)
		}
		if got, want := sl.got(), []time.Duration{2 * time.Second}; !equalDurations(got, want) {
			t.Errorf("slept %v, want %v (the Retry-After hint)", got, want)
		}
		st := g.Stats()["extract"]
		if got, want := [3]int{st.Calls, st.Errors, st.Retries}, [3]int{2, 1, 1}; got != want {
			t.Errorf("Calls, Errors, Retries = %v, want %v", got, want)
		}
		if got, want := st.InputTokens, 5; got != want {
			t.Errorf("InputTokens = %d, want %d", got, want)
		}
	})

	t.Run("RetryAfterCapped", func(t *testing.T) {
		s, g, sl, llm := newEnv(t)
		g.MaxBackoff = 3 * time.Second
		s.On(llmtest.Rule{Times: 1, Reply: llmtest.Reply{Status: 503, RetryAfter: time.Minute}})
		s.On(llmtest.Rule{Reply: llmtest.Reply{JSON: map[string]any{"facts": []string{}}}})
		if _, err := llm.Chat(t.Context(), extractReq()); err != nil {
			t.Fatal(err)
		}
		if got, want := sl.got(), []time.Duration{3 * time.Second}; !equalDurations(got, want) {
			t.Errorf("slept %v, want %v", got, want)
		}
	})

	t.Run("ErrUnavailable", func(t *testing.T) {
		s, g, sl, llm := newEnv(t)
		g.Backoff, g.MaxBackoff = 10*time.Millisecond, 25*time.Millisecond
		s.On(llmtest.Rule{Reply: llmtest.Reply{Status: 500, Content: "model crashed\n  while loading"}})
		_, err := llm.Chat(t.Context(), extractReq())
		if got, want := memory.ErrorCode(err), memory.EUNAVAILABLE; got != want {
			t.Fatalf("code = %q, want %q (%v)", got, want, err)
		}
		if got, want := memory.ErrorMessage(err), "llm extract: provider unavailable after 4 attempts: HTTP 500: model crashed while loading"; got != want {
			t.Errorf("message = %q, want %q", got, want)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("error %q has several lines", err)
		}
		if got, want := len(s.Requests()), provider.DefaultRetries+1; got != want {
			t.Errorf("requests = %d, want %d", got, want)
		}
		// Full jitter under a doubling, capped ceiling.
		ceilings := []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 25 * time.Millisecond}
		got := sl.got()
		if len(got) != len(ceilings) {
			t.Fatalf("slept %v, want %d sleeps", got, len(ceilings))
		}
		for i, d := range got {
			if d < 0 || d > ceilings[i] {
				t.Errorf("sleep %d = %v, want in [0, %v]", i, d, ceilings[i])
			}
		}
		st := g.Stats()["extract"]
		if got, want := [3]int{st.Calls, st.Errors, st.Retries}, [3]int{4, 4, 3}; got != want {
			t.Errorf("Calls, Errors, Retries = %v, want %v", got, want)
		}
		var pe *provider.Error
		if !errors.As(err, &pe) || pe.Status != 500 {
			t.Errorf("provider error status = %+v, want 500", pe)
		}
	})

	t.Run("ErrUnauthorized", func(t *testing.T) {
		s, g, _, llm := newEnv(t)
		s.On(llmtest.Rule{Reply: llmtest.Reply{Status: 401, Content: "Incorrect API key provided: " + testKey}})
		_, err := llm.Chat(t.Context(), extractReq())
		if got, want := memory.ErrorCode(err), memory.EUNAUTHORIZED; got != want {
			t.Fatalf("code = %q, want %q (%v)", got, want, err)
		}
		if strings.Contains(err.Error(), testKey) {
			t.Errorf("error %q contains the API key", err)
		}
		if got, want := memory.ErrorMessage(err), "llm extract: HTTP 401: Incorrect API key provided: [redacted]"; got != want {
			t.Errorf("message = %q, want %q", got, want)
		}
		if got, want := g.Stats()["extract"].Calls, 1; got != want {
			t.Errorf("Calls = %d, want %d (not retried)", got, want)
		}
	})

	t.Run("Timeout", func(t *testing.T) {
		s, g, _, llm := newEnv(t)
		g.Timeout, g.Retries = 50*time.Millisecond, 1
		s.On(llmtest.Rule{Reply: llmtest.Reply{Hang: true}})
		start := time.Now()
		_, err := llm.Chat(t.Context(), extractReq())
		if got, want := memory.ErrorCode(err), memory.EUNAVAILABLE; got != want {
			t.Fatalf("code = %q, want %q (%v)", got, want, err)
		}
		if got, want := memory.ErrorMessage(err), "llm extract: provider unavailable after 2 attempts: timed out after 50ms"; got != want {
			t.Errorf("message = %q, want %q", got, want)
		}
		if got, want := len(s.Requests()), 2; got != want {
			t.Errorf("requests = %d, want %d", got, want)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("took %v", d)
		}
	})

	t.Run("CallerCancel", func(t *testing.T) {
		s, _, _, llm := newEnv(t)
		s.On(llmtest.Rule{Reply: llmtest.Reply{Hang: true}})
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		_, err := llm.Chat(ctx, extractReq())
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if got, want := len(s.Requests()), 1; got != want {
			t.Errorf("requests = %d, want %d (no retry after cancel)", got, want)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("took %v", d)
		}
	})

	t.Run("CallerCancelDuringBackoff", func(t *testing.T) {
		s, g, _, llm := newEnv(t)
		g.Sleep = nil // the real timer
		g.Backoff, g.MaxBackoff = time.Hour, time.Hour
		s.On(llmtest.Rule{Reply: llmtest.Reply{Status: 503, RetryAfter: time.Hour}})
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		_, err := llm.Chat(ctx, extractReq())
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("took %v", d)
		}
	})

	t.Run("CallerDeadline", func(t *testing.T) {
		s, g, _, llm := newEnv(t)
		g.Timeout = time.Minute
		s.On(llmtest.Rule{Reply: llmtest.Reply{Hang: true}})
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		_, err := llm.Chat(ctx, extractReq())
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want context.DeadlineExceeded", err)
		}
		if got, want := len(s.Requests()), 1; got != want {
			t.Errorf("requests = %d, want %d (the caller's deadline is not retried)", got, want)
		}
	})

	t.Run("Malformed", func(t *testing.T) {
		good := map[string]any{"facts": []string{"Lena has a cat", "the cat is called Miso"}}
		for _, tt := range []struct {
			name  string
			reply llmtest.Reply
			want  string
		}{
			{"TruncatedContent", llmtest.Reply{JSON: good, TruncateContent: true}, "token limit"},
			{"TruncatedBody", llmtest.Reply{JSON: good, TruncateBody: true}, "unreadable response"},
			{"SchemaViolation", llmtest.Reply{JSON: map[string]any{"facts": "Lena has a cat"}}, "violates schema facts"},
			{"NotJSON", llmtest.Reply{Content: "I could not find any facts."}, "no JSON"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				s, g, sl, llm := newEnv(t)
				g.MalformedRetries = 2
				s.On(llmtest.Rule{Reply: tt.reply})
				_, err := llm.Chat(t.Context(), extractReq())
				if !errors.Is(err, provider.ErrMalformed) {
					t.Fatalf("err = %v, want ErrMalformed", err)
				}
				if got, want := memory.ErrorCode(err), memory.EINVALID; got != want {
					t.Errorf("code = %q, want %q", got, want)
				}
				msg := memory.ErrorMessage(err)
				if !strings.HasPrefix(msg, "llm extract: malformed answer after 3 attempts: ") || !strings.Contains(msg, tt.want) {
					t.Errorf("message = %q, want the malformed prefix and %q", msg, tt.want)
				}
				if got, want := len(s.Requests()), 3; got != want {
					t.Errorf("requests = %d, want %d", got, want)
				}
				if got := sl.got(); len(got) != 2 || got[0] != 0 || got[1] != 0 {
					t.Errorf("slept %v, want two immediate retries", got)
				}
			})
		}
	})

	t.Run("MalformedThenSuccess", func(t *testing.T) {
		s, g, _, llm := newEnv(t)
		s.On(llmtest.Rule{Times: 1, Reply: llmtest.Reply{Content: "{\"facts\": [\"a\""}})
		s.On(llmtest.Rule{Reply: llmtest.Reply{JSON: map[string]any{"facts": []string{"a"}}}})
		resp, err := llm.Chat(t.Context(), extractReq())
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(resp.JSON), `{"facts":["a"]}`; got != want {
			t.Errorf("JSON = %s, want %s", got, want)
		}
		if got, want := g.Stats()["extract"].Retries, 1; got != want {
			t.Errorf("Retries = %d, want %d", got, want)
		}
	})

	t.Run("Concurrency", func(t *testing.T) {
		s := llmtest.NewServer()
		defer s.Close()
		s.On(llmtest.Rule{Reply: llmtest.Reply{Content: "ok", Delay: 40 * time.Millisecond}})
		g := provider.NewGuard()
		g.Concurrency = 2
		probe := &inflight{LLM: openai.New(openai.Config{BaseURL: s.URL(), Model: "m"})}
		llm := g.LLM(probe)
		var wg sync.WaitGroup
		for range 6 {
			wg.Go(func() {
				if _, err := llm.Chat(t.Context(), &memory.ChatRequest{Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: "hi"}}}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if got, want := probe.max.Load(), int32(2); got != want {
			t.Errorf("max in flight = %d, want %d", got, want)
		}
		if got, want := g.Stats()[provider.StageChat].Calls, 6; got != want {
			t.Errorf("Calls = %d, want %d", got, want)
		}
	})
}

// inflight counts the calls in progress and their maximum.
type inflight struct {
	memory.LLM
	n, max atomic.Int32
}

func (l *inflight) Chat(ctx context.Context, req *memory.ChatRequest) (*memory.ChatResponse, error) {
	n := l.n.Add(1)
	defer l.n.Add(-1)
	for {
		m := l.max.Load()
		if n <= m || l.max.CompareAndSwap(m, n) {
			break
		}
	}
	return l.LLM.Chat(ctx, req)
}

func TestGuard_Embedder(t *testing.T) {
	s := llmtest.NewServer()
	defer s.Close()
	s.SetDimension(8)
	s.On(llmtest.Rule{Path: llmtest.PathEmbeddings, Times: 1, Reply: llmtest.Reply{Status: 503, Content: "warming up"}})
	e, err := openai.NewEmbedder(t.Context(), openai.EmbedConfig{BaseURL: s.URL(), Model: "e", Dimension: 8})
	if err != nil {
		t.Fatal(err)
	}
	g := provider.NewGuard()
	sl := &sleeps{}
	g.Sleep = sl.sleep
	ge := g.Embedder(e)
	if got, want := ge.Name(), "openai:e"; got != want {
		t.Errorf("Name = %q, want %q", got, want)
	}
	if got, want := ge.Dimension(), 8; got != want {
		t.Errorf("Dimension = %d, want %d", got, want)
	}
	vs, err := ge.Embed(t.Context(), []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(vs), 2; got != want {
		t.Fatalf("vectors = %d, want %d", got, want)
	}
	st := g.Stats()[provider.StageEmbed]
	if got, want := [3]int{st.Calls, st.Errors, st.Retries}, [3]int{2, 1, 1}; got != want {
		t.Errorf("Calls, Errors, Retries = %v, want %v", got, want)
	}
}

// flakyReranker fails with EUNAVAILABLE a number of times, then scores.
type flakyReranker struct{ fails atomic.Int32 }

func (r *flakyReranker) Name() string { return "flaky" }

func (r *flakyReranker) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	if r.fails.Add(-1) >= 0 {
		return nil, memory.Errorf(memory.EUNAVAILABLE, "HTTP 502: bad gateway")
	}
	out := make([]float64, len(docs))
	for i, d := range docs {
		out[i] = float64(len(d))
	}
	return out, nil
}

func TestGuard_Reranker(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		g := provider.NewGuard()
		g.Sleep = (&sleeps{}).sleep
		r := &flakyReranker{}
		r.fails.Store(2)
		scores, err := g.Reranker(r).Rerank(t.Context(), "q", []string{"a", "bbb"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := scores, []float64{1, 3}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("scores = %v, want %v", got, want)
		}
		if got, want := g.Stats()[provider.StageRerank].Retries, 2; got != want {
			t.Errorf("Retries = %d, want %d", got, want)
		}
	})
	t.Run("ErrUnavailable", func(t *testing.T) {
		g := provider.NewGuard()
		g.Retries = 1
		g.Sleep = (&sleeps{}).sleep
		r := &flakyReranker{}
		r.fails.Store(10)
		_, err := g.Reranker(r).Rerank(t.Context(), "q", []string{"a"})
		if got, want := memory.ErrorMessage(err), "rerank: provider unavailable after 2 attempts: HTTP 502: bad gateway"; got != want {
			t.Errorf("message = %q, want %q", got, want)
		}
	})
}

func TestGuard_Stats(t *testing.T) {
	s, g, _, llm := newEnv(t)
	s.On(llmtest.Rule{Reply: llmtest.Reply{Content: "ok", Usage: memory.Usage{InputTokens: 1, OutputTokens: 1}}})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			stage := "a"
			if i%2 == 1 {
				stage = "b"
			}
			_, _ = llm.Chat(t.Context(), &memory.ChatRequest{Stage: stage, Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: "x"}}})
			_ = g.Stats()
		})
	}
	wg.Wait()
	stats := g.Stats()
	if got, want := stats["a"].Calls+stats["b"].Calls, 8; got != want {
		t.Errorf("calls = %d, want %d", got, want)
	}
	if got, want := stats["a"].InputTokens, 4; got != want {
		t.Errorf("a InputTokens = %d, want %d", got, want)
	}
	stats["a"] = memory.StageStats{}
	if g.Stats()["a"].Calls == 0 {
		t.Error("Stats returned the guard's own map")
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name string
		h    map[string]string
		want time.Duration
	}{
		{"None", nil, 0},
		{"Seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{"Fraction", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"Millis", map[string]string{"Retry-After": "1", "Retry-After-Ms": "250"}, 250 * time.Millisecond},
		{"Date", map[string]string{"Retry-After": now.Add(7 * time.Second).Format(http.TimeFormat)}, 7 * time.Second},
		{"Garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"Negative", map[string]string{"Retry-After": "-4"}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := make(map[string][]string)
			for k, v := range tt.h {
				h[k] = []string{v}
			}
			if got := provider.ParseRetryAfter(h, now); got != tt.want {
				t.Errorf("ParseRetryAfter = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHTTPError(t *testing.T) {
	for _, tt := range []struct {
		status int
		want   string
	}{
		{400, memory.EINVALID},
		{401, memory.EUNAUTHORIZED},
		{403, memory.EUNAUTHORIZED},
		{404, memory.ENOTFOUND},
		{408, memory.EUNAVAILABLE},
		{422, memory.EINVALID},
		{429, memory.EUNAVAILABLE},
		{500, memory.EUNAVAILABLE},
		{529, memory.EUNAVAILABLE},
	} {
		err := provider.HTTPError(tt.status, "x", 0)
		if got := memory.ErrorCode(err); got != tt.want {
			t.Errorf("HTTPError(%d) code = %q, want %q", tt.status, got, tt.want)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{`{"error":{"message":"bad model","type":"invalid_request_error"}}`, "bad model"},
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Overloaded"},
		{`{"error":"model 'x' not found"}`, "model 'x' not found"},
		{`{"message":"nope"}`, "nope"},
		{`{"detail":"Not Found"}`, "Not Found"},
		{`{"detail":[{"loc":["body"],"msg":"field required"}]}`, `[{"loc":["body"],"msg":"field required"}]`},
		{"Bad Gateway", "Bad Gateway"},
	} {
		if got := provider.ErrorMessage([]byte(tt.body)); got != tt.want {
			t.Errorf("ErrorMessage(%s) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestRedact(t *testing.T) {
	if got, want := provider.Redact("key sk-abcdef used", "sk-abcdef"), "key [redacted] used"; got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
	if got, want := provider.Redact("a b", ""), "a b"; got != want {
		t.Errorf("Redact empty secret = %q, want %q", got, want)
	}
}

func TestOneLine(t *testing.T) {
	if got, want := provider.OneLine("a\n  b\tc ", 100), "a b c"; got != want {
		t.Errorf("OneLine = %q, want %q", got, want)
	}
	if got, want := provider.OneLine("héllo world", 2), "h…"; got != want {
		t.Errorf("OneLine cut = %q, want %q", got, want)
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func ExampleGuard() {
	s := llmtest.NewServer()
	defer s.Close()
	s.On(llmtest.Rule{Times: 1, Reply: llmtest.Reply{Status: 503, Content: "overloaded"}})
	s.On(llmtest.Rule{Schema: "facts", Reply: llmtest.Reply{JSON: map[string]any{"facts": []string{"Lena has a cat"}}}})

	g := provider.NewGuard()
	g.Backoff = time.Millisecond
	llm := g.LLM(openai.New(openai.Config{BaseURL: s.URL(), Model: "any"}))
	resp, err := llm.Chat(context.Background(), &memory.ChatRequest{
		Stage:    "extract",
		Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: "Lena adopted a cat."}},
		Schema:   factsSchema,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(resp.JSON))
	st := g.Stats()["extract"]
	fmt.Println("calls:", st.Calls, "retries:", st.Retries)
	// Output:
	// {"facts":["Lena has a cat"]}
	// calls: 2 retries: 1
}
