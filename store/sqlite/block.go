package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Memory blocks (memory.Blocks): one row each in blocks (migrations 001
// and 006); the value is the text column.

var _ memory.Blocks = (*Store)(nil)

const blockColumns = `name, label, text, max_chars, reads, writes, last_read_at, created_at, updated_at`

// scanBlock reads a row of blockColumns.
func scanBlock(bank string, r interface{ Scan(...any) error }) (*memory.Block, error) {
	b := memory.Block{BankID: bank}
	var lastRead sql.NullInt64
	var created, updated int64
	if err := r.Scan(&b.Name, &b.Label, &b.Value, &b.MaxChars, &b.Reads, &b.Writes, &lastRead, &created, &updated); err != nil {
		return nil, err
	}
	b.LastReadAt, b.CreatedAt, b.UpdatedAt = fromNullMicro(lastRead), fromMicro(created), fromMicro(updated)
	return &b, nil
}

// block reads a stored block; ENOTFOUND, checking the bank, if there is
// none.
func block(ctx context.Context, q queryer, bank, name string) (*memory.Block, error) {
	b, err := scanBlock(bank, q.QueryRowContext(ctx, `SELECT `+blockColumns+` FROM blocks WHERE bank_id = ? AND name = ?`, bank, name))
	if errors.Is(err, sql.ErrNoRows) {
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
	return block(ctx, s.rdb, bankID, name)
}

// Blocks implements memory.Blocks, ordered by name (bytewise).
func (s *Store) Blocks(ctx context.Context, bankID string) ([]*memory.Block, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+blockColumns+` FROM blocks WHERE bank_id = ? ORDER BY name`, bankID)
	if err != nil {
		return nil, fmt.Errorf("blocks: %w", err)
	}
	defer rows.Close()
	var out []*memory.Block
	for rows.Next() {
		b, err := scanBlock(bankID, rows)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// EditBlock implements memory.Blocks: read, memory.ApplyBlockEdit and
// write back in one write transaction, which SQLite's write lock
// serialises with every other writer.
func (s *Store) EditBlock(ctx context.Context, bankID, name string, e memory.BlockEdit) (*memory.Block, error) {
	var out *memory.Block
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		cur, err := block(ctx, tx, bankID, name)
		if memory.ErrorCode(err) == memory.ENOTFOUND {
			cur, err = nil, nil
		}
		if err != nil {
			return err
		}
		out, err = memory.ApplyBlockEdit(bankID, name, cur, e)
		if err != nil {
			return err
		}
		return putBlock(ctx, tx, bankID, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// putBlock inserts or replaces a block's row.
func putBlock(ctx context.Context, tx *sql.Tx, bank string, b *memory.Block) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO blocks (bank_id, `+blockColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (bank_id, name) DO UPDATE SET label = excluded.label, text = excluded.text, max_chars = excluded.max_chars,
			reads = excluded.reads, writes = excluded.writes, last_read_at = excluded.last_read_at, created_at = excluded.created_at,
			updated_at = excluded.updated_at`,
		bank, b.Name, b.Label, b.Value, b.MaxChars, b.Reads, b.Writes, toMicro(b.LastReadAt), b.CreatedAt.UnixMicro(), b.UpdatedAt.UnixMicro())
	if err != nil {
		return fmt.Errorf("write block %s: %w", b.Name, err)
	}
	return nil
}

// ReadBlock implements memory.Blocks.
func (s *Store) ReadBlock(ctx context.Context, bankID, name string, at time.Time) (*memory.Block, error) {
	var out *memory.Block
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = scanBlock(bankID, tx.QueryRowContext(ctx, `UPDATE blocks SET reads = reads + 1, last_read_at = ?
			WHERE bank_id = ? AND name = ? RETURNING `+blockColumns, memory.StoreTime(at).UnixMicro(), bankID, name))
		if errors.Is(err, sql.ErrNoRows) {
			_, err = block(ctx, tx, bankID, name)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteBlock implements memory.Blocks.
func (s *Store) DeleteBlock(ctx context.Context, bankID, name string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM blocks WHERE bank_id = ? AND name = ?`, bankID, name)
		if err != nil {
			return fmt.Errorf("delete block %s: %w", name, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			_, err := block(ctx, tx, bankID, name)
			return err
		}
		return nil
	})
}

// importBlock adds an exported block; one of that name already stored is
// ECONFLICT.
func importBlock(ctx context.Context, tx *sql.Tx, bank string, x *memory.ExportBlock) error {
	b := x.Block(bank)
	if err := memory.ValidateBlock(b); err != nil {
		return memory.Errorf(memory.EINVALID, "import: %s", memory.ErrorMessage(err))
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO blocks (bank_id, `+blockColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		bank, b.Name, b.Label, b.Value, b.MaxChars, b.Reads, b.Writes, toMicro(b.LastReadAt), b.CreatedAt.UnixMicro(), b.UpdatedAt.UnixMicro())
	return err
}
