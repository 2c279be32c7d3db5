package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mnemo-ai/mnemo"
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
		cfg.LLM = openai.New(openai.Config{BaseURL: p.llmURL, APIKey: firstEnv("MNEMO_LLM_API_KEY", "OPENAI_API_KEY"), Model: model})
	case "anthropic":
		model := p.llmModel
		if model == "" {
			model = defaultAnthropicModel
		}
		cfg.LLM = anthropic.New(anthropic.Config{BaseURL: p.llmURL, APIKey: firstEnv("MNEMO_LLM_API_KEY", "ANTHROPIC_API_KEY"), Model: model})
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
		emb, err := openai.NewEmbedder(ctx, openai.EmbedConfig{BaseURL: url, APIKey: firstEnv("MNEMO_EMBED_API_KEY", "MNEMO_LLM_API_KEY", "OPENAI_API_KEY"), Model: model})
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
		cfg.Reranker = rr
	}
	return nil
}
