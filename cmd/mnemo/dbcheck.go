package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/postgres"
)

// readCommands only read the database: on a path that holds no database
// they fail (a mistyped --db must not leave a new database, or its
// directories, behind) instead of creating one. Every other command may
// write, and creates the database it is pointed at.
var readCommands = map[string]bool{
	"mnemo recall": true, "mnemo stats": true, "mnemo export": true,
	"mnemo bank list": true, "mnemo facts": true, "mnemo facts list": true,
	"mnemo facts show": true, "mnemo about": true, "mnemo jobs": true,
	"mnemo jobs show": true, "mnemo keys list": true, "mnemo blocks": true,
	"mnemo blocks show": true, "mnemo runs": true, "mnemo tiers": true,
	"mnemo observations": true,
}

// sqliteHeader starts every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// checkDB checks the SQLite path a command is about to open, so that
// what cannot be a database is a usage error (exit 2) saying why, rather
// than an internal error from the driver: a directory, a file that is no
// SQLite database, a read-only file for a command that writes. For a
// command that only reads (readCommands), a path with nothing at it is
// "not found" (exit 3). PostgreSQL URLs are not checked.
func checkDB(cmd *cobra.Command, path string) error {
	if path == "" || postgres.IsURL(path) {
		return nil
	}
	write := !readCommands[cmd.CommandPath()]
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !write {
			return memory.Errorf(memory.ENOTFOUND, "no database at %s (check --db; commands that write create it)", path)
		}
		return nil
	case err != nil:
		return usagef("--db %s: %v", path, pathErr(err))
	case fi.IsDir():
		return usagef("--db %s is a directory, not a database file", path)
	}
	if fi.Size() > 0 {
		f, err := os.Open(path)
		if err != nil {
			return usagef("--db %s: %v", path, pathErr(err))
		}
		head := make([]byte, len(sqliteHeader))
		_, err = io.ReadFull(f, head)
		f.Close()
		if err != nil || !bytes.Equal(head, sqliteHeader) {
			return usagef("--db %s is not a SQLite database", path)
		}
	}
	if write && !writable(path) {
		return usagef("--db %s is read-only: this command writes to it (make it writable, or copy it)", path)
	}
	warnExposed(cmd.ErrOrStderr(), path, fi)
	return nil
}

// exposedOnce makes warnExposed speak once per process.
var exposedOnce sync.Once

// warnExposed warns once, on stderr (never on a --json stdout), when the
// database at path (fi) can be read by other users than its owner — a
// file made before mnemo created its files owner-only, or copied with
// another umask — and says the chmod that fixes it. A memory bank is as
// private as a mailbox: mnemo itself creates the folder 0700 and every
// file 0600 (store/sqlite.Open), as ssh and gpg do.
func warnExposed(w io.Writer, path string, fi fs.FileInfo) {
	if fi.Mode().Perm()&0o077 == 0 {
		return
	}
	exposedOnce.Do(func() {
		fix := "chmod 600 " + shellArg(path)
		if di, err := os.Stat(filepath.Dir(path)); err == nil && di.Mode().Perm()&0o077 != 0 {
			fix += " && chmod 700 " + shellArg(filepath.Dir(path))
		}
		fmt.Fprintf(w, "mnemo: warning: %s can be read by other users (mode %04o): its memories are not private; run: %s\n", path, fi.Mode().Perm(), fix)
	})
}

// shellArg quotes s for a POSIX shell unless it needs none.
func shellArg(s string) string {
	for _, r := range s {
		if !(r == '/' || r == '.' || r == '_' || r == '-' || r == '+' || r == ':' || r == '@' || r == ',' || r == '=' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// writable reports whether this process may write the file at path: it
// opens it for writing, which writes nothing (a mode bit does not stop
// root; the immutable attribute and a read-only mount do).
func writable(path string) bool {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// pathErr returns the cause of a path error without the "op path:"
// prefix the caller's message already names.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// createPrivateFile creates (or truncates) the file at path for writing,
// owner-only (0600) when it is new: whatever mnemo writes may quote what
// it remembers.
func createPrivateFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
}
