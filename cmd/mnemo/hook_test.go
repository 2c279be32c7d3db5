package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mnemo hook: the session-start context in Claude Code's shape; a broken
// database, an unknown event or bad input exit 0 with nothing on stdout
// or stderr and one line in the hook log.
func TestHook(t *testing.T) {
	db := emptyDB(t)
	log := filepath.Join(t.TempDir(), "hooks.log")
	t.Setenv(hookLogEnv, log)
	mustRun(t, db, "bank", "create", "w")
	mustRun(t, db, "--bank", "w", "directives", "add", "Answer in British English.")
	in := `{"session_id":"s1","hook_event_name":"SessionStart","source":"startup","cwd":` + jsonString(t, t.TempDir()) + `}`
	r := mnemoIn(t, db, strings.NewReader(in), "--bank", "w", "hook", "claude-code", "SessionStart")
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("SessionStart: %v", r)
	}
	var out struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	decodeStrict(t, r.stdout, &out)
	if out.HookSpecificOutput.HookEventName != "SessionStart" || !strings.Contains(out.HookSpecificOutput.AdditionalContext, "Answer in British English.") {
		t.Errorf("SessionStart output %+v", out)
	}

	// A flag a newer harness config might pass is no usage error.
	if r := mnemoIn(t, db, strings.NewReader(in), "--bank", "w", "hook", "claude-code", "SessionStart", "--no-such-flag"); r.code != exitOK || r.stderr != "" || !strings.Contains(r.stdout, "British") {
		t.Errorf("an unknown flag: %v", r)
	}

	broken := t.TempDir() // a directory is no database
	for _, c := range []struct {
		db   string
		args []string
		in   string
	}{
		{broken, []string{"hook", "claude-code", "SessionStart"}, in},
		{broken, []string{"hook", "claude-code", "UserPromptSubmit"}, `{"prompt":"hello there","cwd":"/"}`},
		{broken, []string{"hook", "claude-code", "Stop"}, `{"session_id":"s","transcript_path":"/nonexistent.jsonl","cwd":"/"}`},
		{db, []string{"hook", "claude-code", "Notification"}, `{}`},
		{db, []string{"hook", "claude-code", "SessionStart"}, `not json`},
		{db, []string{"hook", "claude-code"}, `{}`},
	} {
		before, _ := os.ReadFile(log)
		r := mnemoIn(t, c.db, strings.NewReader(c.in), c.args...)
		if r.code != exitOK || r.stdout != "" || r.stderr != "" {
			t.Errorf("%v on %s: %v; want exit 0 and no output", c.args, c.db, r)
		}
		after, _ := os.ReadFile(log)
		added := bytes.TrimPrefix(after, before)
		if bytes.Count(added, []byte("\n")) != 1 || !bytes.Contains(added, []byte("mnemo hook")) {
			t.Errorf("%v: log gained %q, want one line", c.args, added)
		}
	}
}

func jsonString(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mnemo install claude-code on a temporary HOME with a settings file, a
// second run, and --uninstall restoring it byte for byte.
func TestInstall(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	settings := filepath.Join(home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	original := []byte("{\"model\": \"opus\",\n \"permissions\": {\"allow\": [\"Bash(ls)\"]}}\n")
	if err := os.WriteFile(settings, original, 0o644); err != nil {
		t.Fatal(err)
	}
	db := newDB(t)
	if out := mustRun(t, db, "install", "claude-code"); strings.Count(out, "written") != 2 {
		t.Errorf("install:\n%s", out)
	}
	first, _ := os.ReadFile(settings)
	var v map[string]any
	if err := json.Unmarshal(first, &v); err != nil || v["model"] != "opus" || v["hooks"] == nil {
		t.Fatalf("settings after install (%v):\n%s", err, first)
	}
	if !strings.Contains(string(first), "--db "+db+" hook claude-code SessionStart") {
		t.Errorf("the hooks do not pass --db on:\n%s", first)
	}
	if out := mustRun(t, db, "install", "claude-code"); strings.Count(out, "unchanged") != 2 {
		t.Errorf("second install:\n%s", out)
	}
	mustRun(t, db, "install", "claude-code", "--uninstall")
	if back, _ := os.ReadFile(settings); !bytes.Equal(back, original) {
		t.Errorf("uninstall:\n%s\nwant\n%s", back, original)
	}
	wantFailure(t, mnemoRun(t, db, "install", "vim"), exitInvalid, "harness")
}
