package extract_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/bench"
	"github.com/mnemo-ai/mnemo/extract"
)

// BenchmarkHeuristic_ExtractSynthetic extracts the documents of a
// generated synthetic bank (the texts `mnemo bench synthetic` ingests) on
// one goroutine and reports facts/s.
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

// BenchmarkResolveTimeRange_Forms times ResolveTimeRange on sentences
// holding each common date form, named by their last words.
func BenchmarkResolveTimeRange_Forms(b *testing.B) {
	ref := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	for _, text := range []string{
		"Alice Kowalski moved to Lisbon in March 2021 to work at Northwind.",
		"I met Alice Kowalski at the Northwind office in Lisbon on 12 May 2022.",
		"We met on May 12th at the park.",
		"The invoice was dated 2023-05-08 in our system.",
		"I adopted my dog in 2019 and she has been great ever since.",
		"I started running in June with my sister.",
		"Alice went hiking in Porto two days ago.",
		"We should visit Porto with Bob on Saturday.",
		"Alice ran the Lisbon marathon in March 2021 in 3 hours 5 minutes.",
		"Alice and Bob went hiking in Porto last weekend.",
		"I'm keen on counseling or working in mental health to support those.",
		"My flight is on 12/05/2023, the day after.",
	} {
		w := strings.Fields(strings.TrimRight(text, "."))
		b.Run(w[len(w)-2]+"_"+w[len(w)-1], func(b *testing.B) {
			for b.Loop() {
				extract.ResolveTimeRange(text, ref)
			}
		})
	}
}
