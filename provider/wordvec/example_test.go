package wordvec_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mnemo-ai/mnemo/provider/wordvec"
)

func ExampleImport() {
	dir, _ := os.MkdirTemp("", "wordvec-example")
	defer os.RemoveAll(dir)
	// A made-up GloVe file, most frequent word first.
	src := filepath.Join(dir, "tiny.3d.txt")
	os.WriteFile(src, []byte("the 0.5 0.5 0.5\ncat 1 0.1 0\nkitten 0.9 0.2 0\ncar 0 0.1 1\n"), 0o644)

	info, err := wordvec.Import(context.Background(), src, filepath.Join(dir, wordvec.OutputName(src)))
	if err != nil {
		panic(err)
	}
	fmt.Println(filepath.Base(info.Path), info.Format, info.Words, "words of", info.Dim, "dimensions")

	e, err := wordvec.Open(info.Path)
	if err != nil {
		panic(err)
	}
	vs, _ := e.Embed(context.Background(), []string{"The cat", "a kitten", "the car"})
	cos := func(a, b []float32) (d float32) {
		for i := range a {
			d += a[i] * b[i]
		}
		return d
	}
	fmt.Println("cat~kitten > cat~car:", cos(vs[0], vs[1]) > cos(vs[0], vs[2]))
	// Output:
	// tiny.3d.mwv glove 4 words of 3 dimensions
	// cat~kitten > cat~car: true
}
