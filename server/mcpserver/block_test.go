package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/server/mcpserver"
	"github.com/mnemo-ai/mnemo/wire"
)

func TestServer_Blocks(t *testing.T) {
	cs := connect(t, mcpserver.New(openEngine(t), mcpserver.Options{}), nil)

	// Listing shows the default blocks, empty.
	res := call(t, cs, "block_read", map[string]any{})
	if res.IsError {
		t.Fatalf("block_read: %s", text(res))
	}
	var list wire.BlockList
	structured(t, res, &list)
	names := map[string]int{}
	for _, b := range list.Blocks {
		names[b.Name] = b.Chars
	}
	if c, ok := names["user_profile"]; !ok || c != 0 || !strings.Contains(text(res), "user_profile (0/") {
		t.Fatalf("block_read list = %+v / %q, want an empty user_profile", list, text(res))
	}

	// Write, append, replace; the text reads back.
	for _, args := range []map[string]any{
		{"name": "user_profile", "text": "Name: Maya."},
		{"name": "user_profile", "text": "Lives in Lisbon.", "mode": "append"},
		{"name": "user_profile", "text": "Porto", "mode": "replace", "old": "Lisbon"},
	} {
		if res := call(t, cs, "block_write", args); res.IsError {
			t.Fatalf("block_write(%v): %s", args, text(res))
		}
	}
	res = call(t, cs, "block_read", map[string]any{"name": "user_profile"})
	if got, want := text(res), "Name: Maya.\nLives in Porto."; res.IsError || got != want {
		t.Fatalf("block_read(user_profile) = %q (error %v), want %q", got, res.IsError, want)
	}

	// Bad calls are tool errors that change nothing.
	for _, args := range []map[string]any{
		{"name": "user_profile", "text": strings.Repeat("x", 3000)},
		{"name": "user_profile", "text": "a", "mode": "replace", "old": "Berlin"},
		{"name": "user_profile", "text": "a", "mode": "sideways"},
		{"name": "Bad Name!", "text": "a"},
	} {
		if res := call(t, cs, "block_write", args); !res.IsError || !strings.Contains(text(res), "invalid") {
			t.Errorf("block_write(%.60v) = %q, want an invalid tool error", args, text(res))
		}
	}
	if res := call(t, cs, "block_read", map[string]any{"name": "nosuchblock"}); !res.IsError {
		t.Errorf("block_read(nosuchblock) = %q, want a tool error", text(res))
	}
	res = call(t, cs, "block_read", map[string]any{"name": "user_profile"})
	if got := text(res); got != "Name: Maya.\nLives in Porto." {
		t.Errorf("after refused writes, user_profile = %q", got)
	}
}
