package mnemo_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/bench"
	"github.com/mnemo-ai/mnemo/importer"
)

// TestEngine_LoCoMoDev guards the offline recall quality the project
// promises (docs/recall.md): the default engine — SQLite, hash
// embedder, no LLM — on the LoCoMo dev split. The figures are
// deterministic, so any change that costs quality fails here; one that
// earns some should raise the floors. It skips without ../shared (the
// data is CC BY-NC and never in the repository).
func TestEngine_LoCoMoDev(t *testing.T) {
	path := filepath.Join("..", "shared", "data", "locomo-dev.json")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s absent", path)
	}
	if testing.Short() {
		t.Skip("LoCoMo dev takes a few seconds")
	}
	data, err := importer.LoadLoCoMo(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: filepath.Join(t.TempDir(), "locomo.db"), JobPoll: -1, SessionIdle: -1, AccessFlush: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	r, err := bench.RunLoCoMo(ctx, eng, data, bench.LoCoMoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		got, floor float64
	}{
		{"recall@10", r.Overall.Recall10, 0.791},
		{"multi-hop recall@10", r.Categories["multi-hop"].Recall10, 0.512},
		{"MRR", r.Overall.MRR, 0.598},
		{"temporal recall@10", r.Categories["temporal"].Recall10, 0.862},
		{"single-hop recall@10", r.Categories["single-hop"].Recall10, 0.897},
	} {
		if c.got < c.floor {
			t.Errorf("%s = %.4f, below %.3f", c.name, c.got, c.floor)
		}
	}
	t.Logf("recall@10 %.4f, multi-hop %.4f, MRR %.4f", r.Overall.Recall10, r.Categories["multi-hop"].Recall10, r.Overall.MRR)
}
