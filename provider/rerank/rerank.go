// Package rerank is a client for cross-encoder rerank APIs: Cohere
// (/v1/rerank, /v2/rerank), Jina (/v1/rerank), Hugging Face
// text-embeddings-inference (TEI, /rerank) and the servers that copy one
// of them (vLLM, Infinity, LiteLLM, OpenVINO Model Server, …). It sends a
// query and documents and returns one relevance score per document.
//
// It holds no retries, no rate limiting and no caching: one Rerank is one
// round of HTTP requests; retrying belongs to the caller (provider.Guard).
package rerank

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
	"golang.org/x/sync/errgroup"
)

// DefaultTimeout bounds one HTTP request when Config.HTTPClient is nil.
const DefaultTimeout = 30 * time.Second

// DefaultBatchSize is the most documents sent in one request: TEI's
// default --max-client-batch-size. Cohere takes up to 1,000 per request
// and bills per 100; raise Config.BatchSize for it.
const DefaultBatchSize = 32

// DefaultConcurrency is how many requests of one Rerank run at once.
const DefaultConcurrency = 4

// maxResponse bounds the bytes read of a response.
const maxResponse = 16 << 20

// Style is the request shape a server expects.
type Style string

const (
	// StyleAuto tries the shape the URL suggests (StyleCohere for a path
	// ending in /v1/rerank or /v2/rerank, StyleTEI otherwise) and, when
	// the server refuses it with 400 or 422, the other one; the shape that
	// worked is kept for the Client's later calls.
	StyleAuto Style = ""
	// StyleCohere sends {"model", "query", "documents", "top_n"}: Cohere,
	// Jina, vLLM, Infinity, LiteLLM.
	StyleCohere Style = "cohere"
	// StyleTEI sends {"query", "texts", "truncate"}: Hugging Face
	// text-embeddings-inference.
	StyleTEI Style = "tei"
)

// Config configures a Client.
type Config struct {
	// URL is the rerank endpoint, e.g. "https://api.cohere.com/v2/rerank",
	// "https://api.jina.ai/v1/rerank" or "http://localhost:8080/rerank";
	// "/rerank" is appended to a URL whose path does not end with it
	// ("http://localhost:8080", "https://api.cohere.com/v2"). Required.
	URL string
	// APIKey, when set, is sent as "Authorization: Bearer <APIKey>". It
	// never appears in an error.
	APIKey string
	// Model names the reranker ("rerank-v3.5",
	// "jina-reranker-v2-base-multilingual"); servers of one model (TEI)
	// ignore it.
	Model string
	// HTTPClient sends the requests; nil means a client with
	// DefaultTimeout.
	HTTPClient *http.Client
	// Style is the request shape; StyleAuto (the zero value) detects it.
	Style Style
	// BatchSize is the most documents per request; 0 means
	// DefaultBatchSize.
	BatchSize int
}

// Client reranks documents through one endpoint. Create it with New; it is
// safe for concurrent use.
type Client struct {
	endpoint string
	host     string
	key      string
	model    string
	hc       *http.Client
	batch    int
	fixed    bool         // the style was configured, not detected
	style    atomic.Value // Style: the one to try first
	name     string
}

var _ memory.Reranker = (*Client)(nil)

// New returns a client for cfg. A missing or malformed URL, an unknown
// Style or a negative BatchSize is EINVALID.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(cfg.URL))
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return nil, memory.Errorf(memory.EINVALID, "rerank URL %q is not an http(s) URL", redactURL(cfg.URL))
	}
	if !strings.HasSuffix(u.Path, "/rerank") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/rerank"
	}
	if cfg.BatchSize < 0 {
		return nil, memory.Errorf(memory.EINVALID, "rerank batch size %d is negative", cfg.BatchSize)
	}
	c := &Client{
		endpoint: u.String(),
		host:     u.Host,
		key:      cfg.APIKey,
		model:    cfg.Model,
		hc:       cfg.HTTPClient,
		batch:    cfg.BatchSize,
	}
	if c.hc == nil {
		c.hc = &http.Client{Timeout: DefaultTimeout}
	}
	if c.batch == 0 {
		c.batch = DefaultBatchSize
	}
	switch cfg.Style {
	case StyleCohere, StyleTEI:
		c.fixed = true
		c.style.Store(cfg.Style)
	case StyleAuto:
		if strings.HasSuffix(u.Path, "/v1/rerank") || strings.HasSuffix(u.Path, "/v2/rerank") {
			c.style.Store(StyleCohere)
		} else {
			c.style.Store(StyleTEI)
		}
	default:
		return nil, memory.Errorf(memory.EINVALID, "unknown rerank style %q (want %q or %q)", cfg.Style, StyleCohere, StyleTEI)
	}
	c.name = "rerank:" + c.host
	if c.model != "" {
		c.name = "rerank:" + c.model
	}
	return c, nil
}

// Name returns "rerank:<model>", or "rerank:<host>" when no model is set.
func (c *Client) Name() string { return c.name }

// Rerank returns one relevance score per document, in the documents'
// order; higher is more relevant. Scores are the server's (Cohere and
// Jina: 0–1; TEI: a sigmoid, 0–1) and comparable within one call. Empty
// docs return an empty slice without a request.
//
// Documents go in batches of Config.BatchSize, up to DefaultConcurrency
// at once. Errors are [provider.Error]s, mapped as [provider.MapError]
// does: a refused connection, a timeout, 408, 429 or 5xx are EUNAVAILABLE
// (with the server's Retry-After hint); 401 and 403 are EUNAUTHORIZED; 404
// (a wrong URL) is ENOTFOUND; any other refusal is EINVALID, and so is an
// answer that does not score each document exactly once (wrapping
// provider.ErrMalformed). The API key never appears in an error. When ctx
// ends, the error wraps ctx.Err().
func (c *Client) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	scores := make([]float64, len(docs))
	if len(docs) == 0 {
		return scores, nil
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(DefaultConcurrency)
	for start := 0; start < len(docs); start += c.batch {
		end := min(start+c.batch, len(docs))
		g.Go(func() error {
			got, err := c.rerankBatch(gctx, query, docs[start:end])
			if err != nil {
				return err
			}
			copy(scores[start:end], got)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return scores, nil
}

// rerankBatch scores one batch, trying the other style when the server
// refuses the first one's shape.
func (c *Client) rerankBatch(ctx context.Context, query string, docs []string) ([]float64, error) {
	first := c.style.Load().(Style)
	scores, err := c.send(ctx, first, query, docs)
	if err == nil || c.fixed || !refusedShape(err) {
		return scores, err
	}
	other := StyleCohere
	if first == StyleCohere {
		other = StyleTEI
	}
	if scores, err2 := c.send(ctx, other, query, docs); err2 == nil {
		c.style.Store(other)
		return scores, nil
	}
	return nil, err // the first answer explains more: the URL suggested its shape
}

// refusedShape reports whether err is a 400 or 422 answer: the server may
// want the other shape.
func refusedShape(err error) bool {
	var pe *provider.Error
	return errors.As(err, &pe) && (pe.Status == http.StatusBadRequest || pe.Status == http.StatusUnprocessableEntity)
}

type cohereRequest struct {
	Model     string   `json:"model,omitempty"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	TopN      int      `json:"top_n"`
}

type teiRequest struct {
	Query    string   `json:"query"`
	Texts    []string `json:"texts"`
	Truncate bool     `json:"truncate"`
}

// send posts one request of the given style and parses the answer.
func (c *Client) send(ctx context.Context, style Style, query string, docs []string) ([]float64, error) {
	var body any = cohereRequest{Model: c.model, Query: query, Documents: docs, TopN: len(docs)}
	if style == StyleTEI {
		body = teiRequest{Query: query, Texts: docs, Truncate: true}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, memory.Errorf(memory.EINVALID, "encode rerank request: %v", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(raw))
	if err != nil {
		return nil, memory.Errorf(memory.EINVALID, "rerank request: %s", provider.Redact(err.Error(), c.key))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, provider.MapError(ctx, err, nil, c.key)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, provider.MapError(ctx, errors.New(resp.Status), resp, c.key)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return nil, provider.MapError(ctx, err, nil, c.key) // cut by the network
	}
	if resp.StatusCode/100 != 2 {
		return nil, provider.Malformed("rerank reply has status %d", resp.StatusCode)
	}
	scores, err := parseScores(data, len(docs))
	if err != nil {
		return nil, provider.Malformed("rerank reply: %v", err)
	}
	return scores, nil
}

// redactURL drops the user info and the query of a URL for a message.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable)"
	}
	u.User, u.RawQuery = nil, ""
	return u.String()
}

// result is one scored document in any of the answer shapes.
type result struct {
	Index          *int     `json:"index"`
	RelevanceScore *float64 `json:"relevance_score"` // Cohere, Jina
	Score          *float64 `json:"score"`           // TEI
}

// parseScores reads the scores of n documents from an answer: a JSON array
// of {"index", "score"} (TEI) or an object whose "results" (Cohere, Jina)
// or "data" holds {"index", "relevance_score"}. Every document must be
// scored exactly once.
func parseScores(data []byte, n int) ([]float64, error) {
	data = bytes.TrimSpace(data)
	var results []result
	if len(data) > 0 && data[0] == '[' {
		if err := json.Unmarshal(data, &results); err != nil {
			return nil, err
		}
	} else {
		var obj struct {
			Results []result `json:"results"`
			Data    []result `json:"data"`
		}
		if err := json.Unmarshal(data, &obj); err != nil {
			return nil, err
		}
		results = obj.Results
		if results == nil {
			results = obj.Data
		}
		if results == nil {
			return nil, fmt.Errorf("no results")
		}
	}
	scores := make([]float64, n)
	seen := make([]bool, n)
	for _, r := range results {
		if r.Index == nil {
			return nil, fmt.Errorf("a result without an index")
		}
		i := *r.Index
		if i < 0 || i >= n {
			return nil, fmt.Errorf("index %d out of range for %d documents", i, n)
		}
		if seen[i] {
			return nil, fmt.Errorf("document %d scored twice", i)
		}
		switch {
		case r.RelevanceScore != nil:
			scores[i] = *r.RelevanceScore
		case r.Score != nil:
			scores[i] = *r.Score
		default:
			return nil, fmt.Errorf("document %d has no score", i)
		}
		seen[i] = true
	}
	for i, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("document %d of %d not scored", i, n)
		}
	}
	return scores, nil
}
