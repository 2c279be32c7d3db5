package provider

import "context"

// EmbedEach is the batch loop of a local embedder: it returns one vector
// of length dim per text, in order, all carved from one backing array (one
// allocation for the batch), each written by embed with acc (length dim)
// as scratch. It checks ctx every 64 texts and fails only when ctx is
// done.
func EmbedEach(ctx context.Context, texts []string, dim int, embed func(text string, acc []float64, v []float32)) ([][]float32, error) {
	out := make([][]float32, len(texts))
	backing := make([]float32, len(texts)*dim)
	acc := make([]float64, dim)
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		v := backing[i*dim : (i+1)*dim : (i+1)*dim]
		embed(t, acc, v)
		out[i] = v
	}
	return out, nil
}
