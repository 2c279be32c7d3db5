package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/wire"
)

// TestReflect runs `mnemo reflect` against the scripted server: --json
// prints the wire shape; without an LLM it exits unavailable with one
// line of error.
func TestReflect(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "retain", "Ada moved to Porto in 2024.")
	wantFailure(t, mnemoRun(t, db, "reflect", "Where does Ada live?"), exitUnavailable, "needs an LLM")
	wantFailure(t, mnemoRun(t, db, "reflect", "--max-steps", "99", "Where does Ada live?"), exitInvalid, "max_steps 99")

	srv := llmtest.NewServer()
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "sk-cli-secret")
	srv.On(llmtest.Rule{Match: func(r llmtest.Request) bool { return len(r.Tools) > 0 }, Respond: func(r llmtest.Request) llmtest.Reply {
		for _, m := range r.Messages {
			if m.Role == "tool" && strings.Contains(m.Content, "Porto") {
				id := m.Content[strings.Index(m.Content, "[")+1 : strings.Index(m.Content, "]")]
				args, _ := json.Marshal(map[string]any{"answer": "Porto.", "memory_ids": []string{id}})
				return llmtest.Reply{ToolCalls: []memory.ToolCall{{Name: "answer", Arguments: args}}}
			}
		}
		args, _ := json.Marshal(map[string]any{"query": "Ada lives"})
		return llmtest.Reply{ToolCalls: []memory.ToolCall{{Name: "recall", Arguments: args}}}
	}})
	llm := []string{"--llm", "openai", "--llm-url", srv.URL(), "--llm-model", "scripted"}
	out := mustRun(t, db, append(llm, "--json", "reflect", "Where does Ada live?")...)
	var res wire.Reflect
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("reflect --json: %v\n%s", err, out)
	}
	if res.Answer != "Porto." || len(res.MemoryIDs) != 1 || len(res.Trace) != 2 || res.LLMCalls != 2 {
		t.Errorf("reflect --json = %+v", res)
	}
	r := mnemoRun(t, db, append(llm, "reflect", "--trace", "Where does Ada live?")...)
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "Porto.\n") || !strings.Contains(r.stdout, res.MemoryIDs[0]) || !strings.Contains(r.stderr, "recall") {
		t.Errorf("reflect --trace: %v", r)
	}
}

// TestStanding runs `mnemo standing add|list|rm` and the standing pass
// through `mnemo consolidate`: the pinned question gets its answer, and
// recall and reflect serve it without a model.
func TestStanding(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "retain", "Ada moved to Porto in 2024.")
	out := mustRun(t, db, "standing", "add", "Where does Ada live?")
	if !strings.HasPrefix(out, "pinned sq_") {
		t.Errorf("standing add: %q", out)
	}
	wantFailure(t, mnemoRun(t, db, "standing", "add", "where does ada live"), exitConflict, "pinned already")
	if out := mustRun(t, db, "standing", "list"); !strings.Contains(out, "Where does Ada live?") || !strings.Contains(out, "never answered") {
		t.Errorf("standing list: %q", out)
	}

	srv := llmtest.NewServer()
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "sk-cli-secret")
	srv.On(llmtest.Rule{Match: func(r llmtest.Request) bool { return len(r.Tools) > 0 }, Respond: func(r llmtest.Request) llmtest.Reply {
		for _, m := range r.Messages {
			if m.Role == "tool" && strings.Contains(m.Content, "Porto") {
				id := m.Content[strings.Index(m.Content, "[")+1 : strings.Index(m.Content, "]")]
				return llmtest.Reply{Content: "In Porto [" + id + "]."}
			}
		}
		args, _ := json.Marshal(map[string]any{"query": "Ada lives"})
		return llmtest.Reply{ToolCalls: []memory.ToolCall{{Name: "recall", Arguments: args}}}
	}})
	llm := []string{"--llm", "openai", "--llm-url", srv.URL(), "--llm-model", "scripted"}
	mustRun(t, db, append(llm, "consolidate", "--pass", "standing")...)
	calls := len(srv.ChatRequests())
	if calls != 2 {
		t.Errorf("the standing pass made %d calls, want 2", calls)
	}
	var list wire.StandingList
	if err := json.Unmarshal([]byte(mustRun(t, db, "--json", "standing", "list")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Questions) != 1 || !strings.HasPrefix(list.Questions[0].Answer, "In Porto") || list.Questions[0].Fresh == nil || !*list.Questions[0].Fresh {
		t.Fatalf("standing list --json = %+v", list)
	}
	if out := mustRun(t, db, "recall", "Where does Ada live?"); !strings.HasPrefix(out, " =  standing answer") || !strings.Contains(out, "In Porto") {
		t.Errorf("recall does not start with the standing answer:\n%s", out)
	}
	r := mnemoRun(t, db, append(llm, "reflect", "where does Ada live")...)
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "In Porto") || !strings.Contains(r.stderr, "no LLM call") {
		t.Errorf("reflect of the pinned question: %v", r)
	}
	if n := len(srv.ChatRequests()); n != calls {
		t.Errorf("reading the standing answer made %d model calls", n-calls)
	}
	if out := mustRun(t, db, "standing", "rm", list.Questions[0].ID); !strings.HasPrefix(out, "unpinned") {
		t.Errorf("standing rm: %q", out)
	}
	wantFailure(t, mnemoRun(t, db, "standing", "rm", "Where does Ada live?"), exitNotFound, "no pinned question")
}
