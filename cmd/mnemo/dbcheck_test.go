package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestDB_PathIsAPath checks that --db paths holding ?, # or % open
// exactly that file (they opened "we" for "we?ird.db").
func TestDB_PathIsAPath(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"we?ird.db", "we#ird.db", "we%ird.db"} {
		mustRun(t, filepath.Join(dir, name), "retain", "--at", "2024-03-04", lisbon)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	for _, want := range []string{"we?ird.db", "we#ird.db", "we%ird.db"} {
		if !slices.Contains(got, want) {
			t.Errorf("no file %q: the directory holds %v", want, got)
		}
		if n := stats(t, filepath.Join(dir, want), "default").Facts; n != 1 {
			t.Errorf("%s holds %d facts, want 1", want, n)
		}
	}
	if slices.Contains(got, "we") {
		t.Errorf("stray database \"we\" beside %v", got)
	}
}

// TestDB_NotADatabase checks that what cannot be a database is a usage
// error (exit 2) that says why, and is left as it was.
func TestDB_NotADatabase(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte("not a database\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, db string
		args     []string
		want     string
	}{
		{"DirectoryRead", dir, []string{"stats"}, "is a directory"},
		{"DirectoryWrite", dir, []string{"retain", "hello there"}, "is a directory"},
		{"TextFileRead", text, []string{"recall", "hello"}, "not a SQLite database"},
		{"TextFileWrite", text, []string{"retain", "hello there"}, "not a SQLite database"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantFailure(t, mnemoRun(t, tt.db, tt.args...), exitInvalid, tt.db, tt.want)
		})
	}
	if b, err := os.ReadFile(text); err != nil || string(b) != "not a database\n" {
		t.Errorf("the text file now holds %q, %v", b, err)
	}
}

// TestDB_ReadOnlyRetain checks that a command writing to a read-only
// database exits 2 saying so, not 1 "internal error", and that reads of
// it still work.
func TestDB_ReadOnlyRetain(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "retain", "--at", "2024-03-04", lisbon)
	readOnly(t, db)
	wantFailure(t, mnemoRun(t, db, "retain", "--at", "2024-03-04", unrelated[0]), exitInvalid, "read-only")
	if n := stats(t, db, "default").Facts; n != 1 {
		t.Errorf("%d facts, want 1", n)
	}
}

// readOnly makes path read-only for this process, or skips the test: a
// mode bit does not stop root, the immutable attribute does.
func readOnly(t *testing.T, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(path, 0o444); err != nil {
			t.Fatal(err)
		}
		return
	}
	if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		t.Skipf("running as root and chattr +i failed: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", path).Run() })
}

// TestDB_ReadCreatesNothing checks that a command that only reads, on a
// mistyped --db, fails with exit 3 and leaves no database or directory
// behind.
func TestDB_ReadCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"recall", "Lisbon"}, {"stats"}, {"export"}, {"bank", "list"}, {"facts"}, {"jobs"},
	} {
		t.Run(args[0], func(t *testing.T) {
			db := filepath.Join(dir, "mistyped", "mnemo.db")
			wantFailure(t, mnemoRun(t, db, args...), exitNotFound, "no database at", db)
			if _, err := os.Stat(filepath.Join(dir, "mistyped")); !os.IsNotExist(err) {
				t.Errorf("%v created %s", args, filepath.Join(dir, "mistyped"))
			}
		})
	}
}

// TestConfig_DefaultUnreadable checks that the default config location,
// which is optional, breaks no command when it cannot be read.
func TestConfig_DefaultUnreadable(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "retain", "--at", "2024-03-04", lisbon)
	t.Run("FileIsDirectory", func(t *testing.T) {
		cfg := t.TempDir()
		if err := os.MkdirAll(filepath.Join(cfg, "mnemo", "config.json"), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("XDG_CONFIG_HOME", cfg)
		mustRun(t, db, "recall", "Lisbon")
	})
	t.Run("DirectoryIsFile", func(t *testing.T) {
		cfg := t.TempDir()
		if err := os.WriteFile(filepath.Join(cfg, "mnemo"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv("XDG_CONFIG_HOME", cfg)
		mustRun(t, db, "stats")
	})
}

// TestConfig_ExplicitMissing checks that a --config (or $MNEMO_CONFIG)
// naming no file is a usage error, with one "file: reason" message.
func TestConfig_ExplicitMissing(t *testing.T) {
	db := newDB(t)
	missing := filepath.Join(t.TempDir(), "nope.json")
	r := mnemoRun(t, db, "--config", missing, "stats")
	wantFailure(t, r, exitInvalid, "config file "+missing+": no such file")
	t.Setenv("MNEMO_CONFIG", missing)
	wantFailure(t, mnemoRun(t, db, "stats"), exitInvalid, "config file "+missing)
}
