package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// mnemo export writes the same export to stdout and to the file of
// --out, -o or --output (the README's flag and its earlier spelling); it
// begins with the current version's header and uses snake_case keys, and mnemo
// import takes it, or a version-1 export, back as a new bank.
func TestExport_Out(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "bank", "create", "alice")
	mustRun(t, db, "--bank", "alice", "retain", "--at", "2024-03-04", "--speaker", "Melanie", "Melanie adopted a puppy named Biscuit in Berlin.")
	stdout := mustRun(t, db, "--bank", "alice", "export")
	if !strings.HasPrefix(stdout, fmt.Sprintf(`{"kind":"header","version":%d,"bank":{"id":"alice",`, memory.ExportVersion)) || !strings.Contains(stdout, `"occurred_start":"2024-03-04T00:00:00Z"`) {
		t.Fatalf("export: got %.300s…, want a version-%d header first and snake_case keys", stdout, memory.ExportVersion)
	}
	dir := t.TempDir()
	for _, flag := range []string{"--out", "-o", "--output"} {
		path := filepath.Join(dir, strings.TrimLeft(flag, "-")+".jsonl")
		if out := mustRun(t, db, "--bank", "alice", "export", flag, path); out != "" {
			t.Errorf("export %s: stdout %q, want nothing", flag, out)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("export %s: %v", flag, err)
		}
		if !bytes.Equal(got, []byte(stdout)) {
			t.Errorf("export %s %s differs from the export on stdout", flag, path)
		}
	}
	mustRun(t, db, "--bank", "copy", "import", filepath.Join(dir, "out.jsonl"))
	if got, want := stats(t, db, "copy"), stats(t, db, "alice"); got.Facts != want.Facts || got.Entities != want.Entities || got.Facts == 0 {
		t.Errorf("stats of the imported copy: got %+v, want %+v", got, want)
	}
	mustRun(t, db, "--bank", "v1", "import", filepath.Join("..", "..", "testdata", "export-v1.jsonl"))
	if st := stats(t, db, "v1"); st.Documents != 3 || st.Facts != 4 || st.Entities != 9 || st.Links != 2 {
		t.Errorf("stats of the version-1 import: got %+v, want 3 documents, 4 facts, 9 entities, 2 links", st)
	}
}
