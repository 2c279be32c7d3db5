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
