package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
	"github.com/mnemo-ai/mnemo/provider/anthropic"
	"github.com/mnemo-ai/mnemo/provider/openai"
	"github.com/mnemo-ai/mnemo/provider/rerank"
	"github.com/mnemo-ai/mnemo/provider/wordvec"
)

// apply builds the providers the flags name into cfg. Remote providers
// share one provider.Guard (retries, timeouts, concurrency, usage).
func (p *providerFlags) apply(ctx context.Context, cfg *mnemo.Config) error {
	guard := provider.NewGuard()
	cfg.Guard = guard
	switch strings.ToLower(p.llm) {
	case "", "none":
	case "openai":
		model := p.llmModel
		if model == "" {
			model = defaultOpenAIModel
		}
		key := firstEnv("MNEMO_LLM_API_KEY", "OPENAI_API_KEY")
		if key == "" && p.llmURL == "" {
			return usagef("--llm openai needs a key: set OPENAI_API_KEY (or MNEMO_LLM_API_KEY), or --llm-url for a local server that needs none")
		}
		cfg.LLM = openai.New(openai.Config{BaseURL: p.llmURL, APIKey: key, Model: model})
	case "anthropic":
		model := p.llmModel
		if model == "" {
			model = defaultAnthropicModel
		}
		key := firstEnv("MNEMO_LLM_API_KEY", "ANTHROPIC_API_KEY")
		if key == "" && p.llmURL == "" {
			return usagef("--llm anthropic needs a key: set ANTHROPIC_API_KEY (or MNEMO_LLM_API_KEY)")
		}
		cfg.LLM = anthropic.New(anthropic.Config{BaseURL: p.llmURL, APIKey: key, Model: model})
	default:
		return usagef("--llm %q: want openai, anthropic or none", p.llm)
	}
	switch e := p.embed; {
	case e == "" || e == "hash":
	case e == "openai":
		url := p.embedURL
		if url == "" {
			url = p.llmURL
		}
		model := p.embedModel
		if model == "" {
			model = defaultEmbedModel
		}
		key := firstEnv("MNEMO_EMBED_API_KEY", "MNEMO_LLM_API_KEY", "OPENAI_API_KEY")
		if key == "" && url == "" {
			return usagef("--embed openai needs a key: set OPENAI_API_KEY (or MNEMO_EMBED_API_KEY), or --embed-url for a local server that needs none")
		}
		emb, err := openai.NewEmbedder(ctx, openai.EmbedConfig{BaseURL: url, APIKey: key, Model: model})
		if err != nil {
			return fmt.Errorf("embedder: %w", err)
		}
		cfg.Embedder = guard.Embedder(emb)
	case strings.HasPrefix(e, "wordvec:"):
		emb, err := wordvec.Open(strings.TrimPrefix(e, "wordvec:"))
		if err != nil {
			return err
		}
		cfg.Embedder = emb
	default:
		return usagef("--embed %q: want hash, openai or wordvec:FILE", e)
	}
	if p.rerank != "" {
		rr, err := rerank.New(rerank.Config{URL: p.rerank, APIKey: os.Getenv("MNEMO_RERANK_API_KEY"), Model: p.rerankModel})
		if err != nil {
			return err
		}
		p.reranker = &watchedReranker{Reranker: rr}
		cfg.Reranker = p.reranker
	}
	return nil
}

// watchedReranker remembers the first error of the reranker it wraps:
// recall falls back to the fused order when the reranker fails, and the
// command says so (see providerFlags.rerankFailure) instead of passing
// over an unreachable --rerank in silence.
type watchedReranker struct {
	memory.Reranker
	mu  sync.Mutex
	err error
}

func (w *watchedReranker) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	scores, err := w.Reranker.Rerank(ctx, query, docs)
	if err != nil {
		w.mu.Lock()
		if w.err == nil {
			w.err = err
		}
		w.mu.Unlock()
	}
	return scores, err
}

// rerankFailure returns the first error of the --rerank reranker, if it
// failed.
func (p *providerFlags) rerankFailure() error {
	if p.reranker == nil {
		return nil
	}
	p.reranker.mu.Lock()
	defer p.reranker.mu.Unlock()
	return p.reranker.err
}
