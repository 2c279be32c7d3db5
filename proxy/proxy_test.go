package proxy_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/proxy"
)

// upstream is a scripted LLM API: it records each request and answers
// with handle.
type upstream struct {
	srv    *httptest.Server
	mu     sync.Mutex
	reqs   []*http.Request
	bodies [][]byte
	handle func(w http.ResponseWriter, r *http.Request)
}

func newUpstream(t testing.TB, handle func(w http.ResponseWriter, r *http.Request)) *upstream {
	u := &upstream{handle: handle}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.reqs = append(u.reqs, r)
		u.bodies = append(u.bodies, b)
		u.mu.Unlock()
		u.handle(w, r)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *upstream) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.reqs)
}

func (u *upstream) body(i int) []byte {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.bodies[i]
}

// completion answers a non-streamed OpenAI chat completion.
func completion(text string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Upstream", "yes")
		b, _ := json.Marshal(text)
		io.WriteString(w, `{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":`+string(b)+`},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":3}}`)
	}
}

// fixture is an engine with two banks, a fact in each, and a key per
// bank.
type fixture struct {
	eng        *mnemo.Engine
	keyA, keyB string
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	ctx := t.Context()
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: filepath.Join(t.TempDir(), "m.db"), JobPoll: -1, SessionIdle: -1, AccessFlush: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	f := &fixture{eng: eng}
	for _, b := range []struct {
		bank, text string
		key        *string
	}{
		{"a", "Lena's cat is called Miso and sleeps on the radiator.", &f.keyA},
		{"b", "Bram's cat is called Pixel and hates the vacuum cleaner.", &f.keyB},
	} {
		if _, err := eng.CreateBank(ctx, b.bank); err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: b.bank, Text: b.text}); err != nil {
			t.Fatal(err)
		}
		secret, _, err := eng.CreateKey(ctx, mnemo.KeyRequest{Bank: b.bank, Scope: memory.ScopeWrite})
		if err != nil {
			t.Fatal(err)
		}
		*b.key = secret
	}
	return f
}

// serve runs a proxy in front of up and returns its URL.
func (f *fixture) serve(t testing.TB, up *upstream, cfg proxy.Config) (string, *proxy.Proxy) {
	t.Helper()
	cfg.Upstream = up.srv.URL + "/v1"
	p, err := proxy.New(f.eng, cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL, p
}

func post(t *testing.T, url string, header map[string]string, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// retained runs the queued retains and reports whether bank now holds a
// fact with text.
func (f *fixture) retained(t *testing.T, p *proxy.Proxy, bank, text string) bool {
	t.Helper()
	p.Close()
	if _, err := f.eng.RunJobs(t.Context()); err != nil {
		t.Fatal(err)
	}
	rec, err := f.eng.Recall(t.Context(), memory.Query{BankID: bank, Text: text, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rec.Results {
		if strings.Contains(r.Fact.Text, text) {
			return true
		}
	}
	return false
}

const chatBody = `{"model":"m","temperature":0.2,"custom_field":{"keep":true},"messages":[{"role":"system","content":"You are helpful."},{"role":"user","content":"What is my cat called?"}]}`

// The upstream request carries the bank's memory in its system message,
// every other field untouched; the client's Authorization goes through,
// the mnemo headers do not; the answer reaches the client byte for byte
// and the exchange is retained afterwards.
func TestProxy_OpenAIInjectsAndRetains(t *testing.T) {
	f := newFixture(t)
	up := newUpstream(t, completion("Your cat is called Miso; she loves the radiator."))
	url, p := f.serve(t, up, proxy.Config{})
	res := post(t, url+"/v1/chat/completions", map[string]string{"Authorization": "Bearer sk-upstream", proxy.HeaderKey: f.keyA}, chatBody)
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("X-Upstream") != "yes" || !strings.Contains(string(got), "Miso; she loves") {
		t.Fatalf("response %d %v: %s", res.StatusCode, res.Header, got)
	}
	r := up.reqs[0]
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-upstream" || r.Header.Get(proxy.HeaderKey) != "" {
		t.Errorf("upstream request %s, headers %v", r.URL.Path, r.Header)
	}
	var sent struct {
		Messages []struct{ Role, Content string } `json:"messages"`
		Custom   map[string]bool                  `json:"custom_field"`
		Temp     float64                          `json:"temperature"`
	}
	if err := json.Unmarshal(up.body(0), &sent); err != nil {
		t.Fatal(err)
	}
	if len(sent.Messages) != 2 || !strings.HasPrefix(sent.Messages[0].Content, "You are helpful.") || !strings.Contains(sent.Messages[0].Content, "Miso") {
		t.Errorf("upstream messages = %+v, want the system message with the memory of Miso", sent.Messages)
	}
	if strings.Contains(string(up.body(0)), "Pixel") {
		t.Error("bank b's memory reached a bank-a request")
	}
	if !sent.Custom["keep"] || sent.Temp != 0.2 {
		t.Errorf("other fields changed: %s", up.body(0))
	}
	if !f.retained(t, p, "a", "radiator") || !f.retained(t, p, "a", "What is my cat called") {
		t.Error("the exchange was not retained in bank a")
	}
}

// Streamed answers pass through chunk by chunk: the client reads the
// first chunk while the upstream is still holding the rest back.
func TestProxy_StreamsUnbuffered(t *testing.T) {
	f := newFixture(t)
	release := make(chan struct{})
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Your cat \"}}]}\n\n")
		fl.Flush()
		select {
		case <-release:
		case <-time.After(30 * time.Second):
		}
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"is Miso, curled on the windowsill.\"}}]}\n\ndata: [DONE]\n\n")
	})
	url, p := f.serve(t, up, proxy.Config{})
	type line struct {
		s   string
		err error
	}
	got := make(chan line, 1)
	var br *bufio.Reader
	var res *http.Response
	go func() {
		// Headers and the first chunk, while the upstream holds the rest.
		req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(strings.Replace(chatBody, `"model":"m"`, `"model":"m","stream":true`, 1)))
		req.Header.Set(proxy.HeaderKey, f.keyA)
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- line{"", err}
			return
		}
		res, br = r, bufio.NewReader(r.Body)
		s, err := br.ReadString('\n')
		got <- line{s, err}
	}()
	select {
	case first := <-got:
		if first.err != nil || !strings.Contains(first.s, "Your cat ") {
			t.Fatalf("first chunk = %q, %v", first.s, first.err)
		}
	case <-time.After(5 * time.Second):
		close(release)
		t.Fatal("the first chunk did not reach the client while the upstream held the rest back (buffered)")
	}
	defer res.Body.Close()
	close(release) // only now may the upstream finish
	rest, _ := io.ReadAll(br)
	if !strings.Contains(string(rest), "windowsill") || !strings.HasSuffix(string(rest), "data: [DONE]\n\n") {
		t.Errorf("rest of the stream = %q", rest)
	}
	if !f.retained(t, p, "a", "windowsill") {
		t.Error("the streamed answer was not retained")
	}
}

// Upstream errors reach the client unchanged (status, headers, body) and
// nothing is retained; an unreachable upstream is a 502.
func TestProxy_UpstreamErrorsPassThrough(t *testing.T) {
	f := newFixture(t)
	for _, status := range []int{429, 500} {
		up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, `{"error":{"message":"slow down","type":"rate_limit"}}`)
		})
		url, p := f.serve(t, up, proxy.Config{})
		res := post(t, url+"/v1/chat/completions", map[string]string{proxy.HeaderKey: f.keyA}, chatBody)
		got, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != status || res.Header.Get("Retry-After") != "7" || string(got) != `{"error":{"message":"slow down","type":"rate_limit"}}` {
			t.Errorf("%d: client got %d %v %s", status, res.StatusCode, res.Header, got)
		}
		if f.retained(t, p, "a", "What is my cat called") {
			t.Errorf("%d: a failed exchange was retained", status)
		}
	}
	p, err := proxy.New(f.eng, proxy.Config{Upstream: "http://127.0.0.1:1/v1"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	res := post(t, srv.URL+"/v1/chat/completions", map[string]string{proxy.HeaderKey: f.keyA}, chatBody)
	res.Body.Close()
	if res.StatusCode != http.StatusBadGateway {
		t.Errorf("unreachable upstream: %d, want 502", res.StatusCode)
	}
}

// A key for bank a cannot read bank b through X-Mnemo-Bank; a request
// without a key is refused unless the proxy is insecure-local; the
// opt-out header forwards the body untouched and retains nothing.
func TestProxy_KeysBanksAndOptOut(t *testing.T) {
	f := newFixture(t)
	up := newUpstream(t, completion("ok"))
	url, p := f.serve(t, up, proxy.Config{})
	for _, tc := range []struct {
		name   string
		header map[string]string
		status int
	}{
		{"OtherBank", map[string]string{proxy.HeaderKey: f.keyA, proxy.HeaderBank: "b"}, http.StatusNotFound},
		{"NoKey", nil, http.StatusUnauthorized},
		{"WrongKey", map[string]string{proxy.HeaderKey: "mnemo_wrong"}, http.StatusUnauthorized},
	} {
		res := post(t, url+"/v1/chat/completions", tc.header, chatBody)
		res.Body.Close()
		if res.StatusCode != tc.status {
			t.Errorf("%s: %d, want %d", tc.name, res.StatusCode, tc.status)
		}
	}
	if n := up.count(); n != 0 {
		t.Errorf("%d refused requests reached the upstream", n)
	}
	res := post(t, url+"/v1/chat/completions", map[string]string{proxy.HeaderKey: f.keyA, proxy.HeaderMemory: "off"}, chatBody)
	res.Body.Close()
	if res.StatusCode != 200 || string(up.body(0)) != chatBody {
		t.Errorf("opt-out: %d, upstream body %s, want the client's bytes", res.StatusCode, up.body(0))
	}
	if f.retained(t, p, "a", "What is my cat called") {
		t.Error("an opted-out exchange was retained")
	}

	url, _ = f.serve(t, up, proxy.Config{InsecureLocal: true, Bank: "b"})
	res = post(t, url+"/v1/chat/completions", nil, chatBody)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(up.body(1)), "Pixel") {
		t.Errorf("insecure-local: %d, upstream body %s, want bank b's memory", res.StatusCode, up.body(1))
	}
}

// Anthropic's Messages API: the memory joins the top-level system
// prompt, and a streamed answer's text deltas are retained.
func TestProxy_Anthropic(t *testing.T) {
	f := newFixture(t)
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\"}\n\n"+
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Miso naps \"}}\n\n"+
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"in the laundry basket.\"}}\n\n"+
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	})
	url, p := f.serve(t, up, proxy.Config{})
	body := `{"model":"claude","max_tokens":100,"stream":true,"system":[{"type":"text","text":"Be kind."}],"messages":[{"role":"user","content":[{"type":"text","text":"Where does my cat Miso sleep?"}]}]}`
	res := post(t, url+"/v1/messages", map[string]string{"x-api-key": "sk-ant", "anthropic-version": "2023-06-01", proxy.HeaderKey: f.keyA}, body)
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(got), "laundry basket") {
		t.Fatalf("response %d: %s", res.StatusCode, got)
	}
	if up.reqs[0].URL.Path != "/v1/messages" || up.reqs[0].Header.Get("X-Api-Key") != "sk-ant" {
		t.Errorf("upstream %s %v", up.reqs[0].URL.Path, up.reqs[0].Header)
	}
	var sent struct {
		System []struct{ Type, Text string } `json:"system"`
	}
	if err := json.Unmarshal(up.body(0), &sent); err != nil {
		t.Fatal(err)
	}
	if len(sent.System) != 2 || sent.System[0].Text != "Be kind." || !strings.Contains(sent.System[1].Text, "radiator") {
		t.Errorf("system = %+v, want the client's block then the memory", sent.System)
	}
	if !f.retained(t, p, "a", "laundry basket") {
		t.Error("the streamed answer was not retained")
	}
}
