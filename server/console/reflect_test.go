package console_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/provider/openai"
	"github.com/mnemo-ai/mnemo/server/console"
	"github.com/mnemo-ai/mnemo/server/httpapi"
)

// TestConsole_Reflect: with a model configured the recall playground
// offers Reflect, and shows the answer, the memories it used and the
// trace of its tool calls; without one it offers no Reflect button.
func TestConsole_Reflect(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "m.db")
	plain, err := mnemo.Open(ctx, mnemo.Config{DB: db, JobPoll: -1, SessionIdle: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Retain(ctx, memory.RetainRequest{Text: "Lena's cat is called Miso."}); err != nil {
		t.Fatal(err)
	}
	serve := func(eng *mnemo.Engine) string {
		api := httpapi.New(eng, httpapi.Options{Auth: httpapi.NewKeyAuth(eng), InsecureLocal: true, Logger: slog.New(slog.DiscardHandler)})
		api.MountPublic(console.Prefix, console.New(eng, api, console.Options{Logger: slog.New(slog.DiscardHandler)}))
		srv := httptest.NewServer(api)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	get := func(base, path string) string {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		req.Header.Set("HX-Request", "true")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var b strings.Builder
		buf := make([]byte, 32<<10)
		for {
			n, err := res.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return b.String()
	}
	if body := get(serve(plain), "/ui/x/banks/default/recall"); strings.Contains(body, `value="reflect"`) {
		t.Error("a Reflect button without a model")
	}
	plain.Close()

	llm := llmtest.NewServer()
	defer llm.Close()
	llm.On(llmtest.Rule{Contains: "What is Lena's cat called?", Reply: llmtest.Reply{ToolCalls: []memory.ToolCall{{ID: "c1", Name: "recall", Arguments: []byte(`{"query":"Lena cat"}`)}}}, Times: 1})
	llm.On(llmtest.Rule{Contains: "Miso", Reply: llmtest.Reply{ToolCalls: []memory.ToolCall{{ID: "c2", Name: "answer", Arguments: []byte(`{"answer":"The cat is called Miso.","memory_ids":[]}`)}}}})
	g := provider.NewGuard()
	g.Backoff, g.MaxBackoff, g.Timeout = time.Millisecond, 5*time.Millisecond, 2*time.Second
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: db, JobPoll: -1, SessionIdle: -1, AccessFlush: -1, Guard: g,
		LLM: openai.New(openai.Config{BaseURL: llm.URL(), APIKey: "sk-test", Model: "scripted"})})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	base := serve(eng)
	if body := get(base, "/ui/x/banks/default/recall"); !strings.Contains(body, `value="reflect"`) {
		t.Errorf("no Reflect button with a model:\n%s", body)
	}
	body := get(base, "/ui/x/banks/default/recall?mode=reflect&q="+strings.ReplaceAll("What is Lena's cat called?", " ", "+"))
	if !strings.Contains(body, `id="reflect-answer"`) || !strings.Contains(body, "The cat is called Miso.") || !strings.Contains(body, "<code>recall</code>") {
		t.Errorf("the reflect pane lacks the answer or the trace:\n%s", body)
	}
}
