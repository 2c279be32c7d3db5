package recall_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/recall"
)

// lengthReranker scores a document by its length, or fails.
type lengthReranker struct {
	err   error
	calls int
	docs  int
}

func (r *lengthReranker) Name() string { return "length" }

func (r *lengthReranker) Rerank(_ context.Context, query string, docs []string) ([]float64, error) {
	r.calls++
	r.docs = len(docs)
	if r.err != nil {
		return nil, r.err
	}
	out := make([]float64, len(docs))
	for i, d := range docs {
		out[i] = float64(len(d))
	}
	return out, nil
}

// TestPipeline_Recall_Rerank: a reranker reorders the fused head by its
// scores (and explains them); when it fails, the fused order stands.
func TestPipeline_Recall_Rerank(t *testing.T) {
	b := newBank(t)
	b.p.RerankCoverage = -1 // the fused order, without the fallback
	q := memory.Query{Text: "Alice Caroline Melanie", Limit: 5}
	fused := resultIDs(b.recall(q).Results)
	if len(fused) < 3 {
		t.Fatalf("fused: %d results, want at least 3", len(fused))
	}

	r := &lengthReranker{}
	b.p.Reranker, b.p.RerankDepth = r, 3
	q.Explain = true
	rec := b.recall(q)
	got := resultIDs(rec.Results)
	if r.calls != 1 || r.docs != 3 {
		t.Fatalf("reranker: %d calls of %d documents, want 1 of 3 (RerankDepth)", r.calls, r.docs)
	}
	head := rec.Results[:3]
	if !slices.IsSortedFunc(head, func(x, y memory.Result) int {
		return len(y.Fact.Text) + len(y.Fact.Speaker) - len(x.Fact.Text) - len(x.Fact.Speaker)
	}) {
		t.Errorf("head not ordered by the reranker's scores: %q", resultTexts(head))
	}
	if !sameSet(got[:3], fused[:3]) || !slices.Equal(got[3:], fused[3:]) {
		t.Errorf("reranked %v, fused %v: want the same head reordered and the same tail", got, fused)
	}
	if e, ok := rec.Results[0].Explain["rerank"]; !ok || e.Rank != 1 {
		t.Errorf("explain: %v, want the rerank rank", rec.Results[0].Explain)
	}

	b.p.Reranker = &lengthReranker{err: errors.New("cross-encoder down")}
	q.Explain = false
	if got := resultIDs(b.recall(q).Results); !slices.Equal(got, fused) {
		t.Errorf("with a failing reranker: %v, want the fused order %v", got, fused)
	}
}

// TestPipeline_Recall_Coverage: without a cross-encoder, the fallback
// multiplies the head's scores by 1 + RerankCoverage·C, C the IDF-weighted
// share of the query's terms a fact covers; a fact holding them all
// covers 1. Off (zero) or with a cross-encoder, it explains nothing.
func TestPipeline_Recall_Coverage(t *testing.T) {
	b := newBank(t)
	q := memory.Query{Text: "Who adopted a golden retriever?", Explain: true}
	rec := b.recall(q)
	top := rec.Results[0]
	if !strings.HasPrefix(top.Fact.Text, "I adopted a golden retriever") {
		t.Fatalf("top result %q, want the golden retriever", top.Fact.Text)
	}
	if c, ok := top.Explain[recall.StrategyCoverage]; !ok || c.Rank != 1 || math.Abs(c.Score-1) > 1e-9 {
		t.Errorf("top result's coverage %+v (explained %v), want rank 1, score 1", c, ok)
	}
	for _, r := range rec.Results {
		if c, ok := r.Explain[recall.StrategyCoverage]; ok && (c.Score < 0 || c.Score > 1) {
			t.Errorf("%q: coverage %g, want it in [0, 1]", r.Fact.Text, c.Score)
		}
	}

	b.p.RerankCoverage = -1
	for _, r := range b.recall(q).Results {
		if _, ok := r.Explain[recall.StrategyCoverage]; ok {
			t.Errorf("%q: coverage explained with RerankCoverage off (-1)", r.Fact.Text)
		}
	}
	b.p.RerankCoverage = recall.DefaultRerankCoverage
	b.p.Reranker = &lengthReranker{}
	for _, r := range b.recall(q).Results {
		if _, ok := r.Explain[recall.StrategyCoverage]; ok {
			t.Errorf("%q: coverage explained beside a cross-encoder", r.Fact.Text)
		}
	}
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}
