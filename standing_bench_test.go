package mnemo

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// BenchmarkRecall_Standing measures what the standing-answer check adds
// to a recall: recall's pipeline alone, then Engine.Recall on banks with
// no pinned question, with 100 (none of them the query), and with the
// query pinned and freshly answered (the answer served first). Each bank
// holds the same 500 facts. The metrics are the medians of each, in µs.
//
//	go test -run '^$' -bench Recall_Standing -benchtime 500x .
func BenchmarkRecall_Standing(b *testing.B) {
	ctx := context.Background()
	e, err := Open(ctx, Config{DB: filepath.Join(b.TempDir(), "m.db"), AccessFlush: -1, JobPoll: -1, SessionIdle: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	const query = "Where does Sam's manager live?"
	var evidence string
	for _, bank := range []string{"none", "pinned", "served"} {
		if _, err := e.CreateBank(ctx, bank); err != nil {
			b.Fatal(err)
		}
		var reqs []memory.RetainRequest
		for i := range 500 {
			reqs = append(reqs, memory.RetainRequest{BankID: bank, Text: fmt.Sprintf("Person %d moved to city %d and works on project %d with manager %d.", i, i%37, i%11, i%5)})
		}
		reqs = append(reqs, memory.RetainRequest{BankID: bank, Text: "Sam's manager Priya lives in Porto."})
		if _, errs := e.RetainMany(ctx, reqs); errs != nil {
			for _, err := range errs {
				if err != nil {
					b.Fatal(err)
				}
			}
		}
		if bank == "none" {
			continue
		}
		for i := range 99 {
			if _, err := e.PinQuestion(ctx, bank, fmt.Sprintf("What is pinned question number %d?", i)); err != nil {
				b.Fatal(err)
			}
		}
		q, err := e.PinQuestion(ctx, bank, query)
		if err != nil {
			b.Fatal(err)
		}
		if bank == "served" {
			rec, err := e.recall.Recall(ctx, memory.Query{BankID: bank, Text: query})
			if err != nil || len(rec.Results) == 0 {
				b.Fatalf("recall: %v", err)
			}
			evidence = rec.Results[0].Fact.ID
			if err := e.store.SetStandingAnswer(ctx, bank, q.ID, "In Porto.", []string{evidence}, e.now().Add(time.Hour)); err != nil {
				b.Fatal(err)
			}
		} else {
			// Pinned, but asked with other words: not served.
			if _, err := e.UnpinQuestion(ctx, bank, q.ID); err != nil {
				b.Fatal(err)
			}
		}
	}
	if rec, err := e.Recall(ctx, memory.Query{BankID: "served", Text: query}); err != nil || rec.Standing == nil {
		b.Fatalf("the served bank serves no standing answer: %v", err)
	}
	// The four are interleaved, call by call, so that a noisy machine
	// slows them alike; each reports its median.
	variants := []struct {
		name string
		fn   func() error
	}{
		{"pipeline", func() error { _, err := e.recall.Recall(ctx, memory.Query{BankID: "none", Text: query}); return err }},
		// Engine.Recall as it was before the standing check: the bank's
		// check and the pipeline.
		{"unhooked", func() error {
			if err := e.whole(ctx, "none"); err != nil {
				return err
			}
			_, err := e.recall.Recall(ctx, memory.Query{BankID: "none", Text: query})
			return err
		}},
		{"none", func() error { _, err := e.Recall(ctx, memory.Query{BankID: "none", Text: query}); return err }},
		{"pinned", func() error { _, err := e.Recall(ctx, memory.Query{BankID: "pinned", Text: query}); return err }},
		{"served", func() error { _, err := e.Recall(ctx, memory.Query{BankID: "served", Text: query}); return err }},
	}
	took := make([][]time.Duration, len(variants))
	n := 0
	for b.Loop() {
		for k := range variants {
			v := (k + n) % len(variants)
			start := time.Now()
			if err := variants[v].fn(); err != nil {
				b.Fatal(err)
			}
			took[v] = append(took[v], time.Since(start))
		}
		n++
	}
	for v, ds := range took {
		slices.Sort(ds)
		b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "µs-median-"+variants[v].name)
	}
}
