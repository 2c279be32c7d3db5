package mnemo_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/importer"
	"github.com/mnemo-ai/mnemo/memory"
)

// mergeBands are the cosine thresholds the near-exact measurement counts
// pairs at.
var mergeBands = []float64{0.99, 0.98, 0.97, 0.95, 0.93, 0.90}

// TestMeasureNearExact measures where the near-exact fact merge may
// draw its line (docs/consolidation.md, "Fact merge"): it retains the
// LoCoMo and BEAM dev sets offline, as `mnemo bench locomo` does, and
// for each active fact finds its nearest neighbour of the same speaker
// through the vector index. It prints the pairs per cosine band — all of
// them, those that are not exact duplicates (memory.FactDuplicateKey),
// and of these the ones consolidate.NearExact lets through — with
// a sample of the latter per band, to be read by a person. It asserts
// nothing: it is a measurement, run with
//
//	MNEMO_MEASURE=1 go test -run TestMeasureNearExact -v .
//
// and skipped without the data or the variable.
func TestMeasureNearExact(t *testing.T) {
	if os.Getenv("MNEMO_MEASURE") == "" {
		t.Skip("a measurement: set MNEMO_MEASURE=1 to run it")
	}
	for _, name := range []string{"locomo-dev.json", "beam-dev.json"} {
		path := filepath.Join("..", "shared", "data", name)
		if _, err := os.Stat(path); err != nil {
			t.Skipf("no %s: %v", path, err)
		}
		t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) { measureNearExact(t, path) })
	}
}

type measuredPair struct {
	a, b  *memory.Fact
	score float64
}

func measureNearExact(t *testing.T, path string) {
	ctx := context.Background()
	ds, err := importer.LoadLoCoMo(path)
	if err != nil {
		t.Fatal(err)
	}
	eng := openEngine(t, filepath.Join(t.TempDir(), "m.db"))
	st := mnemo.StoreOf(eng)
	var pairs []measuredPair
	facts := 0
	for _, c := range ds.Conversations {
		if _, err := eng.CreateBank(ctx, c.ID); err != nil {
			t.Fatal(err)
		}
		for _, req := range c.RetainRequests(c.ID) {
			if _, err := eng.Retain(ctx, req); err != nil {
				t.Fatal(err)
			}
		}
		seen := map[memory.FactPair]bool{}
		q := memory.FactQuery{Statuses: []memory.Status{memory.StatusActive}, Limit: memory.MaxPageSize}
		for {
			page, err := st.ListFacts(ctx, c.ID, q)
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]string, len(page.Facts))
			for i, f := range page.Facts {
				ids[i] = f.ID
			}
			vecs, err := st.FactEmbeddings(ctx, c.ID, ids)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range page.Facts {
				facts++
				hits, err := st.SearchVector(ctx, c.ID, vecs[f.ID], consolidate.DefaultMergeNeighbours+1, memory.Filter{})
				if err != nil {
					t.Fatal(err)
				}
				var hids []string
				for _, h := range hits {
					hids = append(hids, h.ID)
				}
				hfs, err := st.Facts(ctx, c.ID, hids)
				if err != nil {
					t.Fatal(err)
				}
				for i, h := range hfs {
					if h.ID == f.ID || !strings.EqualFold(h.Speaker, f.Speaker) {
						continue
					}
					p := memory.NewFactPair(f.ID, h.ID)
					if !seen[p] {
						seen[p] = true
						pairs = append(pairs, measuredPair{f, h, hits[slices.IndexFunc(hits, func(x memory.Hit) bool { return x.ID == hfs[i].ID })].Score})
					}
					break // the nearest of the same speaker only
				}
			}
			if page.Next == "" {
				break
			}
			q.Cursor = page.Next
		}
	}
	t.Logf("%s: %d active facts, %d nearest same-speaker pairs", filepath.Base(path), facts, len(pairs))
	slices.SortFunc(pairs, func(x, y measuredPair) int { return cmp.Compare(y.score, x.score) })
	t.Logf("%-8s %8s %10s %12s", "cosine≥", "pairs", "not exact", "near-exact")
	for _, band := range mergeBands {
		all, notExact, guarded := 0, 0, 0
		for _, p := range pairs {
			if p.score < band {
				continue
			}
			all++
			if memory.FactDuplicateKey(p.a) == memory.FactDuplicateKey(p.b) {
				continue
			}
			notExact++
			if consolidate.NearExact(p.a, p.b) {
				guarded++
			}
		}
		t.Logf("%-8.2f %8d %10d %12d", band, all, notExact, guarded)
	}
	hi := 1.01
	for _, band := range mergeBands {
		var b strings.Builder
		n := 0
		for _, p := range pairs {
			if p.score < band || p.score >= hi || memory.FactDuplicateKey(p.a) == memory.FactDuplicateKey(p.b) {
				continue
			}
			pass := consolidate.NearExact(p.a, p.b)
			if n < 12 {
				verdict := "blocked"
				if pass {
					verdict = "PASSES"
				}
				fmt.Fprintf(&b, "\n  %.4f guard %s\n    [%s %s] %q\n    [%s %s] %q", p.score, verdict,
					p.a.Speaker, p.a.EventTime().Format("2006-01-02"), p.a.Text, p.b.Speaker, p.b.EventTime().Format("2006-01-02"), p.b.Text)
			}
			n++
		}
		t.Logf("band [%.2f, %.2f): %d pairs not exact; sample:%s", band, min(hi, 1), n, b.String())
		hi = band
	}
}
