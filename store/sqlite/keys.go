package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
	"github.com/mnemo-ai/mnemo/memory"
)

// API keys (migration 007): a table beside the banks, hashes only.

const keyColumns = `id, hash, bank, scope, name, created_at, expires_at, revoked_at`

func scanKey(r interface{ Scan(...any) error }) (*memory.Key, error) {
	var k memory.Key
	var scope string
	var created int64
	var expires, revoked sql.NullInt64
	if err := r.Scan(&k.ID, &k.Hash, &k.Bank, &scope, &k.Name, &created, &expires, &revoked); err != nil {
		return nil, err
	}
	k.Scope = memory.Scope(scope)
	k.CreatedAt, k.ExpiresAt, k.RevokedAt = fromMicro(created), fromNullMicro(expires), fromNullMicro(revoked)
	return &k, nil
}

// CreateKey implements memory.Keys.
func (s *Store) CreateKey(ctx context.Context, k *memory.Key) error {
	if err := k.Validate(); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO api_keys (`+keyColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			k.ID, k.Hash, k.Bank, string(k.Scope), k.Name, k.CreatedAt.UnixMicro(), toMicro(k.ExpiresAt), toMicro(k.RevokedAt))
		if isConstraint(err) {
			if strings.Contains(err.Error(), "api_keys.hash") {
				return memory.Errorf(memory.ECONFLICT, "a key with the same secret already exists")
			}
			return memory.Errorf(memory.ECONFLICT, "key %s already exists", k.ID)
		}
		if err != nil {
			return fmt.Errorf("create key %s: %w", k.ID, err)
		}
		return nil
	})
}

// KeyByHash implements memory.Keys.
func (s *Store) KeyByHash(ctx context.Context, hash string) (*memory.Key, error) {
	k, err := scanKey(s.rdb.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, memory.Errorf(memory.ENOTFOUND, "no such key")
	}
	if err != nil {
		return nil, fmt.Errorf("key by hash: %w", err)
	}
	return k, nil
}

// Keys implements memory.Keys.
func (s *Store) Keys(ctx context.Context, bank string) ([]*memory.Key, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE ?1 = '' OR bank = ?1 ORDER BY created_at, id`, bank)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	defer rows.Close()
	return dbrows.Collect(rows, scanKey)
}

// RevokeKey implements memory.Keys.
func (s *Store) RevokeKey(ctx context.Context, id string, at time.Time) (*memory.Key, error) {
	var k *memory.Key
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		k, err = scanKey(tx.QueryRowContext(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? RETURNING `+keyColumns, at.UnixMicro(), id))
		if errors.Is(err, sql.ErrNoRows) {
			return memory.Errorf(memory.ENOTFOUND, "no key %s", id)
		}
		return err
	})
	if err != nil {
		if memory.ErrorCode(err) == memory.ENOTFOUND {
			return nil, err
		}
		return nil, fmt.Errorf("revoke key %s: %w", id, err)
	}
	return k, nil
}
