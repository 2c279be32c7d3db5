//go:build ignore

// Command gen writes nouns.bin.gz, the embedded noun hierarchy, from
// WordNet's dict files: go generate ./internal/wordnet (Debian: apt-get
// install wordnet-base).
package main

import (
	"flag"
	"log"
	"os"

	"github.com/mnemo-ai/mnemo/internal/wordnet"
)

func main() {
	dict := flag.String("dict", "/usr/share/wordnet", "WordNet dict directory")
	out := flag.String("out", "nouns.bin.gz", "output file")
	flag.Parse()
	lx, err := wordnet.ParseDict(*dict)
	if err != nil {
		log.Fatal(err)
	}
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	if err := lx.Write(f); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
