package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// recollection is a recall's answer with n observations and m facts,
// each about words words long.
func recollection(n, m, words int) *memory.Recollection {
	rec := &memory.Recollection{}
	for i := range n {
		rec.Observations = append(rec.Observations, memory.ObservationResult{Score: 1,
			Observation: &memory.Observation{ID: fmt.Sprintf("o%d", i), Kind: memory.ObservationPattern, Text: strings.Repeat("pattern ", words)}})
	}
	for i := range m {
		rec.Results = append(rec.Results, memory.Result{Score: 0.5,
			Fact: &memory.Fact{ID: fmt.Sprintf("f%d", i), Status: memory.StatusActive, Text: fmt.Sprintf("fact %d ", i) + strings.Repeat("word ", words)}})
	}
	return rec
}

// pageTokens is what a page puts in front of a model, as the tool sends
// it: its text content and its structured content.
func pageTokens(t *testing.T, bank string, rec *memory.Recollection, offset, limit, budget int) (int, int, int) {
	t.Helper()
	page, lines := paginate(bank, rec, offset, limit, budget)
	b, err := json.Marshal(page)
	if err != nil {
		t.Fatal(err)
	}
	return countTokens(recallText(page, lines) + string(b)), len(page.Results), len(page.Observations)
}

func TestPaginate(t *testing.T) {
	for _, c := range []struct {
		name               string
		obs, facts, words  int
		budget             int
		wantFacts, wantObs bool
	}{
		{"Small", 2, 5, 5, DefaultRecallBudget, true, true},
		{"ObservationsCrowd", 40, 5, 3, MinRecallBudget + 100, true, true},
		{"LongFacts", 0, 20, 300, MinRecallBudget, true, false},
		{"LongObservations", 3, 3, 400, 400, true, false},
		{"Many", 10, 50, 12, MaxRecallBudget, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := recollection(c.obs, c.facts, c.words)
			got, facts, obs := pageTokens(t, "default", rec, 0, MaxRecallLimit, c.budget)
			if got > c.budget {
				t.Errorf("page takes %d tokens, budget %d", got, c.budget)
			}
			if (facts > 0) != c.wantFacts || (obs > 0) != c.wantObs {
				t.Errorf("page has %d facts and %d observations", facts, obs)
			}
		})
	}
}
