package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSession starts `mnemo mcp` with args on db and connects the SDK's
// client to it over its stdin and stdout.
func mcpSession(t *testing.T, db string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"--db", db, "mcp"}, args...)...)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callText calls a tool and returns its text, failing on any error.
func callText(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, *mcp.CallToolResult) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res
}

// TestMCP drives `mnemo mcp` over stdio with the SDK's client: the tools
// are listed, retain lands in the --bank bank on the --db database (where
// the CLI finds it afterwards), recall finds it, a bad call is a tool
// error and the server goes on.
func TestMCP(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "bank", "create", "work")
	cs := mcpSession(t, db, "--bank", "work")

	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"retain", "remember", "recall"} {
		if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+want+" ") {
			t.Errorf("tools %v lack %s", names, want)
		}
	}

	txt, res := callText(t, cs, "remember", map[string]any{"text": "Grace leads the Falcon project since March 2024."})
	if res.IsError || !strings.Contains(txt, `bank "work"`) {
		t.Fatalf("remember: %s", txt)
	}
	txt, res = callText(t, cs, "recall", map[string]any{"query": "Who leads the Falcon project?"})
	if res.IsError || !strings.Contains(txt, "Grace") {
		t.Fatalf("recall: %s", txt)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(b), `"bank":"work"`) {
		t.Errorf("structured recall %s does not name bank work", b)
	}
	if txt, res = callText(t, cs, "recall", map[string]any{"query": "Grace", "limit": 0.5}); !res.IsError {
		t.Errorf("recall with a fractional limit succeeded: %s", txt)
	}
	if _, res = callText(t, cs, "recall", map[string]any{"query": "Grace"}); res.IsError {
		t.Error("the server did not go on after a bad call")
	}
	cs.Close()

	var st statsJSON
	if err := json.Unmarshal([]byte(mustRun(t, db, "--bank", "work", "stats", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	if st.Facts == 0 {
		t.Errorf("bank work holds %+v after the MCP retain", st)
	}
}

// TestMCP_RequireApproval: with --require-approval a client without
// elicitation gets the text back, and only confirm=true stores it.
func TestMCP_RequireApproval(t *testing.T) {
	db := newDB(t)
	cs := mcpSession(t, db, "--require-approval")
	args := map[string]any{"text": "Heidi is allergic to peanuts."}
	txt, res := callText(t, cs, "retain", args)
	if res.IsError || !strings.Contains(txt, "confirm=true") {
		t.Fatalf("unconfirmed retain: %s", txt)
	}
	txt, _ = callText(t, cs, "recall", map[string]any{"query": "Heidi allergy"})
	if strings.Contains(txt, "peanuts") {
		t.Fatalf("an unconfirmed retain was stored: %s", txt)
	}
	args["confirm"] = true
	if txt, res = callText(t, cs, "retain", args); res.IsError || !strings.Contains(txt, "Remembered") {
		t.Fatalf("confirmed retain: %s", txt)
	}
	if txt, _ = callText(t, cs, "recall", map[string]any{"query": "Heidi allergy"}); !strings.Contains(txt, "peanuts") {
		t.Errorf("the confirmed retain is not recalled: %s", txt)
	}
}
