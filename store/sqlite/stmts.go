package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
)

// maxStmts bounds the statements a stmtCache keeps. The hot reads are a
// few dozen texts (inPadded bounds the shapes of their lists); a query
// beyond the bound is prepared per call, as without the cache.
const maxStmts = 256

// stmtCache keeps the prepared statements of the hot read queries on one
// pool, by their SQL text: database/sql prepares a statement given as
// text on every call, and at a handful of reads per recall the parsing
// cost more than some lookups themselves. A *sql.Stmt prepares itself on
// each connection of the pool the first time it runs there, and SQLite
// prepares it again by itself after a schema change
// (sqlite3_prepare_v2), so a cached statement stays valid across
// migrations. It is safe for concurrent use; after close, every call
// fails.
type stmtCache struct {
	db *sql.DB

	mu     sync.Mutex
	stmts  map[string]*sql.Stmt
	closed bool
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, stmts: map[string]*sql.Stmt{}}
}

// errStmtsClosed is what a stmtCache returns once closed.
var errStmtsClosed = errors.New("sqlite: store is closed")

// stmt returns the statement for query, prepared once, or nil when the
// cache is full (the caller then runs query as text). It prepares
// outside the lock: preparing waits for a connection, and a caller
// holding one (an open *sql.Rows) may be asking for another statement.
func (c *stmtCache) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	st, closed, full := c.stmts[query], c.closed, len(c.stmts) >= maxStmts
	c.mu.Unlock()
	switch {
	case closed:
		return nil, errStmtsClosed
	case st != nil:
		return st, nil
	case full:
		return nil, nil
	}
	// The pool's context, not the caller's: the statement outlives the
	// call.
	st, err := c.db.PrepareContext(context.WithoutCancel(ctx), query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		st.Close()
		return nil, errStmtsClosed
	}
	if had := c.stmts[query]; had != nil { // prepared meanwhile
		st.Close()
		return had, nil
	}
	if len(c.stmts) >= maxStmts {
		st.Close()
		return nil, nil
	}
	c.stmts[query] = st
	return st, nil
}

// cached returns the statement for query if the cache holds it, or nil;
// it never prepares.
func (c *stmtCache) cached(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stmts[query]
}

// query runs query (a read) with args through its cached statement.
func (c *stmtCache) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return c.db.QueryContext(ctx, query, args...)
	}
	return st.QueryContext(ctx, args...)
}

// queryRow runs query (a read of one row) with args through its cached
// statement; an error is returned by the row's Scan.
func (c *stmtCache) queryRow(ctx context.Context, query string, args ...any) rowScanner {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return errRow{err}
	}
	if st == nil {
		return c.db.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// close closes every cached statement; the cache then refuses work.
func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	var err error
	for _, st := range c.stmts {
		err = errors.Join(err, st.Close())
	}
	c.stmts = nil
	return err
}

// rowScanner is a *sql.Row, or an errRow.
type rowScanner interface{ Scan(dest ...any) error }

// errRow is a row whose Scan fails with err.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// inPadded is in for a cached statement: the list of values is padded,
// by repeating its last value, to the next power of two (at least
// minPadded), so that lists of any length share a few statement texts.
// A repeated value changes nothing an IN list selects. An empty list
// gives "(NULL)", which selects nothing.
func inPadded(values []string, lead ...any) (string, []any) {
	if len(values) == 0 {
		return "(NULL)", lead
	}
	if len(values) > maxInList {
		return in(values, lead...)
	}
	n := minPadded
	for n < len(values) {
		n *= 2
	}
	args := make([]any, 0, len(lead)+n)
	args = append(args, lead...)
	for i := 0; i < n; i++ {
		args = append(args, values[min(i, len(values)-1)])
	}
	return "(" + strings.TrimSuffix(strings.Repeat("?,", n), ",") + ")", args
}

// minPadded is the shortest list inPadded writes.
const minPadded = 4

// requireBank returns ENOTFOUND unless the bank exists, through the
// cached statement of the bank's row, once per memory.ReadScope
// (requireBank, for a transaction or another pool).
func (s *Store) requireBank(ctx context.Context, id string) error {
	_, err := s.stmts.bank(ctx, id)
	return err
}
