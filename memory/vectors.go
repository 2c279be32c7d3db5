package memory

import "context"

// FactVectors reads the embeddings stored with facts, for the passes that
// compare facts with each other (the dream pass clusters them) without
// paying the embedder again for vectors the bank already holds. Both
// built-in stores have it; detect it by type assertion.
type FactVectors interface {
	// FactEmbeddings returns the stored embedding of each fact of ids
	// that exists and has one, by id, whatever the fact's status; ids that
	// do not exist are absent. An unknown bank is ENOTFOUND.
	FactEmbeddings(ctx context.Context, bankID string, ids []string) (map[string][]float32, error)
}
