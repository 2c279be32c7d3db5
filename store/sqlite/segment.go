package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mnemo-ai/mnemo/memory"
)

// The page cache of a continuation (memory.WriteBatch.Continue): a
// segment of a long document, or the batch that completes it. The
// writer's own cache (writerCacheKiB) costs about twice its size in
// memory (a page and its header take an 8 KiB slot of the allocator).
// A segment's facts are numbered in order (id.Nth), so they append to
// the indexes keyed by fact id and a segment touches few pages more than
// once: segmentCacheKiB is the cache of a segment, measured
// (docs/scale.md, "Bounded memory") at 5 MB as fast as 48 MiB and at
// 50 MB a few percent slower (63 s against 61 s), for 60 MB less while
// the segments are written and 20 MB less at the peak (48 MiB peaked at
// 295–298 MB, against the 300 MB a document may take). (With random ids, 16 MiB was far slower: a
// segment spilled and read again pages it touched more than once.) The
// batch that completes the document writes its text (overflow pages
// written once, never read again by the writer) through textCacheKiB,
// which first frees the cache's clean pages, then sets the writer's
// cache back to writerCacheKiB.
const (
	segmentCacheKiB = 16 << 10
	textCacheKiB    = 4 << 10
)

// segmentCheckpointPages is the WAL's length at which a commit
// checkpoints it while a document's segments are written (instead of
// walCheckpointPages; 400 MiB of WAL): a page several segments' commits
// rewrite (the tail of each index, the entities') is copied to the
// database once however many commits rewrote it since the last
// checkpoint. Measured with the facts numbered in order (docs/scale.md,
// "Bounded memory"): at 50 MB, 62.6 s against 65.5–67.2 s with
// walCheckpointPages; at 5 MB the same. The batch that completes the
// document sets it back.
const segmentCheckpointPages = 100000

// continueDocument is the document part of a batch that continues a
// stored document (memory.WriteBatch.Continue): d must still be its
// item's stored version; its content hash and content are set to d's.
// The batch runs with the writer's page cache at segmentCacheKiB and its
// WAL checkpointed at segmentCheckpointPages, and the one that sets the
// content (the last of a document in segments) sets both back: a retain
// in segments stopped halfway leaves them until the next document in
// segments completes, which costs time (a smaller cache) and disk (a
// longer WAL until the next checkpoint), not correctness.
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
	cache := segmentCacheKiB
	if d.Content != "" {
		cache = textCacheKiB
	}
	if err := setCache(ctx, tx, cache); err != nil {
		return err
	}
	if err := setCheckpoint(ctx, tx, segmentCheckpointPages); err != nil {
		return err
	}
	// The row is written only when it changes: a segment's batch carries
	// the partial hash and no content, like the stored row, and the last
	// batch the text and the final hash (the stored content, empty, is
	// compared, not read whole).
	if _, err := tx.ExecContext(ctx, `UPDATE documents SET content_hash = ?1, content = ?2
		WHERE bank_id = ?3 AND id = ?4 AND (content_hash <> ?1 OR content <> ?2)`, d.ContentHash, d.Content, bank, d.ID); err != nil {
		return err
	}
	if d.Content != "" {
		if err := setCache(ctx, tx, writerCacheKiB); err != nil {
			return err
		}
		if err := setCheckpoint(ctx, tx, walCheckpointPages); err != nil {
			return err
		}
	}
	res.DocumentID = d.ID
	return nil
}

// setCache sets the writer's page cache to kib KiB. A smaller cache
// frees the clean pages over it at once; dirty ones are spilled as the
// transaction goes on.
func setCache(ctx context.Context, tx *sql.Tx, kib int) error {
	_, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = -%d`, kib))
	return err
}

// setCheckpoint sets the WAL length, in pages, at which the writer's
// commits checkpoint it (wal_autocheckpoint).
func setCheckpoint(ctx context.Context, tx *sql.Tx, pages int) error {
	_, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA wal_autocheckpoint = %d`, pages))
	return err
}
