// Package sqlite is mnemo's embedded default store: one SQLite file in WAL
// mode (FTS5 full text over observations), and an in-process
// search index per bank (int8 vectors: an exact SIMD scan, or an HNSW graph
// from ANNThreshold vectors; BM25 over an inverted index) kept in sync with
// the file, which stays the source of truth: the search mirror of
// store/sqlite/internal/mirror, which each Store owns and its Close
// releases. See docs/scale.md.
//
// Several processes may open the same file: writes are serialised by
// SQLite's write lock (BEGIN IMMEDIATE, retried with backoff for up to
// LockWait, then EUNAVAILABLE) and each bank's
// vector index checks the bank's change counter before every search, so no
// process answers from a stale index.
package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	mrand "math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/sqlite/internal/mirror"
	sqlite "modernc.org/sqlite" // registers the "sqlite" driver
)

// DefaultBusyTimeout is how long a reader's statement waits for another
// connection's (or process's) lock before failing.
const DefaultBusyTimeout = 10 * time.Second

// DefaultLockWait is how long a write waits for the file's write lock
// while other connections or processes hold it (an MCP server, a CLI, a
// hook writing the same file is normal use) before it fails with
// EUNAVAILABLE (Store.LockWait). The writer's own busy timeout is short
// (writerBusyTimeout): Store.write retries BEGIN IMMEDIATE with backoff,
// so a wait can be cancelled through its context.
const DefaultLockWait = 2 * time.Minute

// writerBusyTimeout is the writer connection's SQLite busy timeout: one
// attempt of Store.begin.
const writerBusyTimeout = 200 * time.Millisecond

// keepWriteMarks is how many of the newest write marks (016_write_marks)
// Store.write keeps.
const keepWriteMarks = 256

// DefaultWriterIdle is how long the writer connection must go without a
// write before its page cache is released (Store.WriterIdle).
const DefaultWriterIdle = 2 * time.Second

// writerCacheKiB is the writer connection's page cache: the graph
// indexes of a large bank take random inserts, and a bulk import runs
// faster with them cached. Under modernc's allocator each 4 KiB page
// takes an 8 KiB block, so a full cache holds twice this in memory until
// Store.WriterIdle releases it.
const writerCacheKiB = 64 << 10

// walCheckpointPages is the WAL's length, in pages, at which a commit
// checkpoints it (wal_autocheckpoint): 40 MiB rather than SQLite's 4, so
// that pages rewritten by consecutive commits reach the database file
// once. A document written in segments raises it while its segments
// are written (segmentCheckpointPages, segment.go).
const walCheckpointPages = 10000

// readerCacheKiB is each reader connection's page cache (up to 8 of
// them; twice this in memory each, as for the writer). Readers look up
// rows by key, and the OS's page cache serves a miss for a system call.
const readerCacheKiB = 1 << 10

//go:embed migrations/*.sql
var migrationFS embed.FS

var _ memory.Store = (*Store)(nil)

// Store is a memory.Store on one SQLite file. Create it with Open; it is
// safe for concurrent use.
type Store struct {
	path string
	// wdb has exactly one connection: every write goes through it, so
	// in-process writers queue instead of fighting for the file lock.
	wdb *sql.DB
	// rdb serves reads concurrently (WAL readers never block the writer).
	rdb *sql.DB

	// Now is the clock for created/updated times the store sets itself.
	Now func() time.Time

	// LockWait bounds how long a write waits for another connection's
	// or process's write lock (DefaultLockWait) before EUNAVAILABLE.
	LockWait time.Duration

	// commit ends a write transaction; it is (*sql.Tx).Commit, and a test
	// replaces it to make a COMMIT fail after, or instead of, landing.
	commit func(*sql.Tx) error
	// readOnly says why the file was opened read-only (Open's fallback
	// for a read-only file or directory, or a full disk), or is empty.
	// Every write then fails with EINVALID.
	readOnly string

	// ANNThreshold is the vectors a bank must hold before its search
	// index builds an HNSW graph (DefaultANNThreshold; 0 or less: never).
	// FloatVectors keeps the float32 vectors used to rescore candidates in
	// memory instead of a spill file (four times the memory of the int8
	// copies searched). IndexWorkers is how many goroutines link a graph
	// (GOMAXPROCS). EfSearch is the graph search's candidate list
	// (hnsw.DefaultEfSearch; a search for k uses at least k + a margin).
	// Set them before the first search.
	ANNThreshold int
	FloatVectors bool
	IndexWorkers int
	EfSearch     int

	// WriterIdle is how long the writer connection must go without a
	// write before its page cache is released (PRAGMA shrink_memory):
	// a bulk import fills it (up to 128 MiB of memory), and an idle
	// process should not keep it. DefaultWriterIdle; 0 or less: never.
	// The next write reads its pages again from the OS's cache.
	WriterIdle time.Duration

	// idleMu guards idleTimer, the pending release of the writer's
	// cache; lastWrite is the time of the last write (UnixNano).
	idleMu    sync.Mutex
	idleTimer *time.Timer
	lastWrite atomic.Int64

	// checkpointing is set while a passive checkpoint runs behind a
	// bulk write (checkpointBehind).
	checkpointing atomic.Bool

	// mirror is the banks' in-process search mirror; Close releases it.
	mirror *mirror.Mirror
	// facts keeps facts Facts has read while the database says they
	// have not changed (factcache.go).
	facts *factCache

	// mu guards closing, which Close closes to stop the release of the
	// writer's cache, which wg counts.
	mu      sync.Mutex
	closing chan struct{}
	wg      sync.WaitGroup

	// stmts holds the prepared statements of the hot reads on rdb
	// (stmts.go); Close closes them.
	stmts *stmtCache
	// bulk holds the writer's multi-row statements across transactions
	// (preparedBulk); Close closes them.
	bulk *stmtCache
}

// Open opens (creating if needed) the SQLite database at path, applies
// pending migrations and returns the store. The special path ":memory:" is
// not supported: the store needs a file so its two pools share data.
//
// A database that exists but cannot be opened for writing — a read-only
// file or directory, or a full disk on which the WAL cannot grow or its
// index cannot be made — is opened read-only instead, when SQLite can
// read it so: reads work, and every write fails with EINVALID saying
// why. Opening never writes when nothing needs writing (migrations are
// checked with a read first).
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" || path == ":memory:" {
		return nil, memory.Errorf(memory.EINVALID, "sqlite: a database file path is required")
	}
	s, err := openWritable(ctx, path)
	if err == nil {
		return s, nil
	}
	if _, serr := os.Stat(path); serr != nil {
		return nil, err
	}
	if rs, rerr := openReadOnly(ctx, path, err); rerr == nil {
		return rs, nil
	}
	return nil, err
}

// createPrivate creates the database file at path owner-only (0600)
// unless it exists. SQLite gives the -wal and -shm files it makes the
// database file's mode, so they are owner-only too; an empty file is an
// empty database. An existing file keeps its mode (the CLI warns when
// others may read it).
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return f.Close()
}

func openWritable(ctx context.Context, path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if _, err := os.Stat(dir); err != nil {
			// Owner-only, as ssh and gpg keep theirs: a bank is private.
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, fmt.Errorf("create database directory: %w", err)
			}
		}
	}
	if err := createPrivate(path); err != nil {
		return nil, err
	}
	// The writer gets a 64 MiB page cache (writerCacheKiB); readers, which
	// the in-process index spares most page reads, readerCacheKiB each.
	dsn := func(txlock string, cacheKiB int, busy time.Duration) string {
		q := url.Values{}
		q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
		q.Add("_pragma", "foreign_keys(1)")
		q.Add("_pragma", "secure_delete(1)") // forgotten text is zeroed: forget.go
		q.Add("_pragma", "synchronous(NORMAL)")
		// Statement and savepoint journals in memory: on disk they cost a
		// write call per page a multi-row statement touches (measured: 40k
		// writes for 2,000 facts).
		q.Add("_pragma", "temp_store(MEMORY)")
		q.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", walCheckpointPages))
		q.Add("_pragma", fmt.Sprintf("cache_size(-%d)", cacheKiB))
		q.Set("_txlock", txlock)
		return "file:" + uriPath(path) + "?" + q.Encode()
	}
	wdb, err := sql.Open("sqlite", dsn("immediate", writerCacheKiB, writerBusyTimeout))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	wdb.SetMaxOpenConns(1)
	wdb.SetConnMaxIdleTime(0)
	s := newStore(path, wdb)
	// WAL is a property of the file; set it through the writer, unless the
	// file is in WAL mode already (setting it then would take a lock). (The
	// page size stays SQLite's 4 KiB: 16 KiB pages were measured 10% slower
	// on ingest, as random index inserts dirty whole pages.)
	var mode string
	if err := wdb.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		wdb.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if !strings.EqualFold(mode, "wal") {
		if err := s.retryBusy(ctx, func() error { _, err := wdb.ExecContext(ctx, "PRAGMA journal_mode=WAL"); return err }); err != nil {
			wdb.Close()
			return nil, fmt.Errorf("open %s: enable WAL: %w", path, err)
		}
	}
	if err := s.migrate(ctx); err != nil {
		wdb.Close()
		return nil, err
	}
	rdb, err := sql.Open("sqlite", dsn("deferred", readerCacheKiB, DefaultBusyTimeout))
	if err != nil {
		wdb.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	rdb.SetMaxOpenConns(8)
	rdb.SetMaxIdleConns(8)
	s.rdb = rdb
	s.stmts = newStmtCache(rdb)
	s.mirror = mirror.New(source{s.stmts}, s.settings)
	s.facts = newFactCache(DefaultFactCacheBytes)
	return s, nil
}

func newStore(path string, wdb *sql.DB) *Store {
	return &Store{path: path, wdb: wdb, bulk: newStmtCache(wdb), Now: time.Now, LockWait: DefaultLockWait, closing: make(chan struct{}),
		ANNThreshold: DefaultANNThreshold, IndexWorkers: runtime.GOMAXPROCS(0), WriterIdle: DefaultWriterIdle}
}

// openReadOnly opens the existing database at path for reading only,
// after openWritable failed with why. It tries, in order: SQLite's
// read-only mode (the WAL index can be shared); read-only with the WAL
// index in this process's memory (exclusive locking: nothing need be
// created or grown on disk, but other processes wait until this one
// closes); and, when there is no WAL file, the file as immutable (a
// read-only directory). The database must need no migration.
func openReadOnly(ctx context.Context, path string, why error) (*Store, error) {
	_, werr := os.Stat(path + "-wal")
	tries := []struct {
		pragmas []string
		mode    string
		conns   int
		ok      bool
	}{
		{nil, "ro", 8, true},
		// SQLite refuses exclusive locking in its read-only mode;
		// query_only keeps this connection from writing.
		{[]string{"locking_mode(EXCLUSIVE)"}, "", 1, true},
		{nil, "ro", 8, errors.Is(werr, os.ErrNotExist)}, // immutable
	}
	var err error
	for i, t := range tries {
		if !t.ok {
			continue
		}
		q := url.Values{}
		q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", DefaultBusyTimeout.Milliseconds()))
		q.Add("_pragma", "temp_store(MEMORY)")
		q.Add("_pragma", "query_only(1)")
		for _, p := range t.pragmas {
			q.Add("_pragma", p)
		}
		if t.mode != "" {
			q.Set("mode", t.mode)
		}
		if i == 2 {
			q.Set("immutable", "1")
		}
		var db *sql.DB
		db, err = sql.Open("sqlite", "file:"+uriPath(path)+"?"+q.Encode())
		if err != nil {
			continue
		}
		db.SetMaxOpenConns(t.conns)
		db.SetMaxIdleConns(t.conns)
		db.SetConnMaxIdleTime(0)
		s := newStore(path, db)
		s.rdb = db
		s.readOnly = why.Error()
		if err = s.migrate(ctx); err != nil {
			db.Close()
			continue
		}
		s.stmts = newStmtCache(db)
		s.mirror = mirror.New(source{s.stmts}, s.settings)
		s.facts = newFactCache(DefaultFactCacheBytes)
		return s, nil
	}
	return nil, err
}

// ReadOnly reports whether the store was opened read-only (see Open),
// and why.
func (s *Store) ReadOnly() (bool, string) { return s.readOnly != "", s.readOnly }

// uriPath escapes path for a file: URI (the DSN is one, and SQLite reads
// it as one): '%', '?' and '#' would otherwise start an escape, the query
// or the fragment, and "we?ird.db" would open "we". A path that looks like
// an authority ("//host/…") gets an empty one.
func uriPath(path string) string {
	path = strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23").Replace(path)
	if strings.HasPrefix(path, "//") {
		path = "//" + path
	}
	return path
}

// Close stops the index builders, releases the search mirror's memory
// and spill files, and closes the database.
func (s *Store) Close() error {
	s.mu.Lock()
	select {
	case <-s.closing:
	default:
		close(s.closing)
	}
	s.mu.Unlock()
	s.idleMu.Lock()
	if s.idleTimer != nil {
		s.idleTimer.Stop()
	}
	s.idleMu.Unlock()
	s.wg.Wait()
	s.mirror.Close()
	return errors.Join(s.stmts.close(), s.bulk.close(), s.rdb.Close(), s.wdb.Close())
}

// Path returns the database file path.
func (s *Store) Path() string { return s.path }

// migrate applies every embedded migration not yet recorded, each in its
// own transaction together with its record.
func (s *Store) migrate(ctx context.Context) error {
	names, err := migrationFS.ReadDir("migrations")
	if err != nil {
		return err
	}
	sort.Slice(names, func(i, j int) bool { return names[i].Name() < names[j].Name() })
	// Most opens find every migration applied: check that with a read, so
	// opening a database never waits for, or holds, the write lock.
	applied := map[string]bool{}
	if rows, err := s.wdb.QueryContext(ctx, `SELECT name FROM migrations`); err == nil {
		for rows.Next() {
			var n string
			if rows.Scan(&n) == nil {
				applied[n] = true
			}
		}
		rows.Close()
	}
	pending := false
	for _, e := range names {
		pending = pending || !applied[e.Name()]
	}
	if !pending {
		return nil
	}
	if s.readOnly != "" {
		return memory.Errorf(memory.EINVALID, "database %s needs a schema upgrade but cannot be written (%s)", s.path, s.readOnly)
	}
	if err := s.retryBusy(ctx, func() error {
		_, err := s.wdb.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)`)
		return err
	}); err != nil {
		return fmt.Errorf("create migrations table: %w", err)
	}
	for _, e := range names {
		if err := s.applyMigration(ctx, e.Name()); err != nil {
			return storeError(fmt.Errorf("migration %s: %w", e.Name(), err))
		}
	}
	return nil
}

func (s *Store) applyMigration(ctx context.Context, name string) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM migrations WHERE name = ?`, name).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	body, err := migrationFS.ReadFile("migrations/" + name)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO migrations (name, applied_at) VALUES (?, ?)`, name, s.Now().UnixMicro()); err != nil {
		return err
	}
	return tx.Commit()
}

// CreateBank implements memory.Store.
func (s *Store) CreateBank(ctx context.Context, b *memory.Bank) error {
	if err := b.Prepare(s.Now); err != nil {
		return err
	}
	settings, err := marshalJSON(b.Settings)
	if err != nil {
		return err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO banks (id, name, settings, embedder, dimension, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			b.ID, b.Name, settings, b.Embedder, b.Dimension, b.CreatedAt.UnixMicro())
		return err
	})
	if err != nil {
		if isConstraint(err) {
			return memory.Errorf(memory.ECONFLICT, "bank %q already exists", b.ID)
		}
		return fmt.Errorf("create bank %s: %w", b.ID, err)
	}
	return nil
}

// Bank implements memory.Store.
func (s *Store) Bank(ctx context.Context, id string) (*memory.Bank, error) {
	row := s.rdb.QueryRowContext(ctx, `SELECT id, name, settings, embedder, dimension, created_at FROM banks WHERE id = ?`, id)
	b, err := scanBank(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, memory.UnknownBank(id)
	}
	return b, err
}

// Banks implements memory.Store.
func (s *Store) Banks(ctx context.Context) ([]*memory.Bank, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, name, settings, embedder, dimension, created_at FROM banks ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return dbrows.Collect(rows, scanBank)
}

func scanBank(r interface{ Scan(...any) error }) (*memory.Bank, error) {
	var b memory.Bank
	var settings string
	var created int64
	if err := r.Scan(&b.ID, &b.Name, &settings, &b.Embedder, &b.Dimension, &created); err != nil {
		return nil, err
	}
	if err := unmarshalJSON(settings, &b.Settings); err != nil {
		return nil, fmt.Errorf("bank %s settings: %w", b.ID, err)
	}
	b.CreatedAt = fromMicro(created)
	return &b, nil
}

// DeleteBank implements memory.Store.
func (s *Store) DeleteBank(ctx context.Context, id string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM observations_fts WHERE rowid IN (SELECT pk FROM observations WHERE bank_id = ?)`, id); err != nil {
			return err
		}
		// Children first: the cascades would do it too, but explicit deletes
		// by bank_id use the bank-first indexes instead of per-row lookups.
		for _, t := range []string{"links", "entity_refs", "entity_aliases", "cooccurrences", "relations", "facts", "chunks", "documents", "entities", "observations", "dreams", "blocks", "watermarks", "runs"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE bank_id = ?`, id); err != nil {
				return fmt.Errorf("delete %s: %w", t, err)
			}
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM banks WHERE id = ?`, id)
		return err
	})
	if err != nil {
		return err
	}
	s.mirror.Drop(id)
	s.facts.drop(id)
	return nil
}

// SetBankEmbedder implements memory.Store.
func (s *Store) SetBankEmbedder(ctx context.Context, bankID, name string, dim int) error {
	if err := memory.ValidateEmbedder(name, dim); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		var cur string
		var curDim int
		err := tx.QueryRowContext(ctx, `SELECT embedder, dimension FROM banks WHERE id = ?`, bankID).Scan(&cur, &curDim)
		if errors.Is(err, sql.ErrNoRows) {
			return memory.UnknownBank(bankID)
		}
		if err != nil {
			return err
		}
		if (cur != "" && cur != name) || (curDim != 0 && curDim != dim) {
			return memory.EmbedderConflict(bankID, cur, curDim, name, dim)
		}
		_, err = tx.ExecContext(ctx, `UPDATE banks SET embedder = ?, dimension = ? WHERE id = ?`, name, dim, bankID)
		return err
	})
}

// write runs fn in one write transaction (BEGIN IMMEDIATE, waiting for
// the write lock up to LockWait: begin) and commits.
//
// Every transaction leaves a mark (016_write_marks). A COMMIT that
// reports an error may still have landed (SQLite may have written the
// WAL frames of the commit before the error); write then reads its mark
// back and reports the transaction as done if the mark is there, so what
// mnemo reports is what the file holds.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if s.readOnly != "" {
		return memory.Errorf(memory.EINVALID, "database %s is open read-only (%s): nothing can be written", s.path, s.readOnly)
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	token := newWriteMark()
	if err := mark(ctx, tx, token); err != nil {
		tx.Rollback()
		return fmt.Errorf("write mark: %w", err)
	}
	commit := s.commit
	if commit == nil {
		commit = (*sql.Tx).Commit
	}
	if err := commit(tx); err != nil {
		if landed, cerr := s.landed(token); cerr != nil {
			return memory.Errorf(memory.EUNAVAILABLE, "commit: %v; whether the write landed could not be checked (%v): check with a read, or write it again (retaining the same item again is a no-op when it did)", err, cerr)
		} else if landed {
			s.wrote()
			return nil
		}
		return fmt.Errorf("commit: %w", storeError(err))
	}
	s.wrote()
	return nil
}

// newWriteMark returns a random token for a write's mark.
func newWriteMark() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// mark records token in tx and keeps only the newest keepWriteMarks.
func mark(ctx context.Context, tx *sql.Tx, token string) error {
	var id int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO write_marks (token) VALUES (?) RETURNING id`, token).Scan(&id); err != nil {
		return err
	}
	if id%64 == 0 {
		_, err := tx.ExecContext(ctx, `DELETE FROM write_marks WHERE id <= ?`, id-keepWriteMarks)
		return err
	}
	return nil
}

// landed reports whether the write that left token is in the file, read
// by a new connection of its own (the writer's may be in any state after
// a failed COMMIT).
func (s *Store) landed(token string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultBusyTimeout)
	defer cancel()
	var n int
	err := s.rdb.QueryRowContext(ctx, `SELECT count(*) FROM write_marks WHERE token = ?`, token).Scan(&n)
	return n > 0, err
}

// begin starts a write transaction, retrying BEGIN IMMEDIATE with backoff
// while another connection or process holds the write lock (retryBusy).
func (s *Store) begin(ctx context.Context) (*sql.Tx, error) {
	var tx *sql.Tx
	err := s.retryBusy(ctx, func() error {
		var err error
		tx, err = s.wdb.BeginTx(ctx, nil)
		return err
	})
	if err != nil && memory.ErrorCode(err) == memory.EINTERNAL && ctx.Err() == nil {
		return nil, fmt.Errorf("begin: %w", storeError(err))
	}
	return tx, err
}

// retryBusy runs fn until it returns anything but SQLITE_BUSY (another
// connection or process holds the lock it needs), waiting with jittered
// exponential backoff between tries, for up to LockWait: then it fails
// with EUNAVAILABLE. ctx ends the wait.
func (s *Store) retryBusy(ctx context.Context, fn func() error) error {
	wait := s.LockWait
	if wait <= 0 {
		wait = DefaultLockWait
	}
	deadline := time.Now().Add(wait)
	backoff := 5 * time.Millisecond
	for {
		err := fn()
		if err == nil || !isBusy(err) {
			return err
		}
		if !time.Now().Before(deadline) {
			return memory.Errorf(memory.EUNAVAILABLE, "database %s is busy: another process has held its write lock for over %v (%v); try again when that process (an import, mnemo serve or mnemo mcp) is done", s.path, wait.Round(time.Second), err)
		}
		// Jittered, so that waiting writers do not retry in step.
		d := min(backoff+time.Duration(mrand.Int64N(int64(backoff))), time.Until(deadline))
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		backoff = min(2*backoff, 250*time.Millisecond)
	}
}

// sqliteCode returns err's primary SQLite result code, or 0.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// isBusy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED: a
// lock another connection holds.
func isBusy(err error) bool {
	c := sqliteCode(err)
	return c == 5 || c == 6
}

// storeError gives a full disk and a read-only file their error codes:
// EUNAVAILABLE (free space, then try again) and EINVALID.
func storeError(err error) error {
	switch sqliteCode(err) {
	case 13: // SQLITE_FULL
		return memory.Errorf(memory.EUNAVAILABLE, "the disk is full (%v): free space and try again", err)
	case 8: // SQLITE_READONLY
		return memory.Errorf(memory.EINVALID, "the database cannot be written (%v)", err)
	case 10: // SQLITE_IOERR: a write refused by the system (a full disk, a file size limit) or a failing disk
		return memory.Errorf(memory.EUNAVAILABLE, "the database file could not be written (%v): is the disk full? free space and try again", err)
	}
	return err
}

// wrote records a write and schedules the release of the writer's page
// cache once it has been idle for WriterIdle.
func (s *Store) wrote() {
	if s.WriterIdle <= 0 {
		return
	}
	s.lastWrite.Store(time.Now().UnixNano())
	s.idleMu.Lock()
	defer s.idleMu.Unlock()
	if s.idleTimer == nil {
		s.idleTimer = time.AfterFunc(s.WriterIdle, s.releaseIdle)
	}
}

// releaseIdle releases the writer's page cache if no write came for
// WriterIdle, or waits again for the rest of that time.
func (s *Store) releaseIdle() {
	s.idleMu.Lock()
	if idle := time.Since(time.Unix(0, s.lastWrite.Load())); idle < s.WriterIdle {
		s.idleTimer.Reset(s.WriterIdle - idle)
		s.idleMu.Unlock()
		return
	}
	s.idleTimer = nil
	s.idleMu.Unlock()
	s.mu.Lock()
	select {
	case <-s.closing:
		s.mu.Unlock()
		return
	default:
	}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()
	// Every page is clean after a commit, so this frees the whole cache.
	// A failure costs memory, not correctness.
	_, _ = s.wdb.Exec(`PRAGMA shrink_memory`)
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// requireBank returns ENOTFOUND unless the bank exists.
func requireBank(ctx context.Context, q queryer, id string) error {
	return bankExists(q.QueryRowContext(ctx, `SELECT 1 FROM banks WHERE id = ?`, id), id)
}

// bankExists reads row, the answer to "SELECT 1 FROM banks WHERE id =
// ?" for id: ENOTFOUND when there is none.
func bankExists(row rowScanner, id string) error {
	var one int
	err := row.Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return memory.UnknownBank(id)
	}
	return err
}

func isConstraint(err error) bool {
	return err != nil && strings.Contains(err.Error(), "constraint failed")
}
