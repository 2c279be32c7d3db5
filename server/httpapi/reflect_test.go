package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/provider/openai"
	"github.com/mnemo-ai/mnemo/server/httpapi"
	"github.com/mnemo-ai/mnemo/wire"
)

// TestServer_Reflect: reflect and the standing routes keep the key
// checks of every bank route; an engine without an LLM answers reflect
// 503 unavailable, not 500; a bad question is refused.
func TestServer_Reflect(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks", wire.CreateBank{Name: "a"}, nil)
	e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks", wire.CreateBank{Name: "b"}, nil)
	e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/a/memories", wire.Retain{Text: "Ana drinks green tea every morning."}, nil)

	e.fails("no LLM", http.StatusServiceUnavailable, memory.EUNAVAILABLE, keyARead, "POST", "/v1/banks/a/reflect", wire.ReflectRequest{Question: "What does Ana drink?"})
	e.fails("no key", http.StatusUnauthorized, memory.EUNAUTHORIZED, "", "POST", "/v1/banks/a/reflect", wire.ReflectRequest{Question: "What does Ana drink?"})
	e.fails("other bank (not even its existence shown)", http.StatusNotFound, memory.ENOTFOUND, keyARead, "POST", "/v1/banks/b/reflect", wire.ReflectRequest{Question: "What does Ana drink?"})
	e.fails("empty question", http.StatusUnprocessableEntity, memory.EINVALID, keyARead, "POST", "/v1/banks/a/reflect", `{"question":""}`)
	e.fails("bad as_of", http.StatusBadRequest, memory.EINVALID, keyARead, "POST", "/v1/banks/a/reflect", wire.ReflectRequest{Question: "Why?", AsOf: "soon"})
	e.fails("unknown bank", http.StatusNotFound, memory.ENOTFOUND, keyRoot, "POST", "/v1/banks/nope/reflect", wire.ReflectRequest{Question: "Why?"})

	const question = "What does Ana drink in the morning?"
	e.fails("pin with a read key", http.StatusForbidden, memory.EFORBIDDEN, keyARead, "POST", "/v1/banks/a/standing", wire.PinQuestion{Question: question})
	var pinned wire.Standing
	e.must(http.StatusCreated, keyAAdmin, "POST", "/v1/banks/a/standing", wire.PinQuestion{Question: question}, &pinned)
	if pinned.ID == "" || pinned.Question != question || pinned.AnsweredAt != nil {
		t.Errorf("pinned = %+v", pinned)
	}
	e.fails("pin again", http.StatusConflict, memory.ECONFLICT, keyAAdmin, "POST", "/v1/banks/a/standing", wire.PinQuestion{Question: strings.ToLower(question)})
	var list wire.StandingList
	e.must(http.StatusOK, keyARead, "GET", "/v1/banks/a/standing", nil, &list)
	if len(list.Questions) != 1 || list.Questions[0].ID != pinned.ID || list.Questions[0].Fresh == nil || *list.Questions[0].Fresh || list.Questions[0].Stale == "" {
		t.Errorf("list = %+v, want the question, not fresh (never answered)", list)
	}
	e.fails("list other bank", http.StatusNotFound, memory.ENOTFOUND, keyARead, "GET", "/v1/banks/b/standing", nil)
	e.fails("unpin with a read key", http.StatusForbidden, memory.EFORBIDDEN, keyARead, "DELETE", "/v1/banks/a/standing/"+pinned.ID, nil)
	e.must(http.StatusOK, keyAAdmin, "DELETE", "/v1/banks/a/standing/"+pinned.ID, nil, nil)
	e.fails("unpin again", http.StatusNotFound, memory.ENOTFOUND, keyAAdmin, "DELETE", "/v1/banks/a/standing/"+pinned.ID, nil)
}

// TestServer_ReflectLLM: with a (scripted) model, reflect answers with
// the wire shape: the answer, the memory ids and the trace.
func TestServer_ReflectLLM(t *testing.T) {
	llm := llmtest.NewServer()
	t.Cleanup(llm.Close)
	eng, err := mnemo.Open(t.Context(), mnemo.Config{DB: filepath.Join(t.TempDir(), "mnemo.db"), JobPoll: -1, SessionIdle: -1, AccessFlush: -1,
		LLM: openai.New(openai.Config{BaseURL: llm.URL(), Model: "scripted"})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	srv := httptest.NewServer(httpapi.New(eng, httpapi.Options{Auth: testAuth}))
	t.Cleanup(srv.Close)
	e := &env{t: t, eng: eng, srv: srv, log: &bytes.Buffer{}}
	e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks", wire.CreateBank{Name: "a"}, nil)
	llm.On(llmtest.Rule{Schema: "extraction", Reply: llmtest.Reply{JSON: map[string]any{"facts": []any{map[string]any{
		"text": "Ana drinks green tea every morning", "kind": "experience", "category": "preference", "confidence": 0.9, "importance": 0.5,
		"sensitivity": "open", "speaker": "Ana", "message": 1, "evidence": "green tea", "occurred_start": "", "occurred_end": "",
		"entities": []any{}, "relations": []any{}, "causes": []any{}}}}}})
	e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/a/memories", wire.Retain{Text: "I drink green tea every morning.", Speaker: "Ana"}, nil)
	llm.On(llmtest.Rule{Match: func(r llmtest.Request) bool { return len(r.Tools) > 0 }, Respond: func(r llmtest.Request) llmtest.Reply {
		for _, m := range r.Messages {
			if m.Role == "tool" {
				// Cite the first memory the recall showed.
				id := strings.TrimPrefix(strings.Fields(m.Content[strings.Index(m.Content, "["):])[0], "[")
				id = strings.TrimSuffix(id, "]")
				return llmtest.Reply{Content: "Green tea [" + id + "]."}
			}
		}
		args, _ := json.Marshal(map[string]any{"query": "Ana drink"})
		return llmtest.Reply{ToolCalls: []memory.ToolCall{{Name: "recall", Arguments: args}}}
	}})
	var out wire.Reflect
	e.must(http.StatusOK, keyARead, "POST", "/v1/banks/a/reflect", wire.ReflectRequest{Question: "What does Ana drink?"}, &out)
	if !strings.HasPrefix(out.Answer, "Green tea") || len(out.MemoryIDs) != 1 || len(out.Trace) != 1 || out.Trace[0].Tool != "recall" || out.LLMCalls != 2 || out.Standing {
		t.Errorf("reflect = %+v", out)
	}
	if !strings.Contains(out.Answer, out.MemoryIDs[0]) {
		t.Errorf("memory ids %v are not the one cited in %q", out.MemoryIDs, out.Answer)
	}
}
