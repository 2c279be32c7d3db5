// Package sqlite is mnemo's embedded default store: one SQLite file in WAL
// mode with FTS5 full text over facts and observations, and an in-process
// search index per bank (int8 vectors: an exact SIMD scan, or an HNSW graph
// from ANNThreshold vectors; BM25 over an inverted index) kept in sync with
// the file, which stays the source of truth: the search mirror of
// store/sqlite/internal/mirror, which each Store owns and its Close
// releases. See docs/scale.md.
//
// Several processes may open the same file: writes are serialised by
// SQLite's write lock (BEGIN IMMEDIATE plus a busy timeout) and each bank's
// vector index checks the bank's change counter before every search, so no
// process answers from a stale index.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
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
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DefaultBusyTimeout is how long a statement waits for another
// connection's (or process's) lock before failing.
const DefaultBusyTimeout = 10 * time.Second

// DefaultWriterIdle is how long the writer connection must go without a
// write before its page cache is released (Store.WriterIdle).
const DefaultWriterIdle = 2 * time.Second

// writerCacheKiB is the writer connection's page cache: the graph
// indexes of a large bank take random inserts, and a bulk import runs
// faster with them cached. Under modernc's allocator each 4 KiB page
// takes an 8 KiB block, so a full cache holds twice this in memory until
// Store.WriterIdle releases it.
const writerCacheKiB = 64 << 10

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

	// mirror is the banks' in-process search mirror; Close releases it.
	mirror *mirror.Mirror

	// mu guards closing, which Close closes to stop the release of the
	// writer's cache, which wg counts.
	mu      sync.Mutex
	closing chan struct{}
	wg      sync.WaitGroup

	factsOnce sync.Once
	factsStmt *sql.Stmt
	factsErr  error
}

// Open opens (creating if needed) the SQLite database at path, applies
// pending migrations and returns the store. The special path ":memory:" is
// not supported: the store needs a file so its two pools share data.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" || path == ":memory:" {
		return nil, memory.Errorf(memory.EINVALID, "sqlite: a database file path is required")
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create database directory: %w", err)
		}
	}
	// The writer gets a 64 MiB page cache (writerCacheKiB); readers, which
	// the in-process index spares most page reads, readerCacheKiB each.
	dsn := func(txlock string, cacheKiB int) string {
		q := url.Values{}
		q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", DefaultBusyTimeout.Milliseconds()))
		q.Add("_pragma", "foreign_keys(1)")
		q.Add("_pragma", "secure_delete(1)") // forgotten text is zeroed: forget.go
		q.Add("_pragma", "synchronous(NORMAL)")
		// Statement and savepoint journals in memory: on disk they cost a
		// write call per page a multi-row statement touches (measured: 40k
		// writes for 2,000 facts).
		q.Add("_pragma", "temp_store(MEMORY)")
		// Checkpoint every 40 MiB of WAL rather than 4: pages rewritten by
		// consecutive commits reach the database file once.
		q.Add("_pragma", "wal_autocheckpoint(10000)")
		q.Add("_pragma", fmt.Sprintf("cache_size(-%d)", cacheKiB))
		q.Set("_txlock", txlock)
		return "file:" + uriPath(path) + "?" + q.Encode()
	}
	wdb, err := sql.Open("sqlite", dsn("immediate", writerCacheKiB))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	wdb.SetMaxOpenConns(1)
	wdb.SetConnMaxIdleTime(0)
	s := &Store{path: path, wdb: wdb, Now: time.Now, closing: make(chan struct{}),
		ANNThreshold: DefaultANNThreshold, IndexWorkers: runtime.GOMAXPROCS(0), WriterIdle: DefaultWriterIdle}
	// WAL is a property of the file; set it through the writer. (The page
	// size stays SQLite's 4 KiB: 16 KiB pages were measured 10% slower on
	// ingest, as random index inserts dirty whole pages.)
	if _, err := wdb.ExecContext(ctx, "PRAGMA journal_mode=WAL"); err != nil {
		wdb.Close()
		return nil, fmt.Errorf("open %s: enable WAL: %w", path, err)
	}
	if err := s.migrate(ctx); err != nil {
		wdb.Close()
		return nil, err
	}
	rdb, err := sql.Open("sqlite", dsn("deferred", readerCacheKiB))
	if err != nil {
		wdb.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	rdb.SetMaxOpenConns(8)
	rdb.SetMaxIdleConns(8)
	s.rdb = rdb
	s.mirror = mirror.New(source{rdb}, s.settings)
	return s, nil
}

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
	var err error
	if s.factsStmt != nil {
		err = errors.Join(err, s.factsStmt.Close())
	}
	return errors.Join(err, s.rdb.Close(), s.wdb.Close())
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
	if _, err := s.wdb.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("create migrations table: %w", err)
	}
	for _, e := range names {
		if err := s.applyMigration(ctx, e.Name()); err != nil {
			return fmt.Errorf("migration %s: %w", e.Name(), err)
		}
	}
	return nil
}

func (s *Store) applyMigration(ctx context.Context, name string) error {
	tx, err := s.wdb.BeginTx(ctx, nil)
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
	_, err = s.wdb.ExecContext(ctx, `INSERT INTO banks (id, name, settings, embedder, dimension, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		b.ID, b.Name, settings, b.Embedder, b.Dimension, b.CreatedAt.UnixMicro())
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
		if _, err := tx.ExecContext(ctx, `DELETE FROM facts_fts WHERE rowid IN (SELECT pk FROM facts WHERE bank_id = ?)`, id); err != nil {
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

// write runs fn in one write transaction (BEGIN IMMEDIATE) and commits.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	s.wrote()
	return nil
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
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM banks WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return memory.UnknownBank(id)
	}
	return err
}

func isConstraint(err error) bool {
	return err != nil && strings.Contains(err.Error(), "constraint failed")
}
