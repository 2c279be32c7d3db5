package sqlite

import (
	"context"

	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.DocumentSearcher = (*Store)(nil)

// SearchDocuments implements memory.DocumentSearcher from the bank's
// document mirror: BM25 (k1 1.2, b 0.75, Lucene IDF: internal/bm25) over
// each document's words, the words SearchText indexes.
func (s *Store) SearchDocuments(ctx context.Context, bankID string, terms []string, k int) ([]memory.Hit, error) {
	return s.mirror.SearchDocuments(ctx, bankID, terms, k)
}
