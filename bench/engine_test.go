package bench

import (
	"context"
	"slices"
	"strings"

	okapi "github.com/mnemo-ai/mnemo/internal/bm25"
	"github.com/mnemo-ai/mnemo/memory"
)

// fakeEngine is an in-memory Engine for tests: one fact per message (or per
// plain-text item), ranked by the protocol's BM25-ref-stop baseline over
// "<speaker>: <text>", ties by ingestion order. It records every call.
type fakeEngine struct {
	banks   map[string]*fakeBank
	retains []memory.RetainRequest
	queries []memory.Query
}

type fakeBank struct {
	facts []*memory.Fact
	items map[string]bool
	index *bm25 // nil when facts changed since it was built
}

var _ Engine = (*fakeEngine)(nil)

func newFakeEngine() *fakeEngine {
	return &fakeEngine{banks: make(map[string]*fakeBank)}
}

func (e *fakeEngine) CreateBank(ctx context.Context, name string) (*memory.Bank, error) {
	if err := memory.ValidateBankName(name); err != nil {
		return nil, err
	}
	if _, ok := e.banks[name]; ok {
		return nil, memory.Errorf(memory.ECONFLICT, "bank %q exists", name)
	}
	e.banks[name] = &fakeBank{items: make(map[string]bool)}
	return &memory.Bank{ID: name, Name: name}, nil
}

func (e *fakeEngine) Retain(ctx context.Context, req memory.RetainRequest) (*memory.RetainResult, error) {
	b, ok := e.banks[req.BankID]
	if !ok {
		return nil, memory.Errorf(memory.ENOTFOUND, "bank %q", req.BankID)
	}
	e.retains = append(e.retains, req)
	if b.items[req.ItemID] {
		return &memory.RetainResult{DocumentID: req.ItemID, Duplicate: true}, nil
	}
	b.items[req.ItemID] = true
	before := len(b.facts)
	add := func(ref, speaker, text string) {
		b.facts = append(b.facts, &memory.Fact{
			ID:        req.ItemID + "#" + ref,
			BankID:    req.BankID,
			SourceRef: ref,
			Seq:       int64(len(b.facts) + 1),
			Speaker:   speaker,
			Text:      text,
		})
	}
	if req.Text != "" {
		add("", req.Speaker, req.Text)
	}
	for _, m := range req.Messages {
		add(m.ID, m.Speaker, m.Text)
	}
	b.index = nil
	return &memory.RetainResult{DocumentID: req.ItemID, Facts: len(b.facts) - before}, nil
}

func (e *fakeEngine) Recall(ctx context.Context, q memory.Query) (*memory.Recollection, error) {
	b, ok := e.banks[q.BankID]
	if !ok {
		return nil, memory.Errorf(memory.ENOTFOUND, "bank %q", q.BankID)
	}
	e.queries = append(e.queries, q)
	if b.index == nil {
		docs := make([][]string, len(b.facts))
		for i, f := range b.facts {
			docs[i] = tokStop(f.Body())
		}
		b.index = newBM25(docs)
	}
	limit := q.Limit
	if limit == 0 {
		limit = memory.DefaultRecallLimit
	}
	order, scores := b.index.rank(tokStop(q.Text))
	rec := &memory.Recollection{}
	for _, i := range order[:min(limit, len(order))] {
		rec.Results = append(rec.Results, memory.Result{Fact: b.facts[i], Score: scores[i]})
	}
	return rec, nil
}

// stop127 is the protocol's STOP127 list (PROTOCOL §2.1).
var stop127 = func() map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(`
i me my myself we our ours ourselves you your yours yourself yourselves he him his himself
she her hers herself it its itself they them their theirs themselves what which who whom this
that these those am is are was were be been being have has had having do does did doing a an
the and but if or because as until while of at by for with about against between into through
during before after above below to from up down in out on off over under again further then
once here there when where why how all any both each few more most other some such no nor not
only own same so than too very s t can will just don should now`) {
		m[w] = true
	}
	return m
}()

// tokStop is the protocol's TOK_STOP: ASCII lower-casing, maximal runs of
// [a-z0-9], STOP127 removed.
func tokStop(s string) []string {
	var out []string
	start := -1
	flush := func(end int) {
		if start >= 0 {
			if t := strings.ToLower(s[start:end]); !stop127[t] {
				out = append(out, t)
			}
			start = -1
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(s))
	return out
}

// bm25 is the protocol's BM25-ref (PROTOCOL §2.2): k1 = 1.2, b = 0.75,
// Lucene IDF, query tokens summed in order with repeats.
type bm25 struct {
	tfs   []map[string]int
	lens  []int
	avgdl float64
	idf   map[string]float64
}

func newBM25(docs [][]string) *bm25 {
	b := &bm25{idf: make(map[string]float64)}
	df := make(map[string]int)
	total := 0
	for _, d := range docs {
		tf := make(map[string]int)
		for _, t := range d {
			tf[t]++
		}
		for t := range tf {
			df[t]++
		}
		b.tfs = append(b.tfs, tf)
		b.lens = append(b.lens, len(d))
		total += len(d)
	}
	n := float64(len(docs))
	if len(docs) > 0 {
		b.avgdl = float64(total) / n
	}
	for t, c := range df {
		b.idf[t] = okapi.IDF(n, float64(c))
	}
	return b
}

// rank returns every document index, best first, and the scores.
func (b *bm25) rank(q []string) ([]int, []float64) {
	scores := make([]float64, len(b.tfs))
	for i, tf := range b.tfs {
		norm := okapi.Norm(float64(b.lens[i]), b.avgdl)
		var s float64
		for _, t := range q {
			if f := float64(tf[t]); f > 0 {
				s += okapi.Term(b.idf[t], f, norm)
			}
		}
		scores[i] = s
	}
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		switch {
		case scores[x] > scores[y]:
			return -1
		case scores[x] < scores[y]:
			return 1
		}
		return 0
	})
	return order, scores
}
