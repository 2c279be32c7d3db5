package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/provider/llmtest"
)

func init() {
	// Keep a developer's own ~/.config/mnemo/config.json out of the tests.
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(os.TempDir(), "mnemo-test-no-config"))
}

// TestRetain_LLMDown points `mnemo retain --llm openai --llm-url` at a
// server that always answers 500: the command exits non-zero with one
// line of error and the bank is unchanged.
func TestRetain_LLMDown(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.On(llmtest.Rule{Reply: llmtest.Reply{Status: 500, Content: "upstream model crashed"}})
	t.Setenv("OPENAI_API_KEY", "sk-cli-secret")
	db := newDB(t)
	mustRun(t, db, "retain", "Ada moved to Lyon in 2021.")
	before := stats(t, db, "default")

	r := mnemoRun(t, db, "--llm", "openai", "--llm-url", srv.URL(), "--llm-model", "scripted", "retain", "Ada moved to Porto in 2024.")
	wantFailure(t, r, exitUnavailable, "unavailable after", "upstream model crashed")
	if lines := strings.Count(strings.TrimSpace(r.stderr), "\n") + 1; lines != 1 || r.stdout != "" {
		t.Errorf("stderr has %d lines, stdout %q: want one line of error and nothing else\n%s", lines, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "sk-cli-secret") {
		t.Errorf("the API key leaked into the error: %s", r.stderr)
	}
	if after := stats(t, db, "default"); after != before {
		t.Errorf("stats %+v → %+v: want the bank unchanged", before, after)
	}
	if n := len(srv.ChatRequests()); n < 2 {
		t.Errorf("the server saw %d requests, want the retries too", n)
	}
}

// TestRetain_LLMFromEnvAndConfig selects the LLM through MNEMO_* variables
// and through the config file, and refuses a key in the file.
func TestRetain_LLMFromEnvAndConfig(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.On(llmtest.Rule{Schema: "extraction", Reply: llmtest.Reply{JSON: map[string]any{"facts": []any{map[string]any{
		"text": "Ada lives in Porto", "kind": "world", "category": "personal", "confidence": 0.9, "importance": 0.5,
		"sensitivity": "open", "speaker": "", "message": 0, "evidence": "Ada moved to Porto", "occurred_start": "2024",
		"occurred_end": "", "entities": []any{}, "relations": []any{}, "causes": []any{},
	}}}}})
	srv.On(llmtest.Rule{Schema: "conflicts", Reply: llmtest.Reply{JSON: map[string]any{"decisions": []any{}}}})

	t.Run("Env", func(t *testing.T) {
		t.Setenv("MNEMO_LLM", "openai")
		t.Setenv("MNEMO_LLM_URL", srv.URL())
		t.Setenv("MNEMO_LLM_MODEL", "scripted-env")
		db := newDB(t)
		mustRun(t, db, "retain", "Ada moved to Porto in 2024.")
		reqs := srv.ChatRequests()
		if len(reqs) == 0 || reqs[len(reqs)-1].Model != "scripted-env" {
			t.Fatalf("no request with the model from MNEMO_LLM_MODEL")
		}
		if out := mustRun(t, db, "recall", "Where does Ada live?"); !strings.Contains(out, "Ada lives in Porto") {
			t.Errorf("recall: %s, want the extracted fact", out)
		}
	})
	t.Run("ConfigFile", func(t *testing.T) {
		cfg := filepath.Join(t.TempDir(), "config.json")
		os.WriteFile(cfg, []byte(`{"llm": "openai", "llm_url": "`+srv.URL()+`", "llm_model": "scripted-file"}`), 0o600)
		db := newDB(t)
		mustRun(t, db, "--config", cfg, "retain", "Ada moved to Porto in 2024.")
		reqs := srv.ChatRequests()
		if len(reqs) == 0 || reqs[len(reqs)-1].Model != "scripted-file" {
			t.Fatalf("no request with the model from the config file")
		}
		// A flag beats the file.
		mustRun(t, db, "--config", cfg, "--llm-model", "scripted-flag", "retain", "Ada bought a bike.")
		if reqs := srv.ChatRequests(); reqs[len(reqs)-1].Model != "scripted-flag" {
			t.Errorf("model %q, want the flag's", reqs[len(reqs)-1].Model)
		}
	})
	t.Run("KeyInConfigFile", func(t *testing.T) {
		cfg := filepath.Join(t.TempDir(), "config.json")
		os.WriteFile(cfg, []byte(`{"llm": "openai", "api_key": "sk-nope"}`), 0o600)
		r := mnemoRun(t, newDB(t), "--config", cfg, "retain", "x")
		wantFailure(t, r, exitInvalid, "API keys go in the environment")
	})
	t.Run("UnknownLLM", func(t *testing.T) {
		r := mnemoRun(t, newDB(t), "--llm", "gpt", "retain", "x")
		wantFailure(t, r, exitInvalid, "want openai, anthropic or none")
	})
}
