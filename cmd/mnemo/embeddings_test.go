package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/provider/wordvec"
)

// tinyGloVe is a made-up GloVe file: 4 entries, 3 dimensions, one of them
// punctuation that the import skips.
const tinyGloVe = "the 0.1 0.2 0.3\n, 0.3 0.2 0.1\ncat 1 0 0\nkitten 0.9 0.1 0\n"

func writeTinyGloVe(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tiny.3d.txt")
	if err := os.WriteFile(p, []byte(tinyGloVe), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEmbeddingsImport(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	t.Run("Out", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "v.mwv")
		got := mustRun(t, db, "embeddings", "import", writeTinyGloVe(t), "--out", out)
		e, err := wordvec.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"wrote " + out, "3 words × 3 dimensions", e.Name(), "4 entries, 1 skipped", "--embed wordvec:" + out} {
			if !strings.Contains(got, want) {
				t.Errorf("stdout %q does not contain %q", got, want)
			}
		}
	})
	t.Run("DefaultOut", func(t *testing.T) {
		cache := t.TempDir()
		t.Setenv("XDG_CACHE_HOME", cache)
		mustRun(t, db, "embeddings", "import", writeTinyGloVe(t))
		want := filepath.Join(cache, "mnemo", "embeddings", "tiny.3d.mwv")
		if _, err := wordvec.Open(want); err != nil {
			t.Errorf("default output: %v", err)
		}
	})
	t.Run("JSON", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "v.mwv")
		got := mustRun(t, db, "--json", "embeddings", "import", writeTinyGloVe(t), "--out", out)
		var info wordvec.Info
		if err := json.Unmarshal([]byte(got), &info); err != nil {
			t.Fatalf("stdout is not JSON: %v\n%s", err, got)
		}
		if info.Path != out || info.Words != 3 || info.Dim != 3 || info.Format != wordvec.FormatGloVe {
			t.Errorf("JSON = %+v, want path %s, 3 words, 3 dimensions, format %s", info, out, wordvec.FormatGloVe)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		dir := t.TempDir()
		src := filepath.Join(dir, "bad.txt")
		os.WriteFile(src, []byte("the 1 2\ncat 1\n"), 0o644)
		out := filepath.Join(dir, "bad.mwv")
		r := mnemoRun(t, db, "embeddings", "import", src, "--out", out)
		if r.code != exitInvalid || !strings.Contains(r.stderr, "bad.txt:2: 1 values, want 2") {
			t.Errorf("bad input: %v; want exit %d naming the line", r, exitInvalid)
		}
		if _, err := os.Stat(out); err == nil {
			t.Error("a failed import left its output behind")
		}
	})
	t.Run("ErrUsage", func(t *testing.T) {
		if r := mnemoRun(t, db, "embeddings", "import"); r.code != exitInvalid {
			t.Errorf("no PATH: %v; want exit %d", r, exitInvalid)
		}
	})
}
