package extract_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/bench"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/importer"
	"github.com/mnemo-ai/mnemo/memory"
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

// BenchmarkHeuristic_BEAMSessions extracts the sessions of BEAM dev
// (../shared/data/beam-dev.json: long user ↔ assistant turns, code,
// lists) as an import does, on one goroutine, and reports MB/s of text.
// It skips without the shared data.
func BenchmarkHeuristic_BEAMSessions(b *testing.B) {
	const path = "../../shared/data/beam-dev.json"
	if _, err := os.Stat(path); err != nil {
		b.Skip("no BEAM dev data at", path)
	}
	d, err := importer.LoadLoCoMo(path)
	if err != nil {
		b.Fatal(err)
	}
	var reqs []memory.RetainRequest
	text := 0
	for _, c := range d.Conversations {
		for _, r := range c.RetainRequests(c.ID) {
			reqs = append(reqs, r)
			text += r.TextBytes()
		}
	}
	h := extract.NewHeuristic()
	ctx := context.Background()
	for b.Loop() {
		for _, r := range reqs {
			if _, err := h.Extract(ctx, extract.Input{Messages: r.Messages, At: r.At}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(text)*float64(b.N)/1e6/b.Elapsed().Seconds(), "MB/s")
}
