package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mnemo-ai/mnemo/memory"
)

// Default models when --llm-model / --embed-model are not given.
const (
	defaultOpenAIModel    = "gpt-4o-mini"
	defaultAnthropicModel = "claude-3-5-haiku-latest"
	defaultEmbedModel     = "text-embedding-3-small"
)

// providerFlags choose the LLM, the embedder and the reranker. Each is a
// flag, an MNEMO_* environment variable and a key of the config file, in
// that order of precedence. API keys come only from the environment: they
// are never flags (visible in ps), never read from the config file, and
// never logged or stored.
type providerFlags struct {
	config      string
	llm         string
	llmURL      string
	llmModel    string
	embed       string
	embedURL    string
	embedModel  string
	rerank      string
	rerankModel string

	reranker *watchedReranker // the --rerank reranker, once built
}

// configFile is the JSON config file (default
// $XDG_CONFIG_HOME/mnemo/config.json); every field is optional.
type configFile struct {
	DB          string `json:"db"`
	LLM         string `json:"llm"`
	LLMURL      string `json:"llm_url"`
	LLMModel    string `json:"llm_model"`
	Embed       string `json:"embed"`
	EmbedURL    string `json:"embed_url"`
	EmbedModel  string `json:"embed_model"`
	Rerank      string `json:"rerank"`
	RerankModel string `json:"rerank_model"`
}

// providerSettings pairs each flag with its environment variable and its
// config file field.
func (p *providerFlags) settings(c *configFile) []struct {
	flag, env string
	dst       *string
	file      string
} {
	return []struct {
		flag, env string
		dst       *string
		file      string
	}{
		{"llm", "MNEMO_LLM", &p.llm, c.LLM},
		{"llm-url", "MNEMO_LLM_URL", &p.llmURL, c.LLMURL},
		{"llm-model", "MNEMO_LLM_MODEL", &p.llmModel, c.LLMModel},
		{"embed", "MNEMO_EMBED", &p.embed, c.Embed},
		{"embed-url", "MNEMO_EMBED_URL", &p.embedURL, c.EmbedURL},
		{"embed-model", "MNEMO_EMBED_MODEL", &p.embedModel, c.EmbedModel},
		{"rerank", "MNEMO_RERANK", &p.rerank, c.Rerank},
		{"rerank-model", "MNEMO_RERANK_MODEL", &p.rerankModel, c.RerankModel},
	}
}

func (p *providerFlags) register(f *pflag.FlagSet) {
	f.StringVar(&p.config, "config", "", "config file (JSON; env MNEMO_CONFIG; default $XDG_CONFIG_HOME/mnemo/config.json if present)")
	f.StringVar(&p.llm, "llm", "none", "LLM for extraction and conflicts: openai (any OpenAI-compatible server), anthropic or none (env MNEMO_LLM; key: OPENAI_API_KEY / ANTHROPIC_API_KEY or MNEMO_LLM_API_KEY)")
	f.StringVar(&p.llmURL, "llm-url", "", "LLM base URL, e.g. http://localhost:11434/v1 for Ollama (env MNEMO_LLM_URL)")
	f.StringVar(&p.llmModel, "llm-model", "", "LLM model (env MNEMO_LLM_MODEL)")
	f.StringVar(&p.embed, "embed", "hash", "embedder: hash (offline), openai, or wordvec:FILE (a file from 'mnemo embeddings import') (env MNEMO_EMBED)")
	f.StringVar(&p.embedURL, "embed-url", "", "embeddings base URL; default --llm-url (env MNEMO_EMBED_URL; key: MNEMO_EMBED_API_KEY or OPENAI_API_KEY)")
	f.StringVar(&p.embedModel, "embed-model", "", "embedding model (env MNEMO_EMBED_MODEL)")
	f.StringVar(&p.rerank, "rerank", "", "URL of a Cohere/Jina/TEI-style /rerank endpoint (env MNEMO_RERANK; key: MNEMO_RERANK_API_KEY)")
	f.StringVar(&p.rerankModel, "rerank-model", "", "rerank model, for servers that serve several (env MNEMO_RERANK_MODEL)")
}

// resolve fills the settings not given as flags from the environment,
// then from the config file. It also returns the file's db, if any.
func (p *providerFlags) resolve(flags *pflag.FlagSet) (db string, err error) {
	path, explicit := p.config, p.config != ""
	if !explicit {
		if v := os.Getenv("MNEMO_CONFIG"); v != "" {
			path, explicit = v, true
		} else if dir, err := os.UserConfigDir(); err == nil {
			path = filepath.Join(dir, "mnemo", "config.json")
		}
	}
	var c configFile
	if path != "" {
		b, err := os.ReadFile(path)
		switch {
		case err == nil:
			if err := parseConfig(path, b, &c); err != nil {
				return "", err
			}
		case explicit:
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return "", usagef("config file %s: %v", path, err)
		default:
			// The default location is optional: absent, unreadable or
			// not a file, it is no config, and no command fails for it.
		}
	}
	for _, s := range p.settings(&c) {
		if flags.Changed(s.flag) {
			continue
		}
		if v := os.Getenv(s.env); v != "" {
			*s.dst = v
		} else if s.file != "" {
			*s.dst = s.file
		}
	}
	return c.DB, nil
}

// parseConfig parses the JSON config file read from path strictly: an
// unknown key (a typo, or an API key, which belongs in the environment)
// is an error.
func parseConfig(path string, b []byte, c *configFile) error {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		return memory.Errorf(memory.EINVALID, "config file %s: %v (API keys go in the environment, not the file)", path, err)
	}
	return nil
}

// firstEnv returns the first non-empty environment variable of names.
func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}
