package storetest

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/mnemo-ai/mnemo/memory"
)

// Writers retaining distinct documents into one bank (and another bank)
// while readers search it lose nothing: every fact is stored once, with a
// Seq of its own.
func testConcurrencyWriteAndSearch(e *env) {
	const (
		writers       = 8
		docsPerWriter = 6
		factsPerDoc   = 5
		otherWriters  = 2
		readers       = 4
	)
	e.newBank("b")
	e.newBank("c")
	var (
		mu      sync.Mutex
		batches = map[string][]*memory.WriteBatch{}
		writing sync.WaitGroup
		reading sync.WaitGroup
		done    atomic.Bool
	)
	write := func(bank string, writer int) {
		for d := range docsPerWriter {
			docID := fmt.Sprintf("w%d-d%d", writer, d)
			var texts []string
			for f := range factsPerDoc {
				texts = append(texts, fmt.Sprintf("concurrent writer %d document %d fact %d", writer, d, f))
			}
			w := NewTestBatch(bank, docID, texts...)
			res, err := e.s.Write(e.ctx, cloneBatch(w))
			if err != nil {
				e.t.Errorf("Write(%s, %s): %v", bank, docID, err)
				return
			}
			if res.Duplicate || res.Replaced || res.Facts != factsPerDoc {
				e.t.Errorf("Write(%s, %s): got %+v, want %d new facts", bank, docID, *res, factsPerDoc)
			}
			mu.Lock()
			batches[bank] = append(batches[bank], w)
			mu.Unlock()
		}
	}
	for i := range writers {
		writing.Go(func() { write("b", i) })
	}
	for i := range otherWriters {
		writing.Go(func() { write("c", i) })
	}
	for r := range readers {
		reading.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(r), 3))
			for !done.Load() {
				if _, err := e.s.SearchText(e.ctx, "b", []string{"concurrent", "writer"}, 50, memory.Filter{}); err != nil {
					e.t.Errorf("SearchText during writes: %v", err)
					return
				}
				if _, err := e.s.SearchVector(e.ctx, "b", randomUnit(rng, TestDimension), 10, memory.Filter{}); err != nil {
					e.t.Errorf("SearchVector during writes: %v", err)
					return
				}
				if _, err := e.s.Facts(e.ctx, "b", []string{TestFactID(fmt.Sprintf("w%d-d0", r), 0)}); err != nil {
					e.t.Errorf("Facts during writes: %v", err)
					return
				}
				if _, err := e.s.Stats(e.ctx, "b"); err != nil {
					e.t.Errorf("Stats during writes: %v", err)
					return
				}
			}
		})
	}
	writing.Wait()
	done.Store(true)
	reading.Wait()
	if e.t.Failed() {
		return
	}

	for bank, n := range map[string]int{"b": writers, "c": otherWriters} {
		docs := n * docsPerWriter
		facts := docs * factsPerDoc
		want := memory.Stats{Documents: docs, Chunks: facts, Facts: facts, Active: facts}
		if got := e.stats(bank); got != want {
			e.t.Errorf("Stats(%s): got %+v, want %+v", bank, got, want)
		}
		var ids []string
		seqs := map[int64]string{}
		for _, w := range batches[bank] {
			got := e.facts(bank, batchIDs(w)...)
			checkIDs(e.t, "Facts("+bank+", "+w.Document.ID+")", factIDs(got), batchIDs(w))
			for i, f := range got {
				checkFact(e.t, f, w.Facts[i])
				if other, ok := seqs[f.Seq]; ok || f.Seq < 1 {
					e.t.Errorf("fact %s of %s: got Seq %d, also the Seq of %q; want a distinct positive Seq", f.ID, bank, f.Seq, other)
				}
				seqs[f.Seq] = f.ID
				if i > 0 && f.Seq <= got[i-1].Seq {
					e.t.Errorf("fact %s of %s: got Seq %d, want above %d (batch order)", f.ID, bank, f.Seq, got[i-1].Seq)
				}
			}
			ids = append(ids, batchIDs(w)...)
		}
		checkIDSet(e.t, "SearchText("+bank+", concurrent)", hitIDs(e.searchText(bank, 1000, memory.Filter{}, "concurrent")), ids)
		hits := e.searchVector(bank, TestVector("concurrent", TestDimension), 1000, memory.Filter{})
		checkIDSet(e.t, "SearchVector("+bank+", k 1000)", hitIDs(hits), ids)
	}
}
