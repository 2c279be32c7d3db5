package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A secret given to the CLI — retain, and import of a chat file — is in
// no file of the database afterwards (WAL included).
func TestFirewall_CLI(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	const key, token = "sk-proj-CliQ9zXw2LmN8pR7tV1yB3cD6eF0gH5jK", "ghp_CliImp0rtL8sK9mN4bV6cX1zA7qW5eT3yU0i"
	if r := exe(t, db, "retain", "The staging deploy uses OPENAI_API_KEY="+key+" until Friday."); r.code != 0 {
		t.Fatalf("retain: %v", r)
	}
	chat := filepath.Join(t.TempDir(), "chat.jsonl")
	os.WriteFile(chat, []byte(`{"session":"s1","speaker":"Ana","text":"Push with the token `+token+` when the build is green."}`+"\n"), 0o600)
	if r := exe(t, db, "import", chat); r.code != 0 {
		t.Fatalf("import: %v", r)
	}
	if r := exe(t, db, "recall", "staging deploy key"); r.code != 0 || !bytes.Contains([]byte(r.stdout), []byte("[REDACTED:openai_key]")) {
		t.Errorf("recall: %v, want the note with its key redacted", r)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, s := range []string{key, token} {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds the secret %s", filepath.Base(f), s[:8])
			}
		}
	}
}
