package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/server/mcpserver"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The directive tools, and the context prompt and resources answering
// what Engine.Context renders; a key bound to a bank reads no other.
func TestServer_ContextAndDirectives(t *testing.T) {
	eng := openEngine(t)
	ctx := context.Background()
	for _, b := range []string{"a", "b"} {
		if _, err := eng.CreateBank(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, mcpserver.New(eng, mcpserver.Options{Bank: "a"}), nil)
	res := call(t, cs, "directive_add", map[string]any{"text": "Answer in British English."})
	var global wire.Directive
	structured(t, res, &global)
	res = call(t, cs, "directive_add", map[string]any{"text": "Never push on Fridays.", "scopes": []string{"web"}})
	var web wire.Directive
	structured(t, res, &web)
	if res.IsError || global.Bank != "a" || web.Scopes[0] != "web" {
		t.Fatalf("directive_add: %s %+v %+v", text(res), global, web)
	}
	res = call(t, cs, "directive_list", map[string]any{"scopes": []string{"api"}})
	var list wire.DirectiveList
	structured(t, res, &list)
	if len(list.Directives) != 1 || list.Directives[0].ID != global.ID {
		t.Errorf("directive_list(api) = %+v", list)
	}
	if res := call(t, cs, "directive_edit", map[string]any{"id": web.ID, "text": "Never push to main on Fridays."}); res.IsError {
		t.Errorf("directive_edit: %s", text(res))
	}
	if res := call(t, cs, "directive_edit", map[string]any{"id": web.ID}); !res.IsError || !strings.Contains(text(res), "invalid") {
		t.Errorf("directive_edit with nothing to change: %s", text(res))
	}
	if res := call(t, cs, "directive_add", map[string]any{"text": "x", "scopes": []string{"a b"}}); !res.IsError {
		t.Errorf("directive_add with a bad scope: %s", text(res))
	}

	want, err := eng.Context(ctx, "a", mnemo.ContextRequest{Scopes: []string{"web"}, Budget: 500})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: mcpserver.ContextPrompt, Arguments: map[string]string{"scope": "web", "budget": "500"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Messages) != 1 || pr.Messages[0].Content.(*mcp.TextContent).Text != want.Text || !strings.Contains(want.Text, "Fridays") {
		t.Errorf("context prompt %+v, want %q", pr.Messages, want.Text)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.ContextURI})
	if err != nil {
		t.Fatal(err)
	}
	if got := rr.Contents[0].Text; !strings.Contains(got, "British") || strings.Contains(got, "Fridays") {
		t.Errorf("context resource (no scope):\n%s", got)
	}
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mnemo://banks/a/context?scope=web&format=json&budget=500"})
	if err != nil {
		t.Fatal(err)
	}
	wantJSON, _ := eng.Context(ctx, "a", mnemo.ContextRequest{Scopes: []string{"web"}, Budget: 500, Format: "json"})
	if rr.Contents[0].Text != wantJSON.Text || rr.Contents[0].MIMEType != "application/json" {
		t.Errorf("context resource json: %q (%s), want %q", rr.Contents[0].Text, rr.Contents[0].MIMEType, wantJSON.Text)
	}
	if res := call(t, cs, "directive_remove", map[string]any{"id": web.ID}); res.IsError {
		t.Errorf("directive_remove: %s", text(res))
	}
	if res := call(t, cs, "directive_remove", map[string]any{"id": web.ID}); !res.IsError || !strings.Contains(text(res), "not_found") {
		t.Errorf("directive_remove again: %s", text(res))
	}

	// A key bound to bank b: bank a is as if it did not exist.
	bound := connect(t, mcpserver.New(eng, mcpserver.Options{
		KeyBank:  func(context.Context, *mcp.CallToolRequest) (string, bool) { return "b", true },
		CanWrite: func(context.Context, *mcp.CallToolRequest) bool { return false },
	}), nil)
	if _, err := bound.GetPrompt(ctx, &mcp.GetPromptParams{Name: mcpserver.ContextPrompt, Arguments: map[string]string{"bank": "a"}}); err == nil || !strings.Contains(err.Error(), "unknown bank") {
		t.Errorf("prompt for another bank: %v", err)
	}
	if _, err := bound.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mnemo://banks/a/context"}); err == nil {
		t.Error("resource of another bank read")
	}
	if res := call(t, bound, "directive_list", map[string]any{"bank": "a"}); !res.IsError {
		t.Errorf("directive_list of another bank: %s", text(res))
	}
	if res := call(t, bound, "directive_add", map[string]any{"text": "x"}); !res.IsError || !strings.Contains(text(res), "forbidden") {
		t.Errorf("directive_add with a read key: %s", text(res))
	}
}
