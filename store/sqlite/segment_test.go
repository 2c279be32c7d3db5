package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// TestStore_ContinueCache checks the writer's page cache and WAL
// checkpoint through a document in segments: a segment continuing the
// document runs with segmentCacheKiB and segmentCheckpointPages, and the batch that writes the document's text (longer
// than the text cache, so that its pages are spilled as it goes) sets the
// writer's cache back to writerCacheKiB. A continuation that fails leaves
// the cache where it was, and the text is stored whole.
func TestStore_ContinueCache(t *testing.T) {
	ctx := context.Background()
	s := openBank(t, filepath.Join(t.TempDir(), "x.db"), "a")
	cache := func(what string, want int) {
		t.Helper()
		var got int
		if err := s.wdb.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != -want {
			t.Errorf("writer's cache after %s: %d, want %d", what, got, -want)
		}
		pages := walCheckpointPages
		if want == segmentCacheKiB {
			pages = segmentCheckpointPages
		}
		if err := s.wdb.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != pages {
			t.Errorf("writer's WAL checkpoint after %s: every %d pages, want %d", what, got, pages)
		}
	}
	text := strings.Repeat("A long line of the document. ", 3*textCacheKiB<<10/29)
	doc := &memory.Document{ID: "d", Source: "s", ItemID: "x", ContentHash: "partial"}
	batch := func(id string, cont bool) *memory.WriteBatch {
		return &memory.WriteBatch{BankID: "a", Document: doc, Continue: cont,
			Facts: []*memory.Fact{{ID: id, DocumentID: doc.ID, Text: "fact " + id}}}
	}
	cache("opening", writerCacheKiB)
	if _, err := s.Write(ctx, batch("f1", false)); err != nil {
		t.Fatal(err)
	}
	cache("the first segment", writerCacheKiB)
	if _, err := s.Write(ctx, batch("f2", true)); err != nil {
		t.Fatal(err)
	}
	cache("a continuing segment", segmentCacheKiB)
	other := *doc
	other.ID = "other"
	if _, err := s.Write(ctx, &memory.WriteBatch{BankID: "a", Document: &other, Continue: true}); memory.ErrorCode(err) != memory.ECONFLICT {
		t.Fatalf("continuing another document: got %v, want ECONFLICT", err)
	}
	cache("a refused continuation", segmentCacheKiB)
	final := *doc
	final.ContentHash, final.Content = "final", text
	if _, err := s.Write(ctx, &memory.WriteBatch{BankID: "a", Document: &final, Continue: true}); err != nil {
		t.Fatal(err)
	}
	cache("the batch that completes the document", writerCacheKiB)
	var hash, content string
	if err := s.rdb.QueryRowContext(ctx, `SELECT content_hash, content FROM documents WHERE bank_id = 'a' AND id = 'd'`).Scan(&hash, &content); err != nil {
		t.Fatal(err)
	}
	if hash != "final" || content != text {
		t.Errorf("document: hash %q and %d bytes of content, want %q and %d", hash, len(content), "final", len(text))
	}
}
