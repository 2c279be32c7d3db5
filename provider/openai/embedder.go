package openai

import (
	"context"
	"math"
	"net/http"
	"sort"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
)

// DefaultBatchSize is how many texts one embeddings request carries.
const DefaultBatchSize = 128

// probeText is embedded once to learn the dimension of a model.
const probeText = "mnemo dimension probe"

// EmbedConfig configures an [Embedder].
type EmbedConfig struct {
	// BaseURL of the API. Default [DefaultBaseURL].
	BaseURL string
	// APIKey is sent as a bearer token; empty sends none.
	APIKey string
	// Model is the embedding model id; required.
	Model string
	// Dimension is the vector length; 0 asks [NewEmbedder] to learn it
	// with one request.
	Dimension int
	// RequestDimensions sends Dimension as the "dimensions" parameter, for
	// models that can shorten their vectors (OpenAI text-embedding-3).
	RequestDimensions bool
	// BatchSize bounds the texts per request. Default [DefaultBatchSize].
	BatchSize int
	// HTTPClient makes the requests; nil means a client without a timeout.
	HTTPClient *http.Client
	// Headers are added to every request.
	Headers map[string]string
}

// Embedder embeds texts through an OpenAI-compatible /embeddings
// endpoint; it implements [memory.Embedder]. Vectors are L2-normalised.
// It is safe for concurrent use.
type Embedder struct {
	cfg    EmbedConfig
	url    string
	header http.Header
}

// The request and reply of /embeddings.
type (
	embedRequest struct {
		Model          string   `json:"model"`
		Input          []string `json:"input"`
		EncodingFormat string   `json:"encoding_format"`
		Dimensions     int      `json:"dimensions,omitempty"`
	}
	embedReply struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
)

var _ memory.Embedder = (*Embedder)(nil)

// NewEmbedder returns an embedder for cfg. When cfg.Dimension is 0 it
// embeds one probe text to learn the dimension, so it may fail like
// [Embedder.Embed]; otherwise it makes no request. An empty Model is
// EINVALID.
func NewEmbedder(ctx context.Context, cfg EmbedConfig) (*Embedder, error) {
	if cfg.Model == "" {
		return nil, memory.Errorf(memory.EINVALID, "embedder: no model configured")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.Dimension < 0 {
		return nil, memory.Errorf(memory.EINVALID, "embedder: negative dimension %d", cfg.Dimension)
	}
	e := &Embedder{cfg: cfg, url: endpoint(cfg.BaseURL, "embeddings"), header: headers(cfg.APIKey, cfg.Headers)}
	if cfg.Dimension == 0 {
		v, err := e.batch(ctx, []string{probeText})
		if err != nil {
			return nil, err
		}
		e.cfg.Dimension = len(v[0])
	}
	return e, nil
}

// Name returns "openai:" followed by the model.
func (e *Embedder) Name() string { return "openai:" + e.cfg.Model }

// Dimension returns the vector length.
func (e *Embedder) Dimension() int { return e.cfg.Dimension }

// Embed returns one unit vector per text, in order, sending at most
// BatchSize texts per request. Errors map like [Client.Chat]; a reply
// with the wrong number of vectors or a vector of the wrong length is a
// malformed answer (EINVALID wrapping [provider.ErrMalformed]).
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.cfg.BatchSize {
		end := min(start+e.cfg.BatchSize, len(texts))
		vs, err := e.batch(ctx, texts[start:end])
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			if len(v) != e.cfg.Dimension {
				return nil, provider.Malformed("embedding has dimension %d, want %d", len(v), e.cfg.Dimension)
			}
		}
		out = append(out, vs...)
	}
	return out, nil
}

// batch embeds texts in one request.
func (e *Embedder) batch(ctx context.Context, texts []string) ([][]float32, error) {
	input := make([]string, len(texts))
	for i, t := range texts {
		if t == "" {
			t = " " // OpenAI refuses empty strings
		}
		input[i] = t
	}
	p := embedRequest{Model: e.cfg.Model, Input: input, EncodingFormat: "float"}
	if e.cfg.RequestDimensions && e.cfg.Dimension > 0 {
		p.Dimensions = e.cfg.Dimension
	}
	var resp embedReply
	if err := provider.PostJSON(ctx, e.cfg.HTTPClient, e.url, e.header, p, &resp, e.cfg.APIKey); err != nil {
		return nil, err
	}
	if len(resp.Data) != len(texts) {
		return nil, provider.Malformed("embeddings reply has %d vectors for %d texts", len(resp.Data), len(texts))
	}
	data := resp.Data
	sort.SliceStable(data, func(i, j int) bool { return data[i].Index < data[j].Index })
	out := make([][]float32, len(data))
	for i, d := range data {
		if d.Index != i {
			return nil, provider.Malformed("embeddings reply has index %d at position %d", d.Index, i)
		}
		if len(d.Embedding) == 0 {
			return nil, provider.Malformed("embeddings reply has an empty vector")
		}
		out[i] = normalize(d.Embedding)
	}
	return out, nil
}

// normalize returns v scaled to unit length, as float32; a zero vector
// stays zero.
func normalize(v []float64) []float32 {
	var sum float64
	for _, x := range v {
		sum += x * x
	}
	out := make([]float32, len(v))
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		for i, x := range v {
			out[i] = float32(x)
		}
		return out
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		out[i] = float32(x * inv)
	}
	return out
}
