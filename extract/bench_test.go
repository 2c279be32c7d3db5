package extract_test

import (
	"context"
	"testing"

	"github.com/mnemo-ai/mnemo/bench"
	"github.com/mnemo-ai/mnemo/extract"
)

// BenchmarkHeuristic_ExtractSynthetic extracts the documents of a
// generated synthetic bank (the texts `mnemo bench synthetic` ingests) and
// reports facts/s on one goroutine.
func BenchmarkHeuristic_ExtractSynthetic(b *testing.B) {
	reqs := bench.GenerateSynthetic(2000, 1)
	h := extract.NewHeuristic()
	ctx := context.Background()
	facts := 0
	for b.Loop() {
		for _, r := range reqs {
			res, err := h.Extract(ctx, extract.Input{Messages: r.Messages, At: r.At})
			if err != nil {
				b.Fatal(err)
			}
			facts += len(res.Facts)
		}
	}
	b.ReportMetric(float64(facts)/b.Elapsed().Seconds(), "facts/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(facts), "ns/fact")
}
