package recall_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
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

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}
