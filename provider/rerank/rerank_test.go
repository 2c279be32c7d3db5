package rerank

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
)

const testKey = "sk-test-0123456789"

// request is what a fake server saw.
type request struct {
	Method, Path, Auth, ContentType string
	Body                            map[string]any
}

// fake is an httptest server that records requests and answers with
// handle.
type fake struct {
	*httptest.Server
	mu     sync.Mutex
	seen   []request
	handle func(w http.ResponseWriter, body map[string]any)
}

func newFake(t *testing.T, handle func(w http.ResponseWriter, body map[string]any)) *fake {
	t.Helper()
	f := &fake{handle: handle}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(raw, &body)
		f.mu.Lock()
		f.seen = append(f.seen, request{r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), body})
		f.mu.Unlock()
		f.handle(w, body)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fake) requests() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.seen)
}

// strs reads a JSON array of strings from a decoded body.
func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// score is the fake cross-encoder: the fraction of the query's words in
// the document.
func score(query, doc string) float64 {
	q := strings.Fields(strings.ToLower(query))
	d := strings.ToLower(doc)
	n := 0
	for _, w := range q {
		if strings.Contains(d, w) {
			n++
		}
	}
	return float64(n) / float64(len(q))
}

type ranked struct {
	Index int
	Score float64
}

// rank scores docs and orders them best first, as the APIs answer.
func rank(query string, docs []string) []ranked {
	out := make([]ranked, len(docs))
	for i, d := range docs {
		out[i] = ranked{i, score(query, d)}
	}
	slices.SortStableFunc(out, func(a, b ranked) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return out
}

// cohere answers like Cohere v2: {"id", "results": [{"index",
// "relevance_score"}], "meta"}, best first, top_n of them.
func cohere(w http.ResponseWriter, body map[string]any) {
	docs, ok := body["documents"].([]any)
	if !ok || body["texts"] != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"message":"invalid request: documents is required"}`)
		return
	}
	r := rank(body["query"].(string), strs(docs))
	r = r[:int(body["top_n"].(float64))]
	var results []map[string]any
	for _, x := range r {
		results = append(results, map[string]any{"index": x.Index, "relevance_score": x.Score})
	}
	json.NewEncoder(w).Encode(map[string]any{"id": "abc", "results": results, "meta": map[string]any{"billed_units": map[string]int{"search_units": 1}}})
}

// jina answers like Jina: results carry the document and usage follows.
func jina(w http.ResponseWriter, body map[string]any) {
	docs := strs(body["documents"])
	var results []map[string]any
	for _, x := range rank(body["query"].(string), docs) {
		results = append(results, map[string]any{"index": x.Index, "document": map[string]string{"text": docs[x.Index]}, "relevance_score": x.Score})
	}
	json.NewEncoder(w).Encode(map[string]any{"model": body["model"], "usage": map[string]int{"total_tokens": 42}, "results": results})
}

// tei answers like text-embeddings-inference: a bare array of {"index",
// "score"}; a request without "texts" is refused with 422, as axum does.
func tei(w http.ResponseWriter, body map[string]any) {
	texts, ok := body["texts"].([]any)
	if !ok {
		w.WriteHeader(http.StatusUnprocessableEntity)
		fmt.Fprint(w, "Failed to deserialize the JSON body into the target type: missing field `texts`")
		return
	}
	var out []map[string]any
	for _, x := range rank(body["query"].(string), strs(texts)) {
		out = append(out, map[string]any{"index": x.Index, "score": x.Score})
	}
	json.NewEncoder(w).Encode(out)
}

var (
	testQuery = "support group"
	testDocs  = []string{"I painted a sunrise", "The support group was great", "My group of friends", "Nothing here"}
)

func wantScores() []float64 {
	out := make([]float64, len(testDocs))
	for i, d := range testDocs {
		out[i] = score(testQuery, d)
	}
	return out
}

func TestClient_Rerank(t *testing.T) {
	tests := []struct {
		name     string
		handle   func(http.ResponseWriter, map[string]any)
		path     string // appended to the server URL
		style    Style
		model    string
		wantPath string
		wantBody map[string]any
	}{
		{
			name: "CohereV2", handle: cohere, path: "/v2/rerank", model: "rerank-v3.5", wantPath: "/v2/rerank",
			wantBody: map[string]any{"model": "rerank-v3.5", "query": testQuery, "documents": toAny(testDocs), "top_n": float64(len(testDocs))},
		},
		{
			name: "CohereV1BaseURL", handle: cohere, path: "/v1", model: "rerank-english-v3.0", wantPath: "/v1/rerank",
			wantBody: map[string]any{"model": "rerank-english-v3.0", "query": testQuery, "documents": toAny(testDocs), "top_n": float64(len(testDocs))},
		},
		{
			name: "Jina", handle: jina, path: "/v1/rerank", model: "jina-reranker-v2-base-multilingual", wantPath: "/v1/rerank",
			wantBody: map[string]any{"model": "jina-reranker-v2-base-multilingual", "query": testQuery, "documents": toAny(testDocs), "top_n": float64(len(testDocs))},
		},
		{
			name: "TEI", handle: tei, path: "", wantPath: "/rerank",
			wantBody: map[string]any{"query": testQuery, "texts": toAny(testDocs), "truncate": true},
		},
		{
			name: "CohereStyleAtBareRerank", handle: cohere, path: "/rerank", style: StyleCohere, model: "bge-reranker", wantPath: "/rerank",
			wantBody: map[string]any{"model": "bge-reranker", "query": testQuery, "documents": toAny(testDocs), "top_n": float64(len(testDocs))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t, tt.handle)
			c, err := New(Config{URL: srv.URL + tt.path, APIKey: testKey, Model: tt.model, Style: tt.style})
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Rerank(context.Background(), testQuery, testDocs)
			if err != nil {
				t.Fatal(err)
			}
			if want := wantScores(); !slices.Equal(got, want) {
				t.Errorf("Rerank() = %v, want %v", got, want)
			}
			reqs := srv.requests()
			if len(reqs) != 1 {
				t.Fatalf("server saw %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Method != http.MethodPost || r.Path != tt.wantPath {
				t.Errorf("request %s %s, want POST %s", r.Method, r.Path, tt.wantPath)
			}
			if got, want := r.Auth, "Bearer "+testKey; got != want {
				t.Errorf("Authorization = %q, want %q", got, want)
			}
			if got, want := r.ContentType, "application/json"; got != want {
				t.Errorf("Content-Type = %q, want %q", got, want)
			}
			if !reflect.DeepEqual(r.Body, tt.wantBody) {
				t.Errorf("body = %v, want %v", r.Body, tt.wantBody)
			}
		})
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func TestClient_Rerank_DetectStyle(t *testing.T) {
	tests := []struct {
		name, path string
		handle     func(http.ResponseWriter, map[string]any)
		first      string // body field of the first request
		then       string // body field of the requests once detected
	}{
		{"CohereAtBareRerank", "/rerank", cohere, "texts", "documents"},
		{"TEIAtVersionedPath", "/v1/rerank", tei, "documents", "texts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t, tt.handle)
			c, err := New(Config{URL: srv.URL + tt.path, Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				got, err := c.Rerank(context.Background(), testQuery, testDocs)
				if err != nil {
					t.Fatal(err)
				}
				if want := wantScores(); !slices.Equal(got, want) {
					t.Errorf("Rerank() = %v, want %v", got, want)
				}
			}
			var fields []string
			for _, r := range srv.requests() {
				if _, ok := r.Body["texts"]; ok {
					fields = append(fields, "texts")
				} else {
					fields = append(fields, "documents")
				}
				if r.Auth != "" {
					t.Errorf("Authorization = %q without a key, want none", r.Auth)
				}
			}
			// One refused request, then the shape that worked, kept.
			if want := []string{tt.first, tt.then, tt.then}; !slices.Equal(fields, want) {
				t.Errorf("requests sent %v, want %v", fields, want)
			}
		})
	}
}

func TestClient_Rerank_Batches(t *testing.T) {
	srv := newFake(t, tei)
	c, err := New(Config{URL: srv.URL, BatchSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]string, 8)
	for i := range docs {
		docs[i] = strings.Repeat("support ", i%3) + fmt.Sprint("doc ", i)
	}
	got, err := c.Rerank(context.Background(), testQuery, docs)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, len(docs))
	for i, d := range docs {
		want[i] = score(testQuery, d)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Rerank() = %v, want %v", got, want)
	}
	var sizes []int
	for _, r := range srv.requests() {
		sizes = append(sizes, len(r.Body["texts"].([]any)))
	}
	slices.Sort(sizes)
	if want := []int{2, 3, 3}; !slices.Equal(sizes, want) {
		t.Errorf("batch sizes %v, want %v", sizes, want)
	}
}

func TestClient_Rerank_Empty(t *testing.T) {
	srv := newFake(t, tei)
	c, _ := New(Config{URL: srv.URL})
	got, err := c.Rerank(context.Background(), "q", nil)
	if err != nil || len(got) != 0 {
		t.Errorf("Rerank(no docs) = %v, %v; want [], nil", got, err)
	}
	if n := len(srv.requests()); n != 0 {
		t.Errorf("server saw %d requests, want 0", n)
	}
}

func TestClient_Rerank_Err(t *testing.T) {
	// Every failing server echoes the Authorization header in its body, so
	// the test also shows that the key never reaches an error.
	status := func(code int, header ...string) func(http.ResponseWriter, map[string]any) {
		return func(w http.ResponseWriter, _ map[string]any) {
			for i := 0; i+1 < len(header); i += 2 {
				w.Header().Set(header[i], header[i+1])
			}
			w.WriteHeader(code)
			fmt.Fprintf(w, `{"message":"nope, key Bearer %s"}`, testKey)
		}
	}
	body := func(s string) func(http.ResponseWriter, map[string]any) {
		return func(w http.ResponseWriter, _ map[string]any) { io.WriteString(w, s) }
	}
	tests := []struct {
		name      string
		handle    func(http.ResponseWriter, map[string]any)
		wantCode  string
		malformed bool
	}{
		{"Unauthorized", status(401), memory.EUNAUTHORIZED, false},
		{"Forbidden", status(403), memory.EUNAUTHORIZED, false},
		{"TooManyRequests", status(429, "Retry-After", "2"), memory.EUNAVAILABLE, false},
		{"ServerError", status(500), memory.EUNAVAILABLE, false},
		{"Unavailable", status(503), memory.EUNAVAILABLE, false},
		{"BadRequest", status(400), memory.EINVALID, false},
		{"TooLarge", status(413), memory.EINVALID, false},
		{"NotJSON", body("<html>hello</html>"), memory.EINVALID, true},
		{"NoResults", body(`{"id":"x"}`), memory.EINVALID, true},
		{"MissingDocument", body(`[{"index":0,"score":0.5},{"index":1,"score":0.1},{"index":2,"score":0.1}]`), memory.EINVALID, true},
		{"IndexOutOfRange", body(`{"results":[{"index":0,"relevance_score":1},{"index":1,"relevance_score":1},{"index":2,"relevance_score":1},{"index":7,"relevance_score":1}]}`), memory.EINVALID, true},
		{"Repeated", body(`[{"index":0,"score":1},{"index":0,"score":1},{"index":1,"score":1},{"index":2,"score":1}]`), memory.EINVALID, true},
		{"NoScore", body(`[{"index":0},{"index":1},{"index":2},{"index":3}]`), memory.EINVALID, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t, tt.handle)
			c, _ := New(Config{URL: srv.URL + "/v2/rerank", APIKey: testKey, Model: "m", Style: StyleCohere})
			_, err := c.Rerank(context.Background(), testQuery, testDocs)
			if got := memory.ErrorCode(err); got != tt.wantCode {
				t.Fatalf("Rerank() error = %v, code %q, want %q", err, got, tt.wantCode)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error %q holds the API key", err)
			}
			if got := errors.Is(err, provider.ErrMalformed); got != tt.malformed {
				t.Errorf("errors.Is(%v, ErrMalformed) = %v, want %v", err, got, tt.malformed)
			}
		})
	}
	t.Run("RetryAfter", func(t *testing.T) {
		srv := newFake(t, status(429, "Retry-After", "2"))
		c, _ := New(Config{URL: srv.URL, Style: StyleTEI})
		_, err := c.Rerank(context.Background(), testQuery, testDocs)
		var pe *provider.Error
		if !errors.As(err, &pe) || pe.RetryDelay != 2*time.Second {
			t.Errorf("Rerank() error = %v, want a provider.Error with a 2s Retry-After", err)
		}
	})
	t.Run("ConnectionRefused", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		c, _ := New(Config{URL: url + "/rerank?api_key=" + testKey, APIKey: testKey})
		_, err := c.Rerank(context.Background(), testQuery, testDocs)
		if got := memory.ErrorCode(err); got != memory.EUNAVAILABLE {
			t.Errorf("Rerank() error = %v, code %q, want %q", err, got, memory.EUNAVAILABLE)
		}
		if err != nil && strings.Contains(err.Error(), testKey) {
			t.Errorf("error %q holds the API key", err)
		}
	})
	t.Run("Timeout", func(t *testing.T) {
		block := make(chan struct{})
		srv := newFake(t, func(w http.ResponseWriter, _ map[string]any) { <-block })
		defer close(block)
		c, _ := New(Config{URL: srv.URL, HTTPClient: &http.Client{Timeout: 50 * time.Millisecond}})
		_, err := c.Rerank(context.Background(), testQuery, testDocs)
		if got := memory.ErrorCode(err); got != memory.EUNAVAILABLE {
			t.Errorf("Rerank() error = %v, code %q, want %q", err, got, memory.EUNAVAILABLE)
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		srv := newFake(t, tei)
		c, _ := New(Config{URL: srv.URL})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := c.Rerank(ctx, testQuery, testDocs); !errors.Is(err, context.Canceled) {
			t.Errorf("Rerank() error = %v, want context.Canceled", err)
		}
	})
}

func TestNew(t *testing.T) {
	tests := []struct {
		cfg          Config
		wantEndpoint string
		wantName     string
		wantStyle    Style
	}{
		{Config{URL: "http://localhost:8080"}, "http://localhost:8080/rerank", "rerank:localhost:8080", StyleTEI},
		{Config{URL: "http://localhost:8080/"}, "http://localhost:8080/rerank", "rerank:localhost:8080", StyleTEI},
		{Config{URL: "https://api.cohere.com/v2", Model: "rerank-v3.5"}, "https://api.cohere.com/v2/rerank", "rerank:rerank-v3.5", StyleCohere},
		{Config{URL: "https://api.jina.ai/v1/rerank", Model: "jina-reranker-v2-base-multilingual"}, "https://api.jina.ai/v1/rerank", "rerank:jina-reranker-v2-base-multilingual", StyleCohere},
		{Config{URL: "http://vllm:8000/rerank", Style: StyleCohere}, "http://vllm:8000/rerank", "rerank:vllm:8000", StyleCohere},
	}
	for _, tt := range tests {
		c, err := New(tt.cfg)
		if err != nil {
			t.Errorf("New(%+v): %v", tt.cfg, err)
			continue
		}
		if c.endpoint != tt.wantEndpoint || c.Name() != tt.wantName || c.style.Load().(Style) != tt.wantStyle {
			t.Errorf("New(%+v) = %s %s %s, want %s %s %s", tt.cfg, c.endpoint, c.Name(), c.style.Load(), tt.wantEndpoint, tt.wantName, tt.wantStyle)
		}
		if c.batch != DefaultBatchSize {
			t.Errorf("New(%+v).batch = %d, want %d", tt.cfg, c.batch, DefaultBatchSize)
		}
	}
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, cfg := range []Config{
			{},
			{URL: "localhost:8080"},
			{URL: "ftp://host/rerank"},
			{URL: "http://"},
			{URL: "http://host", Style: "voyage"},
			{URL: "http://host", BatchSize: -1},
		} {
			_, err := New(cfg)
			if got := memory.ErrorCode(err); got != memory.EINVALID {
				t.Errorf("New(%+v) error = %v, want code %s", cfg, err, memory.EINVALID)
			}
		}
	})
}

func TestParseScores(t *testing.T) {
	tests := []struct {
		name, body string
		n          int
		want       []float64
	}{
		{"TEI", `[{"index":1,"score":0.9},{"index":0,"score":0.1}]`, 2, []float64{0.1, 0.9}},
		{"Cohere", `{"results":[{"index":1,"relevance_score":0.9},{"index":0,"relevance_score":0.1}]}`, 2, []float64{0.1, 0.9}},
		{"Data", `{"object":"list","data":[{"index":0,"relevance_score":0.3}]}`, 1, []float64{0.3}},
		{"Negative", ` [{"index":0,"score":-3.5}] `, 1, []float64{-3.5}},
	}
	for _, tt := range tests {
		got, err := parseScores([]byte(tt.body), tt.n)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: parseScores() = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
}

func ExampleClient_Rerank() {
	// A stand-in for text-embeddings-inference serving a cross-encoder.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `[{"index":1,"score":0.98},{"index":0,"score":0.02}]`)
	}))
	defer srv.Close()

	c, err := New(Config{URL: srv.URL})
	if err != nil {
		panic(err)
	}
	scores, err := c.Rerank(context.Background(), "Where does Alice live?",
		[]string{"Bob likes tea.", "Alice moved to Lisbon in May."})
	if err != nil {
		panic(err)
	}
	fmt.Println(scores)
	// Output: [0.02 0.98]
}
