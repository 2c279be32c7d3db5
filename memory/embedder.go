package memory

import "context"

// Embedder turns texts into vectors. Implementations are safe for
// concurrent use and return one L2-normalised vector of Dimension() per
// text, in order.
type Embedder interface {
	// Name identifies the embedder and its configuration; a bank records
	// it and refuses vectors from another.
	Name() string
	// Dimension is the length of every vector.
	Dimension() int
	// Embed embeds a batch of texts.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}
