package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/memory"
)

// Per-bank HNSW indexes. Banks differ in dimension and pgvector indexes
// only typed vectors, so each bank that grows past HNSWMinFacts gets an
// index of its own:
//
//	CREATE INDEX CONCURRENTLY facts_hnsw_<hash> ON facts
//	    USING hnsw ((embedding::vector(<dim>)) vector_cosine_ops)
//	    WHERE bank_id = '<bank>'
//
// built in the background by the first process whose search finds the
// bank past the threshold (a session advisory lock per bank keeps it to
// one builder), without blocking writers; until then searches scan. banks.hnsw_dim records it once it is valid;
// searches use it only then (search.go). An interrupted build leaves an
// invalid index, which the next attempt drops. DeleteBank drops the
// index, so a bank created again under the same id may take another
// dimension.

// indexRetry is how long a failed build waits before it is tried again.
const indexRetry = time.Minute

// indexName is the name of a bank's HNSW index: bank ids may hold
// characters an identifier should not, a hash never does.
func indexName(bank string) string {
	sum := sha256.Sum256([]byte(bank))
	return "facts_hnsw_" + hex.EncodeToString(sum[:8])
}

// indexLock is the advisory lock key of a bank's index build.
func indexLock(bank string) int64 {
	h := fnv.New64a()
	h.Write([]byte("mnemo/hnsw/"))
	h.Write([]byte(bank))
	return int64(h.Sum64())
}

// ddlLock is the advisory lock key every index build of facts takes
// around its DDL. Two CREATE INDEX CONCURRENTLY on one table deadlock
// (SQLSTATE 40P01): the first, in its wait phase, waits for every older
// transaction, among them the second's, which waits for the first's lock
// on the table. Builds of different banks therefore take turns.
var ddlLock = indexLock("\x00facts-ddl")

// startIndexBuild starts, in the background, the build of the index of a
// bank that an exact search found large enough (it has facts facts and
// no index). Searches trigger it rather than writes: a bulk load is not
// slowed by index inserts, and the index is built once, from all rows.
func (s *Store) startIndexBuild(bank string, facts int64) {
	threshold := s.HNSWMinFacts
	if threshold == 0 {
		threshold = DefaultHNSWMinFacts
	}
	if threshold < 0 || facts < int64(threshold) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.building[bank] || time.Now().Before(s.retryAt[bank]) {
		return
	}
	s.building[bank] = true
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_, _, err := s.buildIndex(s.ctx, bank)
		s.mu.Lock()
		delete(s.building, bank)
		if err != nil {
			s.retryAt[bank] = time.Now().Add(indexRetry)
		}
		s.mu.Unlock()
	}()
}

// BuildIndex builds the bank's HNSW index now, whatever its size, and
// waits for it; it returns at once if the index exists or another process
// is building it. Searches use the index once it is built.
func (s *Store) BuildIndex(ctx context.Context, bank string) error {
	_, _, err := s.buildIndex(ctx, bank)
	return err
}

// WaitIndexed waits until the bank's HNSW index is built if the bank is
// large enough to have one (building it now if no one is), and returns at
// once for a bank that is searched by exact scan.
func (s *Store) WaitIndexed(ctx context.Context, bank string) error {
	threshold := s.HNSWMinFacts
	if threshold == 0 {
		threshold = DefaultHNSWMinFacts
	}
	for {
		var facts int64
		var indexed bool
		err := s.pool.QueryRow(ctx, `SELECT fact_count, hnsw_dim = dimension OR dimension = 0 FROM banks WHERE id = $1`, bank).Scan(&facts, &indexed)
		if errors.Is(err, pgx.ErrNoRows) {
			return memory.UnknownBank(bank)
		}
		if err != nil || indexed || threshold < 0 || facts < int64(threshold) {
			return err
		}
		built, busy, err := s.buildIndex(ctx, bank)
		if err != nil || built {
			return err
		}
		if !busy {
			return nil
		}
		select { // another builder: look again shortly
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// buildIndex builds the bank's index unless it exists; built reports
// whether the bank has its index afterwards, busy that another
// connection is building it.
func (s *Store) buildIndex(ctx context.Context, bank string) (built, busy bool, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return false, false, err
	}
	defer conn.Release()
	key := indexLock(bank)
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&got); err != nil {
		return false, false, err
	}
	if !got {
		return false, true, nil // another process builds it
	}
	defer conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, key)
	var dim, hnswDim int
	err = conn.QueryRow(ctx, `SELECT dimension, hnsw_dim FROM banks WHERE id = $1`, bank).Scan(&dim, &hnswDim)
	if errors.Is(err, pgx.ErrNoRows) || dim == 0 {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	if hnswDim == dim {
		return true, false, nil
	}
	// One index build of facts at a time, whatever the bank (ddlLock);
	// waiting ends with ctx. The lock is tried, not waited for: a
	// statement waiting for it is a transaction that CREATE INDEX
	// CONCURRENTLY, holding it, waits for in turn — a deadlock
	// PostgreSQL breaks by failing one of them.
	for {
		var got bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, ddlLock).Scan(&got); err != nil {
			return false, false, err
		}
		if got {
			break
		}
		select {
		case <-ctx.Done():
			return false, false, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	defer conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, ddlLock)
	name := pgx.Identifier{indexName(bank)}.Sanitize()
	// A leftover of an interrupted build is invalid: drop it first.
	if _, err := conn.Exec(ctx, `DROP INDEX CONCURRENTLY IF EXISTS `+name); err != nil {
		return false, false, fmt.Errorf("drop vector index of bank %s: %w", bank, err)
	}
	if _, err := conn.Exec(ctx, `SET maintenance_work_mem = '512MB'`); err != nil {
		return false, false, err
	}
	defer conn.Exec(context.Background(), `RESET maintenance_work_mem`)
	// The dimension and the bank id are spelled in: DDL takes no
	// parameters. The dimension is an integer; the id is quoted.
	_, err = conn.Exec(ctx, `CREATE INDEX CONCURRENTLY `+name+` ON facts
		USING hnsw ((embedding::vector(`+strconv.Itoa(dim)+`)) vector_cosine_ops)
		WHERE bank_id = `+quoteLiteral(bank))
	if err != nil {
		return false, false, fmt.Errorf("build vector index of bank %s: %w", bank, err)
	}
	if _, err := conn.Exec(ctx, `UPDATE banks SET hnsw_dim = $2 WHERE id = $1 AND dimension = $2`, bank, dim); err != nil {
		return false, false, err
	}
	return true, false, nil
}
