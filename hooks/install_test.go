package hooks_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/hooks"
	"github.com/mnemo-ai/mnemo/memory"
)

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s is not valid JSON: %v\n%s", path, err, b)
	}
	return v
}

// commands lists the hook commands of an event in a settings object.
func commands(settings map[string]any, event string) []string {
	var out []string
	hooksObj, _ := settings["hooks"].(map[string]any)
	groups, _ := hooksObj[event].([]any)
	for _, g := range groups {
		entries, _ := g.(map[string]any)["hooks"].([]any)
		for _, e := range entries {
			out = append(out, e.(map[string]any)["command"].(string))
		}
	}
	return out
}

// `mnemo install claude-code` on a home with a settings file: valid JSON
// keeping every other setting (the user's own hooks too), mnemo's hooks
// for every event and its MCP server; a second run changes nothing;
// uninstall gives back the original bytes and removes what install
// created.
func TestInstall_ClaudeCode(t *testing.T) {
	home := t.TempDir()
	settings := filepath.Join(home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	original, err := os.ReadFile(filepath.Join(fixtures, "claude-code", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, original, 0o600); err != nil {
		t.Fatal(err)
	}
	o := hooks.InstallOptions{Harness: "claude-code", Scope: hooks.ScopeUser, Home: home, Command: "/opt/my tools/mnemo", Args: []string{"--db", "/data/m.db"}, MCPArgs: []string{"--bank", "p"}}
	changes, err := hooks.Install(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 2 || changes[0].Action != "written" || changes[1].Action != "written" {
		t.Fatalf("first install: %+v", changes)
	}
	got := readJSON(t, settings)
	var want map[string]any
	if err := json.Unmarshal(original, &want); err != nil {
		t.Fatal(err)
	}
	for k, v := range want {
		if k == "hooks" {
			continue
		}
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("setting %q changed: %v, want %v", k, got[k], v)
		}
	}
	wantHooks := want["hooks"].(map[string]any)
	for ev := range wantHooks {
		for _, c := range commands(want, ev) {
			if !strings.Contains(strings.Join(commands(got, ev), "\n"), c) {
				t.Errorf("the user's %s hook %q is gone", ev, c)
			}
		}
	}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreCompact", "Stop", "SessionEnd"} {
		cmd := "'/opt/my tools/mnemo' --db /data/m.db hook claude-code " + ev
		n := 0
		for _, c := range commands(got, ev) {
			if c == cmd {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: %d mnemo hooks %q, want 1 (have %q)", ev, n, cmd, commands(got, ev))
		}
	}
	if info, _ := os.Stat(settings); info.Mode().Perm() != 0o600 {
		t.Errorf("settings mode %v, want 0600 kept", info.Mode().Perm())
	}
	mcp := readJSON(t, filepath.Join(home, ".claude.json"))
	srv, _ := mcp["mcpServers"].(map[string]any)["mnemo"].(map[string]any)
	if srv["command"] != "/opt/my tools/mnemo" || !reflect.DeepEqual(srv["args"], []any{"--db", "/data/m.db", "--bank", "p", "mcp"}) || srv["type"] != "stdio" {
		t.Errorf("MCP server %v", srv)
	}

	// Idempotent.
	afterFirst, _ := os.ReadFile(settings)
	mcpFirst, _ := os.ReadFile(filepath.Join(home, ".claude.json"))
	changes, err = hooks.Install(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.Action != "unchanged" {
			t.Errorf("second install changed %s", c.Path)
		}
	}
	afterSecond, _ := os.ReadFile(settings)
	mcpSecond, _ := os.ReadFile(filepath.Join(home, ".claude.json"))
	if !bytes.Equal(afterFirst, afterSecond) || !bytes.Equal(mcpFirst, mcpSecond) {
		t.Error("a second install changed the files")
	}

	// Uninstall: byte for byte.
	if _, err := hooks.Uninstall(o); err != nil {
		t.Fatal(err)
	}
	back, err := os.ReadFile(settings)
	if err != nil || !bytes.Equal(back, original) {
		t.Errorf("uninstall did not restore the original byte for byte:\n%s", back)
	}
	for _, gone := range []string{filepath.Join(home, ".claude.json"), settings + ".mnemo-backup", settings + ".mnemo-install.json"} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("%s left after uninstall", gone)
		}
	}
}

// A file changed after install keeps those changes on uninstall and
// loses only mnemo's entries; a file that is not JSON is refused with
// nothing written.
func TestInstall_ChangedSinceAndBadFiles(t *testing.T) {
	for _, harness := range hooks.Names() {
		t.Run(harness, func(t *testing.T) {
			proj := t.TempDir()
			o := hooks.InstallOptions{Harness: harness, Scope: hooks.ScopeProject, Project: proj, Command: "mnemo"}
			changes, err := hooks.Install(o)
			if err != nil {
				t.Fatal(err)
			}
			path := changes[0].Path
			v := readJSON(t, path)
			if len(commands(v, "SessionStart")) != 1 {
				t.Fatalf("%s: SessionStart hooks %q", path, commands(v, "SessionStart"))
			}
			v["theme"] = "dark" // the user changes a setting
			b, _ := json.Marshal(v)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := hooks.Uninstall(o); err != nil {
				t.Fatal(err)
			}
			after := readJSON(t, path)
			if after["theme"] != "dark" || len(commands(after, "SessionStart")) != 0 || after["mcpServers"] != nil {
				t.Errorf("uninstall after a change: %v", after)
			}
			bad := filepath.Join(proj, "bad")
			o.Project = bad
			target := filepath.Join(bad, strings.TrimPrefix(changes[0].Path, proj))
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(target, []byte("{not json"), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := hooks.Install(o); memory.ErrorCode(err) != memory.EINVALID {
				t.Errorf("a broken settings file: %v, want EINVALID", err)
			}
			if b, _ := os.ReadFile(target); string(b) != "{not json" {
				t.Errorf("a broken settings file was changed: %q", b)
			}
			if _, err := os.Stat(target + ".mnemo-backup"); !os.IsNotExist(err) {
				t.Errorf("a backup was written for a refused install")
			}
		})
	}
	if _, err := hooks.Install(hooks.InstallOptions{Harness: "cursor", Scope: hooks.ScopeUser, Home: t.TempDir(), Command: "mnemo"}); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("an unknown harness: %v", err)
	}
}

// `mnemo install codex` on a config.toml the user wrote: the user's
// lines stay as they were, codex_hooks is turned on in [features] and
// mnemo's MCP server table is added once; a second run changes nothing;
// uninstall gives back the original bytes. A file changed since keeps
// the change and loses the MCP table; an inline features table is
// refused untouched.
func TestInstall_CodexConfigTOML(t *testing.T) {
	home := t.TempDir()
	config := filepath.Join(home, ".codex", "config.toml")
	if err := os.MkdirAll(filepath.Dir(config), 0o755); err != nil {
		t.Fatal(err)
	}
	original := "# my codex\nmodel = \"gpt-5\"\n\n[features]\ncodex_hooks = false # off for now\nweb_search = true\n\n[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs-mcp\"]\n"
	if err := os.WriteFile(config, []byte(original), 0o600); err != nil {
		t.Fatal(err)
	}
	o := hooks.InstallOptions{Harness: "codex", Scope: hooks.ScopeUser, Home: home, Command: "/opt/my tools/mnemo", Args: []string{"--db", `C:\mem "x".db`}}
	if _, err := hooks.Install(o); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(config)
	want := "# my codex\nmodel = \"gpt-5\"\n\n[features]\ncodex_hooks = true\nweb_search = true\n\n[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs-mcp\"]\n\n" +
		"[mcp_servers.mnemo]\ncommand = \"/opt/my tools/mnemo\"\nargs = [\"--db\", \"C:\\\\mem \\\"x\\\".db\", \"mcp\"]\n"
	if string(got) != want {
		t.Fatalf("config.toml after install:\n%s\nwant:\n%s", got, want)
	}
	changes, err := hooks.Install(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.Action != "unchanged" {
			t.Errorf("second install: %s %s", c.Path, c.Action)
		}
	}
	if _, err := hooks.Uninstall(o); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(config); string(b) != original {
		t.Errorf("uninstall did not restore config.toml:\n%s", b)
	}

	// No file: install creates one with both tables; the user adds a
	// line; uninstall keeps it and the feature, and drops the table.
	home2 := t.TempDir()
	o.Home = home2
	config2 := filepath.Join(home2, ".codex", "config.toml")
	if _, err := hooks.Install(o); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(config2)
	if !strings.HasPrefix(string(b), "[features]\ncodex_hooks = true\n\n[mcp_servers.mnemo]\n") {
		t.Fatalf("a new config.toml:\n%s", b)
	}
	if err := os.WriteFile(config2, append(b, "\n[tui]\nnotifications = true\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := hooks.Uninstall(o); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(config2)
	if strings.Contains(string(b), "mcp_servers.mnemo") || !strings.Contains(string(b), "[tui]\nnotifications = true") || !strings.Contains(string(b), "codex_hooks = true") {
		t.Errorf("uninstall after a change:\n%s", b)
	}

	// A dotted key at the top level is turned on where it is.
	home3 := t.TempDir()
	o.Home = home3
	config3 := filepath.Join(home3, ".codex", "config.toml")
	os.MkdirAll(filepath.Dir(config3), 0o755)
	os.WriteFile(config3, []byte("features.codex_hooks = false\n"), 0o600)
	if _, err := hooks.Install(o); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(config3); !strings.HasPrefix(string(b), "features.codex_hooks = true\n\n[mcp_servers.mnemo]") || strings.Contains(string(b), "[features]") {
		t.Errorf("dotted feature key:\n%s", b)
	}

	// An inline features table cannot take a [features] header.
	home4 := t.TempDir()
	o.Home = home4
	config4 := filepath.Join(home4, ".codex", "config.toml")
	os.MkdirAll(filepath.Dir(config4), 0o755)
	inline := "features = { web_search = true }\n"
	os.WriteFile(config4, []byte(inline), 0o600)
	if _, err := hooks.Install(o); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("inline features table: %v, want EINVALID", err)
	}
	if b, _ := os.ReadFile(config4); string(b) != inline {
		t.Errorf("a refused config.toml was changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(home4, ".codex", "hooks.json")); !os.IsNotExist(err) {
		t.Errorf("hooks.json written although config.toml was refused")
	}
}
