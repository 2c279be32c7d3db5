package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/mnemo-ai/mnemo/memory"
)

// continueDocument is the document part of a batch that continues a
// stored document (memory.WriteBatch.Continue): d must still be its
// item's stored version; its content hash is set to d's.
func continueDocument(ctx context.Context, tx *sql.Tx, bank string, d *memory.Document, res *memory.WriteResult) error {
	if err := memory.ValidateDocument(d); err != nil {
		return err
	}
	var id, hash string
	err := tx.QueryRowContext(ctx, `SELECT id, content_hash FROM documents WHERE bank_id = ? AND source = ? AND item_id = ?`, bank, d.Source, d.ItemID).Scan(&id, &hash)
	switch {
	case errors.Is(err, sql.ErrNoRows) || err == nil && id != d.ID:
		return memory.DocumentGone(d)
	case err != nil:
		return err
	}
	if hash != d.ContentHash {
		if _, err := tx.ExecContext(ctx, `UPDATE documents SET content_hash = ? WHERE bank_id = ? AND id = ?`, d.ContentHash, bank, d.ID); err != nil {
			return err
		}
	}
	res.DocumentID = d.ID
	return nil
}
