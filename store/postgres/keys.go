package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
	"github.com/mnemo-ai/mnemo/memory"
)

// API keys (migration 006): a directory beside the banks, hashes only.

const keyColumns = `id, hash, bank, scope, name, created_at, expires_at, revoked_at`

func scanKey(r dbrows.Scanner) (*memory.Key, error) {
	var k memory.Key
	var scope string
	var created time.Time
	var expires, revoked *time.Time
	if err := r.Scan(&k.ID, &k.Hash, &k.Bank, &scope, &k.Name, &created, &expires, &revoked); err != nil {
		return nil, err
	}
	k.Scope = memory.Scope(scope)
	k.CreatedAt, k.ExpiresAt, k.RevokedAt = created.UTC(), tm(expires), tm(revoked)
	return &k, nil
}

// CreateKey implements memory.Keys.
func (s *Store) CreateKey(ctx context.Context, k *memory.Key) error {
	if err := k.Validate(); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO api_keys (`+keyColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		k.ID, k.Hash, k.Bank, string(k.Scope), k.Name, ts(k.CreatedAt), ts(k.ExpiresAt), ts(k.RevokedAt))
	if isCode(err, "23505") {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.ConstraintName == "api_keys_hash_key" {
			return memory.Errorf(memory.ECONFLICT, "a key with the same secret already exists")
		}
		return memory.Errorf(memory.ECONFLICT, "key %s already exists", k.ID)
	}
	if err != nil {
		return fmt.Errorf("create key %s: %w", k.ID, err)
	}
	return nil
}

// KeyByHash implements memory.Keys.
func (s *Store) KeyByHash(ctx context.Context, hash string) (*memory.Key, error) {
	k, err := scanKey(s.pool.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE hash = $1`, hash))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, memory.Errorf(memory.ENOTFOUND, "no such key")
	}
	if err != nil {
		return nil, fmt.Errorf("key by hash: %w", err)
	}
	return k, nil
}

// Keys implements memory.Keys.
func (s *Store) Keys(ctx context.Context, bank string) ([]*memory.Key, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE $1 = '' OR bank = $1 ORDER BY created_at, id`, bank)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	defer rows.Close()
	return dbrows.Collect(rows, scanKey)
}

// RevokeKey implements memory.Keys.
func (s *Store) RevokeKey(ctx context.Context, id string, at time.Time) (*memory.Key, error) {
	k, err := scanKey(s.pool.QueryRow(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2 RETURNING `+keyColumns, ts(at), id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, memory.Errorf(memory.ENOTFOUND, "no key %s", id)
	}
	if err != nil {
		return nil, fmt.Errorf("revoke key %s: %w", id, err)
	}
	return k, nil
}
