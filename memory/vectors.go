package memory

import "context"

// FactVectors reads the embeddings of stored facts: what the
// consolidation passes that compare facts with each other (the fact
// merge, group consolidation) start from, so that no fact is embedded a
// second time to find its neighbours through [Searcher.SearchVector].
type FactVectors interface {
	// FactEmbeddings returns the embeddings of the given facts, by id,
	// whatever their status. Ids that do not exist, and facts stored
	// without an embedding, are absent from the map; no ids give an empty
	// map. The vectors are the caller's to keep. An unknown bank is
	// ENOTFOUND.
	FactEmbeddings(ctx context.Context, bankID string, ids []string) (map[string][]float32, error)
}
