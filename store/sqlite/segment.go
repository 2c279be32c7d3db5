package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mnemo-ai/mnemo/memory"
)

// longContentBytes is the content above which a continuation writes the
// document's text through a small page cache (textCacheKiB): the text of
// a document in segments, up to memory.MaxDocumentBytes, is overflow
// pages written once and not read again by the writer, which would
// otherwise fill the writer's whole cache (64 MiB of pages, about twice
// that in memory) for nothing.
const (
	longContentBytes = 1 << 20
	textCacheKiB     = 4 << 10
)

// continueDocument is the document part of a batch that continues a
// stored document (memory.WriteBatch.Continue): d must still be its
// item's stored version; its content hash and content are set to d's.
//
// The pages the batches before it left in the writer's cache are
// released first (PRAGMA shrink_memory, as WriteMany does after bulk
// text): a document in segments commits a few MB of new rows per
// segment (text, vectors) into ever larger tables, pages the next
// segment does not read again, and kept they would fill the cache to
// its limit. Each segment reads the index pages it needs again, from
// the OS's cache.
func continueDocument(ctx context.Context, tx *sql.Tx, bank string, d *memory.Document, res *memory.WriteResult) error {
	if err := memory.ValidateDocument(d); err != nil {
		return err
	}
	var id string
	err := tx.QueryRowContext(ctx, `SELECT id FROM documents WHERE bank_id = ? AND source = ? AND item_id = ?`, bank, d.Source, d.ItemID).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows) || err == nil && id != d.ID:
		return memory.DocumentGone(d)
	case err != nil:
		return err
	}
	if _, err := tx.ExecContext(ctx, `PRAGMA shrink_memory`); err != nil {
		return err
	}
	if len(d.Content) > longContentBytes {
		restore, err := smallCache(ctx, tx)
		if err != nil {
			return err
		}
		defer restore()
	}
	// The row is written only when it changes: a segment's batch carries
	// the partial hash and no content, like the stored row, and the last
	// batch the text and the final hash (the stored content, empty, is
	// compared, not read whole).
	if _, err := tx.ExecContext(ctx, `UPDATE documents SET content_hash = ?1, content = ?2
		WHERE bank_id = ?3 AND id = ?4 AND (content_hash <> ?1 OR content <> ?2)`, d.ContentHash, d.Content, bank, d.ID); err != nil {
		return err
	}
	res.DocumentID = d.ID
	return nil
}

// smallCache sets the writer's page cache to textCacheKiB for the rest
// of a long write and returns what sets it back. Dirty pages over the
// limit are spilled to the WAL as the write goes (they are written at
// the commit anyway); clean ones are reused.
func smallCache(ctx context.Context, tx *sql.Tx) (restore func(), err error) {
	var size int
	if err := tx.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&size); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = -%d`, textCacheKiB)); err != nil {
		return nil, err
	}
	return func() {
		// A failure leaves the cache small: slower writes, not wrong ones.
		_, _ = tx.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf(`PRAGMA cache_size = %d`, size))
	}, nil
}
