package bench_test

import (
	"fmt"

	"github.com/mnemo-ai/mnemo/bench"
)

func ExampleScoreQuery() {
	// A run lists memory ids best first; the repeat of "conv-26/D1:3" is
	// dropped before scoring.
	ranked := []string{"conv-26/D1:3", "conv-26/D2:7", "conv-26/D1:3", "conv-26/D4:1"}
	gold := []string{"conv-26/D4:1", "conv-26/D9:2"}
	s := bench.ScoreQuery(ranked, gold)
	fmt.Printf("recall@5 %.2f hit@10 %.0f mrr %.4f\n", s.Recall5, s.Hit10, s.MRR)
	// Output:
	// recall@5 0.50 hit@10 1 mrr 0.3333
}

func ExampleGenerateSynthetic() {
	reqs := bench.GenerateSynthetic(45, 1)
	fmt.Println(len(reqs), "documents")
	for _, r := range reqs {
		fmt.Println(r.ItemID, len(r.Messages), "messages")
	}
	// Output:
	// 3 documents
	// synthetic/1/0 20 messages
	// synthetic/1/1 20 messages
	// synthetic/1/2 5 messages
}
