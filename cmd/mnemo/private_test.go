package main

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/sqlite"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// privateRun runs the mnemo binary under umask 022 (the usual one, which
// leaves new files readable by everyone) with home and data folders in
// root and no MNEMO_DB, so that the default database path is used.
func privateRun(t *testing.T, root string, args ...string) result {
	t.Helper()
	if mnemoBin == "" {
		t.Skip("no go command to build mnemo")
	}
	cmd := exec.Command("/bin/sh", append([]string{"-c", `umask 022; exec "$0" "$@"`, mnemoBin}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+root, "XDG_DATA_HOME="+filepath.Join(root, "data"), "XDG_STATE_HOME="+filepath.Join(root, "state"), "MNEMO_DB=")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// checkPrivate fails for every folder under dir (dir included) that is
// not 0700 and every file that is not 0600, and returns how many files
// it checked.
func checkPrivate(t *testing.T, dir string) int {
	t.Helper()
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		} else {
			files++
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %04o, want %04o", path, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// Under umask 022, a bank created, filled, recalled and exported leaves
// its data folder 0700 and every file mnemo wrote in it 0600, and the
// export 0600: nobody else on a shared machine can read the memories.
func TestPrivate_FilesOwnerOnly(t *testing.T) {
	root := t.TempDir()
	for _, args := range [][]string{
		{"bank", "create", "alice"},
		{"--bank", "alice", "retain", "My bank PIN is not something I share. I adopted a puppy named Biscuit in May."},
		{"--bank", "alice", "recall", "puppy"},
		{"--bank", "alice", "export", "-o", filepath.Join(root, "alice.jsonl")},
	} {
		if r := privateRun(t, root, args...); r.code != exitOK {
			t.Fatalf("mnemo %s: %v", strings.Join(args, " "), r)
		}
	}
	data := filepath.Join(root, "data", "mnemo")
	if n := checkPrivate(t, data); n == 0 {
		t.Fatalf("no files under %s", data)
	}
	if fi, err := os.Stat(filepath.Join(root, "alice.jsonl")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("export: %v, mode %v, want 0600", err, fi)
	}
}

// The database's -wal and -shm files, which exist while it is open, take
// the database file's owner-only mode under umask 022.
func TestPrivate_WALAndSHM(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "new")
	db := filepath.Join(dir, "mnemo.db")
	ctx := context.Background()
	s, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateBank(ctx, &memory.Bank{ID: "b", Name: "b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, storetest.NewTestBatch("b", "d1", "Melanie adopted a puppy named Biscuit.")); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(db + suffix); err != nil {
			t.Fatalf("%s%s: %v (the database is open in WAL mode)", db, suffix, err)
		}
	}
	checkPrivate(t, dir)
}

// An existing database others can read gets one warning on stderr,
// naming the chmod that fixes it; --json output on stdout stays JSON.
func TestPrivate_WarnsWhenExposed(t *testing.T) {
	root := t.TempDir()
	if r := privateRun(t, root, "bank", "create", "alice"); r.code != exitOK || r.stderr != "" {
		t.Fatalf("bank create: %v", r)
	}
	db := filepath.Join(root, "data", "mnemo", "mnemo.db")
	if err := os.Chmod(db, 0o644); err != nil {
		t.Fatal(err)
	}
	r := privateRun(t, root, "--json", "bank", "list")
	if r.code != exitOK || !strings.HasPrefix(strings.TrimSpace(r.stdout), "{") && !strings.HasPrefix(strings.TrimSpace(r.stdout), "[") {
		t.Fatalf("bank list --json: %v", r)
	}
	if strings.Count(r.stderr, "warning") != 1 || !strings.Contains(r.stderr, "chmod 600 "+db) || !strings.Contains(r.stderr, "0644") {
		t.Errorf("stderr = %q, want one warning naming chmod 600 %s", r.stderr, db)
	}
	if err := os.Chmod(db, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := privateRun(t, root, "bank", "list"); r.stderr != "" {
		t.Errorf("an owner-only database still warns: %q", r.stderr)
	}
}
