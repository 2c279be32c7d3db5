package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/mcpserver"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestServer_Forget(t *testing.T) {
	eng := openEngine(t)
	cs := connect(t, mcpserver.New(eng, mcpserver.Options{}), nil)
	retain(t, cs, map[string]any{"text": "Maya adopted a cat named Quokka.", "speaker": "Maya"})
	retain(t, cs, map[string]any{"text": "Tom plays the cello.", "speaker": "Tom"})
	before := facts(t, eng, memory.DefaultBank)

	// By query without confirm: a dry run that lists the texts and
	// changes nothing.
	res := call(t, cs, "forget", map[string]any{"query": "Quokka cat"})
	var dry wire.Forget
	structured(t, res, &dry)
	if res.IsError || !dry.DryRun || len(dry.Facts) == 0 || !strings.Contains(text(res), "Quokka") || !strings.Contains(text(res), "confirm=true") {
		t.Fatalf("forget by query without confirm = %s %+v, want a dry run listing the Quokka fact", text(res), dry)
	}
	if n := facts(t, eng, memory.DefaultBank); n != before {
		t.Fatalf("after a dry run the bank holds %d facts, want %d", n, before)
	}
	var quokka string
	for _, f := range dry.Facts {
		if strings.Contains(f.Text, "Quokka") {
			quokka = f.ID
		}
	}
	if quokka == "" {
		t.Fatalf("dry run %+v does not list the Quokka fact", dry)
	}

	// By id: forgotten at once, with counts and an audit record.
	res = call(t, cs, "forget", map[string]any{"ids": []string{quokka}})
	var done wire.Forget
	structured(t, res, &done)
	if res.IsError || done.DryRun || done.Counts.Facts != 1 || done.Record == "" {
		t.Fatalf("forget by id = %s %+v, want 1 fact forgotten with a record", text(res), done)
	}
	if n := facts(t, eng, memory.DefaultBank); n != before-1 {
		t.Errorf("after forgetting one fact the bank holds %d facts, want %d", n, before-1)
	}
	_, page := recall(t, cs, map[string]any{"query": "Quokka cat"})
	for _, r := range page.Results {
		if strings.Contains(r.Text, "Quokka") {
			t.Errorf("recall still returns the forgotten fact %q", r.Text)
		}
	}

	// Bad calls are tool errors; a read-only key may only dry-run.
	for _, args := range []map[string]any{
		{},
		{"ids": []string{"f_nosuch"}},
		{"query": "cello", "limit": 500},
		{"from": "last tuesday", "confirm": true},
	} {
		if res := call(t, cs, "forget", args); !res.IsError {
			t.Errorf("forget(%v) = %q, want a tool error", args, text(res))
		}
	}
	ro := connect(t, mcpserver.New(eng, mcpserver.Options{CanWrite: func(context.Context, *mcp.CallToolRequest) bool { return false }}), nil)
	if res := call(t, ro, "forget", map[string]any{"query": "cello", "confirm": true}); !res.IsError || !strings.Contains(text(res), "forbidden") {
		t.Errorf("forget with a read-only key = %q, want forbidden", text(res))
	}
	if res := call(t, ro, "forget", map[string]any{"query": "cello"}); res.IsError {
		t.Errorf("dry run with a read-only key = %q, want allowed", text(res))
	}
	if n := facts(t, eng, memory.DefaultBank); n != before-1 {
		t.Errorf("after refused forgets the bank holds %d facts, want %d", n, before-1)
	}
}

func TestServer_About(t *testing.T) {
	eng := openEngine(t)
	cs := connect(t, mcpserver.New(eng, mcpserver.Options{}), nil)
	for _, s := range []string{"Maya moved to Lisbon in May.", "Maya adopted a cat.", "Maya started a job at Northwind Labs.", "Tom plays the cello."} {
		retain(t, cs, map[string]any{"text": s, "speaker": "Maya", "occurred_at": "2024-03-04"})
	}
	res := call(t, cs, "about", map[string]any{"name": "maya"})
	var a wire.About
	structured(t, res, &a)
	if res.IsError || a.Entity.Name != "Maya" || len(a.Facts) < 3 || !strings.Contains(text(res), "Lisbon") {
		t.Fatalf("about(maya) = %s %+v, want Maya with her facts", text(res), a)
	}
	// A small budget keeps the newest facts that fit and says so.
	res = call(t, cs, "about", map[string]any{"name": "Maya", "budget": 200})
	var small wire.About
	structured(t, res, &small)
	if res.IsError || len(small.Facts) == 0 || len(small.Facts) > len(a.Facts) {
		t.Fatalf("about with budget 200 = %s %+v", text(res), small)
	}
	if len(small.Facts) < len(a.Facts) && !strings.Contains(text(res), "left out") {
		t.Errorf("about with budget 200 left facts out without saying so: %s", text(res))
	}
	for _, args := range []map[string]any{{}, {"name": "Nobody Known"}, {"name": "Maya", "limit": 1000}, {"name": "Maya", "budget": 10}} {
		if res := call(t, cs, "about", args); !res.IsError {
			t.Errorf("about(%v) = %q, want a tool error", args, text(res))
		}
	}
}
