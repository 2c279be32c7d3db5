package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestImport_BOM checks that a UTF-8 byte order mark before the first
// line of a transcript is no part of it.
func TestImport_BOM(t *testing.T) {
	db := newDB(t)
	path := writeFile(t, "bom.jsonl", "\xef\xbb\xbf"+chatLine("", "Maya", "I adopted a dog called Biscuit."), chatLine("", "Tom", "I started training for the Berlin half marathon."))
	r := mnemoRun(t, db, "import", path)
	if r.code != exitOK || strings.Contains(r.stderr, "skipped") {
		t.Fatalf("import of a file with a BOM: %v", r)
	}
	if got := stats(t, db, "default").Facts; got != 2 {
		t.Errorf("facts = %d, want 2", got)
	}
}

// TestImport_Stdin checks that import - reads standard input, and that
// the same input piped twice is imported once.
func TestImport_Stdin(t *testing.T) {
	db := newDB(t)
	in := chatLine("", "Maya", "I adopted a dog called Biscuit.") + "\n" + chatLine("", "Tom", "I started training for the Berlin half marathon.") + "\n"
	for range 2 {
		r := mnemoIn(t, db, strings.NewReader(in), "import", "-")
		if r.code != exitOK {
			t.Fatalf("import -: %v", r)
		}
	}
	if st := stats(t, db, "default"); st.Facts != 2 || st.Documents != 1 {
		t.Errorf("stats = %+v, want 1 document with 2 facts", st)
	}
	wantFailure(t, mnemoIn(t, db, strings.NewReader(""), "import", "-"), exitInvalid, "empty")
}

// TestImport_MissingFileMessage checks that an error names the file once:
// "open X: reason", not "open X: open X: reason".
func TestImport_MissingFileMessage(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.jsonl")
	r := mnemoRun(t, newDB(t), "import", missing)
	wantFailure(t, r, exitInvalid, "open "+missing+": no such file")
	if strings.Count(r.stderr, missing) != 1 {
		t.Errorf("stderr = %q names the file more than once", r.stderr)
	}
}

// TestImport_Interrupted checks that an import stopped by a signal says
// how many items landed (exactly those the database holds) and exits
// 130, not 1 "internal error: context canceled".
func TestImport_Interrupted(t *testing.T) {
	var lines []string
	for i := range 3000 {
		lines = append(lines, chatLine(fmt.Sprintf("s%d", i), "Maya", fmt.Sprintf("On day %d Maya walked %d kilometres along the river with Theo.", i, i%17+1)))
	}
	path := writeFile(t, "big.jsonl", lines...)
	for _, after := range []time.Duration{300 * time.Millisecond, 100 * time.Millisecond, 30 * time.Millisecond} {
		db := newDB(t)
		mustRun(t, db, "bank", "create", "default")
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(after, cancel)
		var stdout, stderr bytes.Buffer
		code := run(ctx, []string{"--db", db, "import", path}, strings.NewReader(""), &stdout, &stderr)
		cancel()
		if code == exitOK {
			continue // finished first: interrupt sooner
		}
		if code != exitInterrupted {
			t.Fatalf("exit %d, want %d\nstderr: %s", code, exitInterrupted, stderr.String())
		}
		var n, facts int
		if _, err := fmt.Sscanf(stderr.String(), "mnemo: interrupted: %d items imported (%d facts)", &n, &facts); err != nil {
			t.Fatalf("stderr = %q, want how many items landed: %v", stderr.String(), err)
		}
		if st := stats(t, db, "default"); st.Documents != n || st.Facts != facts || n == len(lines) {
			t.Errorf("said %d of %d items (%d facts); the bank holds %+v", n, len(lines), facts, st)
		}
		// Run again: the rest lands, nothing twice.
		mustRun(t, db, "import", path)
		if st := stats(t, db, "default"); st.Documents != len(lines) {
			t.Errorf("after the second run: %d documents, want %d", st.Documents, len(lines))
		}
		return
	}
	t.Skip("every import finished before it could be interrupted")
}

// TestExport_FailedOutLeavesNoFile checks that export -o writes nothing
// when the export fails, and leaves a file already there as it was.
func TestExport_FailedOutLeavesNoFile(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "retain", "--at", "2024-03-04", lisbon)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	wantFailure(t, mnemoRun(t, db, "--bank", "nosuch", "export", "-o", out), exitNotFound, "nosuch")
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a failed export left %v", entries)
	}
	if err := os.WriteFile(out, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantFailure(t, mnemoRun(t, db, "--bank", "nosuch", "export", "-o", out), exitNotFound, "nosuch")
	if b, _ := os.ReadFile(out); string(b) != "keep me\n" {
		t.Errorf("a failed export changed %s to %q", out, b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("a failed export left %v", entries)
	}
}

// TestProviders_MissingKey checks that a hosted provider with no key is a
// usage error before any network call.
func TestProviders_MissingKey(t *testing.T) {
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MNEMO_LLM_API_KEY", "MNEMO_EMBED_API_KEY"} {
		t.Setenv(k, "")
	}
	db := newDB(t)
	for _, args := range [][]string{
		{"--llm", "openai", "retain", "hello there"},
		{"--llm", "anthropic", "retain", "hello there"},
		{"--embed", "openai", "retain", "hello there"},
	} {
		wantFailure(t, mnemoRun(t, db, args...), exitInvalid, args[1], "key")
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("a refused command created %s", db)
	}
}

// TestRecall_RerankUnreachable checks that recall with a --rerank that
// cannot be reached answers (in fused order) and says the reranker
// failed.
func TestRecall_RerankUnreachable(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "retain", "--at", "2024-03-04", lisbon)
	mustRun(t, db, "retain", "--at", "2024-03-04", "I visited Lisbon again in May with Ana.")
	srv := httptest.NewServer(nil)
	url := srv.URL + "/rerank"
	srv.Close() // nothing listens there now
	r := mnemoRun(t, db, "--rerank", url, "recall", "Lisbon")
	if r.code != exitOK || !strings.Contains(r.stdout, "Lisbon") {
		t.Fatalf("recall: %v", r)
	}
	if !strings.Contains(r.stderr, "warning: --rerank "+url+" failed") {
		t.Errorf("stderr = %q, want a warning that the reranker failed", r.stderr)
	}
}

// TestHelp checks mnemo help on an unknown topic (exit 2), --version, and
// that the flag help reads as written (a backquoted word in a cobra
// usage string becomes the flag's value name).
func TestHelp(t *testing.T) {
	db := newDB(t)
	wantFailure(t, mnemoRun(t, db, "help", "nosuch"), exitInvalid, "unknown help topic", "nosuch")
	wantFailure(t, mnemoRun(t, db, "help", "bank", "nosuch"), exitInvalid, "unknown help topic")
	if out := mustRun(t, db, "help", "bank"); !strings.Contains(out, "mnemo bank [command]") {
		t.Errorf("help bank = %q", out)
	}
	if out := mustRun(t, db, "--version"); !strings.HasPrefix(out, "mnemo version ") {
		t.Errorf("--version = %q", out)
	}
	help := mustRun(t, db, "--help")
	if !strings.Contains(help, "--embed string") || strings.Contains(help, "--embed mnemo") {
		t.Errorf("--embed help is garbled:\n%s", help)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("help created %s", db)
	}
}

// TestJSONErrors checks that with --json a failure prints one JSON
// error object on stderr (nothing on stdout) and keeps its exit code.
func TestJSONErrors(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "retain", "--at", "2024-03-04", lisbon)
	tests := []struct {
		name string
		args []string
		exit int
		code string
	}{
		{"Usage", []string{"--json", "recall"}, exitInvalid, "invalid"},
		{"UnknownCommand", []string{"--json", "frobnicate"}, exitInvalid, "invalid"},
		{"NotFound", []string{"--json", "--bank", "nosuch", "stats"}, exitNotFound, "not_found"},
		{"NoDatabase", []string{"--json", "--db", filepath.Join(t.TempDir(), "nope.db"), "stats"}, exitNotFound, "not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mnemoRun(t, db, tt.args...)
			if r.code != tt.exit || r.stdout != "" {
				t.Fatalf("exit %d (want %d), stdout %q", r.code, tt.exit, r.stdout)
			}
			var e struct {
				Error struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			decodeStrict(t, r.stderr, &e)
			if e.Error.Code != tt.code || e.Error.Message == "" {
				t.Errorf("stderr = %q, want code %q and a message", r.stderr, tt.code)
			}
			if strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
				t.Errorf("stderr = %q, want one line", r.stderr)
			}
		})
	}
}
