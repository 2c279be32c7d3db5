package mcpserver_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/server/mcpserver"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// openEngine opens an engine on a temporary SQLite file with no
// background work and no access recording (so recall's order is stable
// from one call to the next).
func openEngine(t *testing.T) *mnemo.Engine {
	t.Helper()
	eng, err := mnemo.Open(t.Context(), mnemo.Config{DB: filepath.Join(t.TempDir(), "m.db"), JobPoll: -1, SessionIdle: -1, AccessFlush: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

// connect serves srv to a new SDK client over in-memory transports and
// returns the client's session.
func connect(t *testing.T, srv *mcpserver.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	cs, err := c.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// call calls a tool, failing the test on a protocol error, and returns
// the result.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", tool, args, err)
	}
	return res
}

// text is the concatenated text content of res.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured decodes res's structured content into v.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

// retain calls tool retain with text and returns its structured result,
// failing on a tool error.
func retain(t *testing.T, cs *mcp.ClientSession, args map[string]any) wire.Retained {
	t.Helper()
	res := call(t, cs, "retain", args)
	if res.IsError {
		t.Fatalf("retain(%v): %s", args, text(res))
	}
	var out wire.Retained
	structured(t, res, &out)
	return out
}

// recall calls tool recall and returns its result and structured page,
// failing on a tool error.
func recall(t *testing.T, cs *mcp.ClientSession, args map[string]any) (*mcp.CallToolResult, wire.RecallPage) {
	t.Helper()
	res := call(t, cs, "recall", args)
	if res.IsError {
		t.Fatalf("recall(%v): %s", args, text(res))
	}
	var page wire.RecallPage
	structured(t, res, &page)
	return res, page
}

func TestServer_ListTools(t *testing.T) {
	cs := connect(t, mcpserver.New(openEngine(t), mcpserver.Options{}), nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		got[tool.Name] = tool
	}
	for _, name := range []string{"retain", "remember", "recall", "block_read", "block_write", "forget", "about", "standing_pin"} {
		tool := got[name]
		if tool == nil {
			t.Errorf("tool %s is not listed (have %v)", name, res.Tools)
			continue
		}
		if len(tool.Description) < 100 {
			t.Errorf("%s: description %q is too short to guide a model", name, tool.Description)
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s: no output schema", name)
		}
		// Every argument carries a description.
		b, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatal(err)
		}
		if len(schema.Properties) == 0 {
			t.Errorf("%s: input schema %s has no properties", name, b)
		}
		for arg, p := range schema.Properties {
			if p.Description == "" {
				t.Errorf("%s: argument %s has no description", name, arg)
			}
		}
	}
	if r := got["recall"]; r != nil && (r.Annotations == nil || !r.Annotations.ReadOnlyHint) {
		t.Errorf("recall is not marked read-only")
	}
}

func TestServer_RetainRecall(t *testing.T) {
	cs := connect(t, mcpserver.New(openEngine(t), mcpserver.Options{}), nil)
	out := retain(t, cs, map[string]any{"text": "Alice moved to Lisbon in May 2024.", "speaker": "user"})
	if !out.Stored || out.Result == nil || out.Result.Facts == 0 || out.Bank != "default" {
		t.Fatalf("retain = %+v, want stored facts in bank default", out)
	}
	// remember is the same tool: the same text is a duplicate.
	res := call(t, cs, "remember", map[string]any{"text": "Alice moved to Lisbon in May 2024.", "speaker": "user"})
	var again wire.Retained
	structured(t, res, &again)
	if res.IsError || again.Result == nil || !again.Result.Duplicate {
		t.Errorf("remember of the same text = %+v (%s), want a duplicate", again, text(res))
	}

	res, page := recall(t, cs, map[string]any{"query": "Where does Alice live?"})
	if len(page.Results) == 0 || !strings.Contains(page.Results[0].Text, "Lisbon") {
		t.Fatalf("recall results = %+v, want Lisbon first", page.Results)
	}
	if !strings.Contains(text(res), "Lisbon") {
		t.Errorf("recall text %q lacks Lisbon", text(res))
	}
	if page.NextOffset != 0 {
		t.Errorf("next_offset = %d with a single fact", page.NextOffset)
	}
}

func TestServer_BadArguments(t *testing.T) {
	cs := connect(t, mcpserver.New(openEngine(t), mcpserver.Options{}), nil)
	retain(t, cs, map[string]any{"text": "Bob likes tea."})
	for _, c := range []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"EmptyText", "retain", map[string]any{"text": "  "}, "text is empty"},
		{"NoText", "retain", map[string]any{}, "text"},
		{"BadTime", "retain", map[string]any{"text": "Bob likes coffee.", "occurred_at": "sometime soon"}, "invalid"},
		{"UnknownBank", "retain", map[string]any{"text": "Bob likes coffee.", "bank": "nowhere"}, `unknown bank "nowhere"`},
		{"BadBankName", "retain", map[string]any{"text": "Bob likes coffee.", "bank": "../etc"}, "invalid"},
		{"UnknownArgument", "retain", map[string]any{"text": "Bob likes coffee.", "colour": "red"}, "colour"},
		{"EmptyQuery", "recall", map[string]any{"query": ""}, "query is empty"},
		{"WrongType", "recall", map[string]any{"query": "Bob", "limit": "ten"}, "limit"},
		{"LimitTooLarge", "recall", map[string]any{"query": "Bob", "limit": 500}, "limit 500"},
		{"BudgetTooSmall", "recall", map[string]any{"query": "Bob", "budget": 10}, "budget 10"},
		{"NegativeOffset", "recall", map[string]any{"query": "Bob", "offset": -1}, "offset -1"},
		{"UnknownCategory", "recall", map[string]any{"query": "Bob", "categories": []string{"gossip"}}, "gossip"},
		{"OffsetTooFar", "recall", map[string]any{"query": "Bob", "offset": 990, "limit": 20}, "offset 990"},
		{"BadAsOf", "recall", map[string]any{"query": "Bob", "as_of": "the day before"}, "invalid"},
		{"RecallUnknownBank", "recall", map[string]any{"query": "Bob", "bank": "nowhere"}, `unknown bank "nowhere"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := call(t, cs, c.tool, c.args)
			if !res.IsError {
				t.Fatalf("%s(%v) succeeded: %s", c.tool, c.args, text(res))
			}
			if got := text(res); !strings.Contains(got, c.want) {
				t.Errorf("error %q does not mention %q", got, c.want)
			}
		})
	}
	// Nothing of the refused retains landed.
	_, page := recall(t, cs, map[string]any{"query": "What does Bob like to drink?"})
	for _, r := range page.Results {
		if strings.Contains(r.Text, "coffee") {
			t.Errorf("a refused retain was stored: %q", r.Text)
		}
	}
}

func TestServer_RecallEmptyDefaultBank(t *testing.T) {
	cs := connect(t, mcpserver.New(openEngine(t), mcpserver.Options{}), nil)
	res, page := recall(t, cs, map[string]any{"query": "anything?"})
	if len(page.Results) != 0 || !strings.Contains(text(res), "Nothing relevant") {
		t.Errorf("recall on a fresh engine = %+v, %q", page, text(res))
	}
}
