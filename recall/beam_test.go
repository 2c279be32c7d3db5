package recall_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-ai/mnemo/bench"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/hashembed"
	"github.com/mnemo-ai/mnemo/recall"
)

// TestRecall_BEAMDev guards the offline recall quality on conversations
// between a user and an assistant (docs/recall.md, "Both kinds of
// conversation"): the default pipeline over BEAM dev, retained as `mnemo
// bench locomo` retains it. The figures are deterministic, so a change
// that costs quality here fails; one that earns some should raise the
// floors. LoCoMo's floors are guarded beside the engine
// (TestEngine_LoCoMoDev). It skips without ../shared (the data is never
// in the repository) and in -short.
func TestRecall_BEAMDev(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "data", "beam-dev.json")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s absent", path)
	}
	if testing.Short() {
		t.Skip("BEAM dev takes a few seconds")
	}
	// The guarded figures are those of one bank per conversation,
	// retained afresh, whatever the measurement's variables say.
	t.Setenv("MNEMO_MEASURE_MERGED", "")
	t.Setenv("MNEMO_MEASURE_DIR", "")
	m := retainMeasured(t, "beam-dev", path, "")
	p := recall.New(m.store, hashembed.New(hashembed.DefaultDimension), extract.ResolveTimeRange)
	var scores []bench.QueryScore
	for _, c := range m.data.Conversations {
		for _, q := range c.Queries {
			if !q.Evaluated {
				continue
			}
			rec, err := p.Recall(context.Background(), memory.Query{BankID: c.ID, Text: q.Question, Limit: bench.DefaultLoCoMoLimit, Now: c.Now})
			if err != nil {
				t.Fatal(err)
			}
			scores = append(scores, bench.ScoreQuery(bench.RankedRefs(rec), q.Gold))
		}
	}
	g := bench.Mean(scores)
	if g.N != 179 {
		t.Errorf("%d evaluated questions, want 179", g.N)
	}
	for _, c := range []struct {
		name       string
		got, floor float64
	}{
		{"recall@10", g.Recall10, 0.550},
		{"MRR", g.MRR, 0.506},
		{"recall@5", g.Recall5, 0.462},
	} {
		if c.got < c.floor {
			t.Errorf("%s = %.4f, below %.3f", c.name, c.got, c.floor)
		}
	}
	t.Logf("recall@5 %.4f, recall@10 %.4f, MRR %.4f", g.Recall5, g.Recall10, g.MRR)
}
