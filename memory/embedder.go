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

// Lexical is implemented by embedders whose vectors carry word overlap,
// not meaning: a hashing embedder (provider/hashembed) maps the same
// words to the same directions and unrelated words nowhere near. Recall
// gives such vectors a smaller say than a learned model's (its default
// weights were measured with one). Wrappers (provider.Guard) pass it on.
type Lexical interface {
	// Lexical reports whether the vectors carry only word overlap.
	Lexical() bool
}

// IsLexical reports whether e says its vectors carry only word overlap
// (see [Lexical]); an embedder that does not say is taken as learned.
func IsLexical(e Embedder) bool {
	l, ok := e.(Lexical)
	return ok && l.Lexical()
}
