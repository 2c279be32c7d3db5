package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// lockFile takes path's write lock from a connection of its own and
// returns the function that releases it.
func lockFile(t *testing.T, path string) func() {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	released := false
	release := func() {
		if !released {
			released = true
			db.Exec("ROLLBACK")
			db.Close()
		}
	}
	t.Cleanup(release)
	return release
}

// A write waits for a lock another connection holds and lands once it is
// released; a lock held past LockWait is EUNAVAILABLE with a message that
// says what to do, never an internal error.
func TestStore_WriteLockWait(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.LockWait = 300 * time.Millisecond
	release := lockFile(t, path)
	err = s.CreateBank(ctx, &memory.Bank{ID: "b"})
	if memory.ErrorCode(err) != memory.EUNAVAILABLE || !strings.Contains(err.Error(), "try again") {
		t.Fatalf("CreateBank under a lock held past LockWait: %v, want EUNAVAILABLE saying what to do", err)
	}
	s.LockWait = DefaultLockWait
	go func() {
		time.Sleep(writerBusyTimeout * 3)
		release()
	}()
	if err := s.CreateBank(ctx, &memory.Bank{ID: "b"}); err != nil {
		t.Fatalf("CreateBank once the lock is released: %v", err)
	}
	// A cancelled context ends the wait.
	lockFile(t, path)
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if err := s.CreateBank(cctx, &memory.Bank{ID: "c"}); err == nil {
		t.Fatalf("CreateBank with a cancelled context: %v", err)
	}
}

// Every write leaves its mark, which landed finds; a failed COMMIT is
// reported by what landed says (Store.write).
func TestStore_WriteMarks(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := 0; i < 300; i++ {
		if err := s.SetBankSettings(ctx, "none", memory.BankSettings{}); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("SetBankSettings(unknown): %v", err)
		}
		if err := s.CreateBank(ctx, &memory.Bank{ID: "b" + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + time.Now().Format("150405.000000000")}); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	var token string
	if err := s.rdb.QueryRowContext(ctx, `SELECT count(*), max(token) FROM write_marks`).Scan(&n, &token); err != nil {
		t.Fatal(err)
	}
	if n == 0 || n > keepWriteMarks+64 {
		t.Errorf("%d write marks kept after 300 writes, want 1 to %d", n, keepWriteMarks+64)
	}
	if ok, err := s.landed(token); !ok || err != nil {
		t.Errorf("landed(a committed write's mark) = %v, %v", ok, err)
	}
	if ok, err := s.landed(newWriteMark()); ok || err != nil {
		t.Errorf("landed(a mark never written) = %v, %v", ok, err)
	}
}

// A COMMIT can report an error and still land: SQLite may have written
// the commit's WAL frames before a later step of the commit failed (the
// full-disk trials of issue 13 saw "commit: disk I/O error" on items the
// file then held). write must report what the file holds: success when
// the transaction landed, the error when it did not.
func TestStore_FailedCommitReportsWhatLanded(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ioErr := errors.New("disk I/O error (778)")
	// Landed, then failed.
	s.commit = func(tx *sql.Tx) error {
		if err := tx.Commit(); err != nil {
			return err
		}
		return ioErr
	}
	if err := s.CreateBank(ctx, &memory.Bank{ID: "landed"}); err != nil {
		t.Errorf("CreateBank whose COMMIT failed after landing: %v, want success (the bank is in the file)", err)
	}
	if _, err := s.Bank(ctx, "landed"); err != nil {
		t.Errorf("the landed bank: %v", err)
	}
	// Failed without landing.
	s.commit = func(tx *sql.Tx) error {
		tx.Rollback()
		return ioErr
	}
	if err := s.CreateBank(ctx, &memory.Bank{ID: "lost"}); err == nil {
		t.Error("CreateBank whose COMMIT failed without landing: no error")
	}
	if _, err := s.Bank(ctx, "lost"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("the bank that did not land: %v, want ENOTFOUND", err)
	}
}
