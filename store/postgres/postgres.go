// Package postgres is mnemo's scale-out store: PostgreSQL with pgvector
// for vectors and tsvector full text for keywords, behind the same
// memory.Store contract (and store/storetest suite) as store/sqlite.
//
// Every table is keyed by bank_id first, so many processes can share one
// database and a distributed PostgreSQL (Citus) can shard it by bank
// (docs/postgres.md). What lives here and what does not:
//
//   - Vectors: facts.embedding is an untyped vector column (banks differ in
//     dimension). A bank is searched by an exact scan until it holds
//     HNSWMinFacts facts; then the store builds, in the background and
//     without blocking writers (CREATE INDEX CONCURRENTLY), an HNSW index
//     (cosine) for that bank alone: a partial index over the cast
//     embedding::vector(dim) WHERE bank_id = '…' (hnsw.go). The first
//     search past the threshold starts the build, so bulk loads are not
//     slowed by index inserts.
//   - Keywords: a generated tsvector (English configuration, CJK runs
//     split into character pairs as package lex does) with a GIN
//     index on (bank_id, tsv), ranked by Okapi BM25 computed in SQL from
//     the bank's own statistics (search.go).
//   - Concurrency: writes to one bank are serialised by a transaction-level
//     advisory lock on the bank (Seq order, the bank's counters); every
//     counter is an atomic increment in SQL, so nothing is lost between
//     processes. Reads never lock.
//
// It never imports another store; only the façade and cmd/mnemo pick it.
package postgres

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
	"github.com/mnemo-ai/mnemo/memory"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

var _ memory.Store = (*Store)(nil)

// DefaultHNSWMinFacts is the number of facts from which a bank gets its
// own HNSW index. Below it an exact scan is fast enough (about 1 µs a
// fact, measured) and exact, which the conformance suite pins; above it
// the index answers approximately (ef_search DefaultEFSearch, recall@10
// about 0.99 unfiltered); a filter that passes few facts is answered
// exactly from the facts it passes, a broader one by an iterative index
// scan re-ranked exactly (searchHNSW; docs/postgres.md).
const DefaultHNSWMinFacts = 10000

// DefaultEFSearch is hnsw.ef_search for index scans (raised to k when k is
// larger).
const DefaultEFSearch = 200

// DefaultMaxConns bounds the pool's connections.
const DefaultMaxConns = 16

// IsURL reports whether db names a PostgreSQL database (a postgres:// or
// postgresql:// URL) rather than a SQLite file.
func IsURL(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// Store is a memory.Store on a PostgreSQL database. Create it with Open;
// it is safe for concurrent use, and any number of processes may open the
// same database.
type Store struct {
	pool *pgxpool.Pool

	// Now is the clock for times the store sets itself.
	Now func() time.Time
	// HNSWMinFacts is the fact count from which a bank gets an HNSW index;
	// 0 means DefaultHNSWMinFacts, negative never builds one.
	HNSWMinFacts int
	// EFSearch is hnsw.ef_search; 0 means DefaultEFSearch.
	EFSearch int

	ctx    context.Context // background work (index builds)
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	// building holds the banks whose index this process is building;
	// retryAt when a failed build may be tried again.
	building map[string]bool
	retryAt  map[string]time.Time
	// analyze refreshes the planner's statistics after imports
	// (analyze.go).
	analyze analyzer
}

// Open connects to the database at url (postgres://…), applies pending
// migrations and returns the store. The database needs the vector and
// btree_gin extensions, or the right to create them.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, memory.Errorf(memory.EINVALID, "postgres: %v", err)
	}
	// Migrate on a connection of its own: the pool registers pgvector's
	// types on connect, which needs the extension the migrations create.
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig.Copy())
	if err != nil {
		return nil, memory.Errorf(memory.EUNAVAILABLE, "postgres: connect: %v", err)
	}
	err = migrate(ctx, conn)
	conn.Close(context.Background())
	if err != nil {
		return nil, err
	}
	// Plan every query for its own arguments. After five executions of a
	// prepared statement PostgreSQL may switch to a generic plan, made
	// without them; the text search's lexeme arrays run from three to
	// thousands (recall's kind search), and a generic plan fit for the
	// first took a second for the second (LoCoMo: 7 of 760 recalls at
	// 0.5–1.1 s, p99 725 ms). It is SET on each new connection, not sent
	// as a startup parameter, which PgBouncer refuses unless told to
	// ignore it; a plan_cache_mode in the URL wins.
	_, urlMode := cfg.ConnConfig.RuntimeParams["plan_cache_mode"]
	customPlans := !urlMode
	if cfg.MaxConns < DefaultMaxConns && !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = DefaultMaxConns
	}
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		if customPlans {
			if _, err := c.Exec(ctx, `SET plan_cache_mode = force_custom_plan`); err != nil {
				return err
			}
		}
		return pgxvec.RegisterTypes(ctx, c)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, memory.Errorf(memory.EUNAVAILABLE, "postgres: %v", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, memory.Errorf(memory.EUNAVAILABLE, "postgres: %v", err)
	}
	s := &Store{pool: pool, Now: time.Now, building: map[string]bool{}, retryAt: map[string]time.Time{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s, nil
}

// Close stops background index builds and closes the pool.
func (s *Store) Close() error {
	s.cancel()
	s.wg.Wait()
	s.pool.Close()
	return nil
}

// Pool returns the store's connection pool (for tests and tools).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// migrationLock is the advisory lock key that serialises migrations of
// processes opening one database at once.
const migrationLock = 0x6d6e656d6f0001 // "mnemo" 1

// migrate applies every embedded migration not yet recorded, each in its
// own transaction together with its record.
func migrate(ctx context.Context, conn *pgx.Conn) error {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(migrationLock)); err != nil {
		return fmt.Errorf("migrate: lock: %w", err)
	}
	defer conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, int64(migrationLock))
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		body, err := migrationFS.ReadFile("migrations/" + name)
		if err != nil {
			return err
		}
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM schema_migrations WHERE name = $1`, name).Scan(&n); err != nil || n > 0 {
				return err
			}
			if _, err := tx.Exec(ctx, string(body)); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (name) VALUES ($1)`, name)
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
	}
	return nil
}

// bankLock is the advisory lock key of a bank's writes.
func bankLock(bank string) int64 {
	h := fnv.New64a()
	h.Write([]byte("mnemo/bank/"))
	h.Write([]byte(bank))
	return int64(h.Sum64())
}

// lockBank takes the bank's write lock for the rest of tx: writers of one
// bank (in any process) queue here, so Seq and the bank's counters are
// assigned in commit order. Writers of other banks do not wait.
func lockBank(ctx context.Context, tx pgx.Tx, bank string) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, bankLock(bank))
	return err
}

// CreateBank implements memory.Store.
func (s *Store) CreateBank(ctx context.Context, b *memory.Bank) error {
	if err := b.Prepare(s.Now); err != nil {
		return err
	}
	settings, err := json.Marshal(b.Settings)
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO banks (id, name, settings, embedder, dimension, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		b.ID, b.Name, settings, b.Embedder, b.Dimension, ts(b.CreatedAt))
	if isCode(err, "23505") {
		return memory.Errorf(memory.ECONFLICT, "bank %q already exists", b.ID)
	}
	if err != nil {
		return fmt.Errorf("create bank %s: %w", b.ID, err)
	}
	return nil
}

const bankColumns = `id, name, settings, embedder, dimension, created_at`

func scanBank(r dbrows.Scanner) (*memory.Bank, error) {
	var b memory.Bank
	var settings []byte
	var created time.Time
	if err := r.Scan(&b.ID, &b.Name, &settings, &b.Embedder, &b.Dimension, &created); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(settings, &b.Settings); err != nil {
		return nil, fmt.Errorf("bank %s settings: %w", b.ID, err)
	}
	b.CreatedAt = created.UTC()
	return &b, nil
}

// Bank implements memory.Store.
func (s *Store) Bank(ctx context.Context, id string) (*memory.Bank, error) {
	b, err := scanBank(s.pool.QueryRow(ctx, `SELECT `+bankColumns+` FROM banks WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, memory.UnknownBank(id)
	}
	return b, err
}

// Banks implements memory.Store: ordered bytewise by id.
func (s *Store) Banks(ctx context.Context) ([]*memory.Bank, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+bankColumns+` FROM banks ORDER BY id COLLATE "C"`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return dbrows.Collect(rows, scanBank)
}

// bankTables are the tables holding a bank's rows, children first.
var bankTables = []string{"lexemes", "links", "entity_refs", "entity_aliases", "cooccurrences", "relations", "facts", "chunks", "documents",
	"entities", "observations", "dreams", "blocks", "watermarks", "runs", "jobs", "session_messages", "sessions"}

// DeleteBank implements memory.Store. It drops the bank's HNSW index too
// (under the bank's index lock, so no build of it is under way).
func (s *Store) DeleteBank(ctx context.Context, id string) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockBank(ctx, tx, id); err != nil {
			return err
		}
		if err := requireBank(ctx, tx, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, indexLock(id)); err != nil {
			return err
		}
		// No index build of facts runs while this drop waits (hnsw.go's ddlLock).
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, ddlLock); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DROP INDEX IF EXISTS `+pgx.Identifier{indexName(id)}.Sanitize()); err != nil {
			return fmt.Errorf("drop vector index: %w", err)
		}
		for _, t := range bankTables {
			if _, err := tx.Exec(ctx, `DELETE FROM `+t+` WHERE bank_id = $1`, id); err != nil {
				return fmt.Errorf("delete %s: %w", t, err)
			}
		}
		_, err := tx.Exec(ctx, `DELETE FROM banks WHERE id = $1`, id)
		return err
	})
}

// SetBankEmbedder implements memory.Store.
func (s *Store) SetBankEmbedder(ctx context.Context, bankID, name string, dim int) error {
	if err := memory.ValidateEmbedder(name, dim); err != nil {
		return err
	}
	var cur string
	var curDim int
	err := s.pool.QueryRow(ctx, `UPDATE banks SET embedder = $2, dimension = $3
		WHERE id = $1 AND embedder IN ('', $2) AND dimension IN (0, $3) RETURNING embedder, dimension`, bankID, name, dim).Scan(&cur, &curDim)
	if err == nil {
		return nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	err = s.pool.QueryRow(ctx, `SELECT embedder, dimension FROM banks WHERE id = $1`, bankID).Scan(&cur, &curDim)
	if errors.Is(err, pgx.ErrNoRows) {
		return memory.UnknownBank(bankID)
	}
	if err != nil {
		return err
	}
	return memory.EmbedderConflict(bankID, cur, curDim, name, dim)
}

// tx runs fn in one transaction and commits.
func (s *Store) tx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, fn)
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// requireBank returns ENOTFOUND unless the bank exists.
func requireBank(ctx context.Context, q querier, id string) error {
	var one int
	err := q.QueryRow(ctx, `SELECT 1 FROM banks WHERE id = $1`, id).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return memory.UnknownBank(id)
	}
	return err
}

// isCode reports whether err is a PostgreSQL error with the SQLSTATE code.
func isCode(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}

// ts is a time as a timestamptz parameter: NULL for the zero time, else
// truncated to the microsecond (PostgreSQL would round).
func ts(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Truncate(time.Microsecond)
}

// tm is a scanned nullable timestamptz as a time: zero for NULL.
func tm(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// strs is a string list as a text[] parameter, never NULL.
func strs(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}
