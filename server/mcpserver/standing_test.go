package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/server/mcpserver"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The standing tools pin, list and unpin a bank's questions through the
// façade (the same rows the HTTP API and the CLI see); pinning twice is a
// conflict, unpinning what is not pinned not_found, and a read-only key
// may list but not pin or unpin.
func TestServer_Standing(t *testing.T) {
	eng := openEngine(t)
	ctx := context.Background()
	if _, err := eng.CreateBank(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, mcpserver.New(eng, mcpserver.Options{Bank: "a"}), nil)
	res := call(t, cs, "standing_pin", map[string]any{"question": "What are my current projects?"})
	var pinned wire.Standing
	structured(t, res, &pinned)
	if res.IsError || !strings.HasPrefix(pinned.ID, "sq_") || pinned.Question != "What are my current projects?" {
		t.Fatalf("standing_pin: %s %+v", text(res), pinned)
	}
	if res := call(t, cs, "standing_pin", map[string]any{"question": "what are my current projects"}); !res.IsError || !strings.Contains(text(res), "conflict") {
		t.Errorf("standing_pin of the same question: %s", text(res))
	}
	if res := call(t, cs, "standing_pin", map[string]any{"question": "  "}); !res.IsError || !strings.Contains(text(res), "invalid") {
		t.Errorf("standing_pin of an empty question: %s", text(res))
	}
	qs, err := eng.StandingQuestions(ctx, "a")
	if err != nil || len(qs) != 1 || qs[0].ID != pinned.ID {
		t.Fatalf("the engine's pinned questions: %+v, %v", qs, err)
	}

	ro := connect(t, mcpserver.New(eng, mcpserver.Options{Bank: "a", CanWrite: func(context.Context, *mcp.CallToolRequest) bool { return false }}), nil)
	res = call(t, ro, "standing_list", map[string]any{})
	var list wire.StandingList
	structured(t, res, &list)
	if res.IsError || len(list.Questions) != 1 || list.Questions[0].ID != pinned.ID || list.Questions[0].Fresh == nil || *list.Questions[0].Fresh ||
		!strings.Contains(text(res), "not answered yet") {
		t.Errorf("standing_list: %s %+v", text(res), list)
	}
	for _, tool := range []string{"standing_pin", "standing_unpin"} {
		if res := call(t, ro, tool, map[string]any{"question": "What are my current projects?"}); !res.IsError || !strings.Contains(text(res), "forbidden") {
			t.Errorf("%s with a read-only key: %s", tool, text(res))
		}
	}

	if res := call(t, cs, "standing_unpin", map[string]any{"question": "What are my current projects?"}); res.IsError {
		t.Errorf("standing_unpin by text: %s", text(res))
	}
	if res := call(t, cs, "standing_unpin", map[string]any{"question": pinned.ID}); !res.IsError || !strings.Contains(text(res), "not_found") {
		t.Errorf("standing_unpin again: %s", text(res))
	}
	if qs, _ := eng.StandingQuestions(ctx, "a"); len(qs) != 0 {
		t.Errorf("after unpin the bank still pins %+v", qs)
	}
}
