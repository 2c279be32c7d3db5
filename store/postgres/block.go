package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/memory"
)

// Memory blocks (memory.Blocks): one row each in blocks (migrations 001
// and 005); the value is the text column.

var _ memory.Blocks = (*Store)(nil)

const blockColumns = `name, label, text, max_chars, reads, writes, last_read_at, created_at, updated_at`

// blockCopyColumns are the columns Import copies a block into.
var blockCopyColumns = []string{"bank_id", "name", "label", "text", "max_chars", "reads", "writes", "last_read_at", "created_at", "updated_at"}

// scanBlock reads a row of blockColumns.
func scanBlock(bank string, r pgx.Row) (*memory.Block, error) {
	b := memory.Block{BankID: bank}
	var lastRead *time.Time
	var created, updated time.Time
	if err := r.Scan(&b.Name, &b.Label, &b.Value, &b.MaxChars, &b.Reads, &b.Writes, &lastRead, &created, &updated); err != nil {
		return nil, err
	}
	b.LastReadAt, b.CreatedAt, b.UpdatedAt = tm(lastRead), created.UTC(), updated.UTC()
	return &b, nil
}

// blockRow is b as the values of blockCopyColumns. Times are kept even
// when zero (the columns are NOT NULL), but the last read.
func blockRow(bank string, b *memory.Block) []any {
	return []any{bank, b.Name, b.Label, b.Value, b.MaxChars, b.Reads, b.Writes, ts(b.LastReadAt),
		b.CreatedAt.UTC().Truncate(time.Microsecond), b.UpdatedAt.UTC().Truncate(time.Microsecond)}
}

// block reads a stored block; ENOTFOUND, checking the bank, if there is
// none.
func block(ctx context.Context, q querier, bank, name string) (*memory.Block, error) {
	b, err := scanBlock(bank, q.QueryRow(ctx, `SELECT `+blockColumns+` FROM blocks WHERE bank_id = $1 AND name = $2`, bank, name))
	if errors.Is(err, pgx.ErrNoRows) {
		if err := requireBank(ctx, q, bank); err != nil {
			return nil, err
		}
		return nil, memory.Errorf(memory.ENOTFOUND, "no block %q", name)
	}
	if err != nil {
		return nil, fmt.Errorf("block %s: %w", name, err)
	}
	return b, nil
}

// Block implements memory.Blocks.
func (s *Store) Block(ctx context.Context, bankID, name string) (*memory.Block, error) {
	return block(ctx, s.pool, bankID, name)
}

// Blocks implements memory.Blocks, ordered by name (bytewise).
func (s *Store) Blocks(ctx context.Context, bankID string) ([]*memory.Block, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+blockColumns+` FROM blocks WHERE bank_id = $1 ORDER BY name`, bankID)
	if err != nil {
		return nil, fmt.Errorf("blocks: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (*memory.Block, error) { return scanBlock(bankID, r) })
}

// EditBlock implements memory.Blocks: read, memory.ApplyBlockEdit and
// write back in one transaction under the bank's write lock, so that
// concurrent edits (of a block not stored yet too) apply one after the
// other.
func (s *Store) EditBlock(ctx context.Context, bankID, name string, e memory.BlockEdit) (*memory.Block, error) {
	var out *memory.Block
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockBank(ctx, tx, bankID); err != nil {
			return err
		}
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		// FOR UPDATE: a concurrent ReadBlock (one UPDATE, outside the
		// bank lock) waits for this edit, or this edit reads its count.
		cur, err := scanBlock(bankID, tx.QueryRow(ctx, `SELECT `+blockColumns+` FROM blocks WHERE bank_id = $1 AND name = $2 FOR UPDATE`, bankID, name))
		if errors.Is(err, pgx.ErrNoRows) {
			cur, err = nil, nil
		}
		if err != nil {
			return fmt.Errorf("block %s: %w", name, err)
		}
		out, err = memory.ApplyBlockEdit(bankID, name, cur, e)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO blocks (bank_id, `+blockColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
			ON CONFLICT (bank_id, name) DO UPDATE SET label = excluded.label, text = excluded.text, max_chars = excluded.max_chars,
				reads = excluded.reads, writes = excluded.writes, last_read_at = excluded.last_read_at, created_at = excluded.created_at,
				updated_at = excluded.updated_at`, blockRow(bankID, out)...)
		if err != nil {
			return fmt.Errorf("write block %s: %w", name, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ReadBlock implements memory.Blocks: one UPDATE, atomic on its own.
func (s *Store) ReadBlock(ctx context.Context, bankID, name string, at time.Time) (*memory.Block, error) {
	b, err := scanBlock(bankID, s.pool.QueryRow(ctx, `UPDATE blocks SET reads = reads + 1, last_read_at = $3
		WHERE bank_id = $1 AND name = $2 RETURNING `+blockColumns, bankID, name, ts(at)))
	if errors.Is(err, pgx.ErrNoRows) {
		return block(ctx, s.pool, bankID, name)
	}
	if err != nil {
		return nil, fmt.Errorf("read block %s: %w", name, err)
	}
	return b, nil
}

// DeleteBlock implements memory.Blocks.
func (s *Store) DeleteBlock(ctx context.Context, bankID, name string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM blocks WHERE bank_id = $1 AND name = $2`, bankID, name)
	if err != nil {
		return fmt.Errorf("delete block %s: %w", name, err)
	}
	if tag.RowsAffected() == 0 {
		_, err := block(ctx, s.pool, bankID, name)
		return err
	}
	return nil
}

// importBlockRow is an exported block as the values of blockCopyColumns,
// or EINVALID.
func importBlockRow(bank string, x *memory.ExportBlock) ([]any, error) {
	b := x.Block(bank)
	if err := memory.ValidateBlock(b); err != nil {
		return nil, memory.Errorf(memory.EINVALID, "import: %s", memory.ErrorMessage(err))
	}
	return blockRow(bank, b), nil
}
