package hooks_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/hooks"
)

// The Claude Code plugin in plugins/claude-code: a manifest with a name,
// a hook for every event mnemo handles (and only those) running `mnemo
// hook claude-code EVENT`, and the MCP server; the marketplace lists it.
func TestPlugin_ClaudeCode(t *testing.T) {
	root := filepath.Join("..", "plugins")
	var manifest struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	decodeFile(t, filepath.Join(root, "claude-code", ".claude-plugin", "plugin.json"), &manifest)
	if manifest.Name != "mnemo" || manifest.Version == "" {
		t.Errorf("plugin.json: %+v", manifest)
	}
	var hk struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	decodeFile(t, filepath.Join(root, "claude-code", "hooks", "hooks.json"), &hk)
	h, _ := hooks.Lookup("claude-code")
	var events []string
	for ev, groups := range hk.Hooks {
		events = append(events, ev)
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Fatalf("%s: %+v", ev, groups)
		}
		e := groups[0].Hooks[0]
		if e.Type != "command" || e.Command != "mnemo hook claude-code "+ev || e.Timeout <= 0 {
			t.Errorf("%s hook %+v", ev, e)
		}
	}
	slices.Sort(events)
	if !slices.Equal(events, h.EventNames()) {
		t.Errorf("plugin events %v, mnemo handles %v", events, h.EventNames())
	}
	var mcp struct {
		MCPServers map[string]struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	decodeFile(t, filepath.Join(root, "claude-code", ".mcp.json"), &mcp)
	if s := mcp.MCPServers["mnemo"]; s.Command != "mnemo" || !slices.Equal(s.Args, []string{"mcp"}) {
		t.Errorf(".mcp.json: %+v", mcp)
	}
	var market struct {
		Name    string                `json:"name"`
		Owner   struct{ Name string } `json:"owner"`
		Plugins []struct {
			Name   string `json:"name"`
			Source string `json:"source"`
		} `json:"plugins"`
	}
	decodeFile(t, filepath.Join(root, ".claude-plugin", "marketplace.json"), &market)
	if len(market.Plugins) != 1 || market.Plugins[0].Name != manifest.Name {
		t.Fatalf("marketplace.json: %+v", market)
	}
	if _, err := os.Stat(filepath.Join(root, market.Plugins[0].Source, ".claude-plugin", "plugin.json")); err != nil {
		t.Errorf("the marketplace's source does not lead to the plugin: %v", err)
	}
}

func decodeFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
