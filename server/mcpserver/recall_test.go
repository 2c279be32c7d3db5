package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// seedTrips retains n facts about trips, one item each.
func seedTrips(t *testing.T, cs *mcp.ClientSession, n int) {
	t.Helper()
	cities := []string{"Lisbon", "Porto", "Madrid", "Seville", "Rome", "Milan", "Paris", "Lyon", "Berlin", "Munich", "Vienna", "Prague"}
	for i := range n {
		retain(t, cs, map[string]any{"text": fmt.Sprintf("Alice travelled to %s for trip number %d with her friend %s.", cities[i%len(cities)], i, []string{"Bob", "Carol", "Dan"}[i%3])})
	}
}

// measuredTokens is what a tool result puts in front of a model: its
// text content and its structured content, at four bytes a token.
func measuredTokens(t *testing.T, res *mcp.CallToolResult) int {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return (len(text(res)) + len(b) + 3) / 4
}

func TestServer_RecallPages(t *testing.T) {
	eng := openEngine(t)
	cs := connect(t, mcpserver.New(eng, mcpserver.Options{}), nil)
	seedTrips(t, cs, 24)
	const query = "Where did Alice travel?"
	want, err := eng.Recall(t.Context(), memory.Query{Text: query, Limit: 100, Budget: 100000})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Results) < 12 {
		t.Fatalf("the engine recalls %d trips, too few to page through", len(want.Results))
	}
	var wantIDs []string
	for _, r := range want.Results {
		wantIDs = append(wantIDs, r.Fact.ID)
	}

	var got []string
	offset, pages := 0, 0
	for {
		res, page := recall(t, cs, map[string]any{"query": query, "limit": 5, "offset": offset, "budget": 8000})
		pages++
		if page.Offset != offset || len(page.Results) == 0 || len(page.Results) > 5 {
			t.Fatalf("page at %d: offset %d, %d results", offset, page.Offset, len(page.Results))
		}
		for _, r := range page.Results {
			got = append(got, r.ID)
		}
		if page.NextOffset == 0 {
			if strings.Contains(text(res), "offset=") {
				t.Errorf("last page's text invites another page: %q", text(res))
			}
			break
		}
		if page.NextOffset != offset+len(page.Results) {
			t.Fatalf("next_offset %d after %d results from %d", page.NextOffset, len(page.Results), offset)
		}
		if !strings.Contains(text(res), fmt.Sprintf("offset=%d", page.NextOffset)) {
			t.Errorf("text does not say how to read on: %q", text(res))
		}
		offset = page.NextOffset
		if pages > 50 {
			t.Fatal("paging does not end")
		}
	}
	if !slices.Equal(got, wantIDs) {
		t.Errorf("paged ids (%d) = %v,\nwant the engine's ranking (%d) %v", len(got), got, len(wantIDs), wantIDs)
	}
}

func TestServer_RecallBudget(t *testing.T) {
	cs := connect(t, mcpserver.New(openEngine(t), mcpserver.Options{}), nil)
	seedTrips(t, cs, 24)
	for _, budget := range []int{mcpserver.MinRecallBudget, 400, 1000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			var seen []string
			offset := 0
			for range 100 {
				res, page := recall(t, cs, map[string]any{"query": "Alice trip", "limit": 50, "budget": budget, "offset": offset})
				if got := measuredTokens(t, res); got > budget {
					t.Errorf("page at %d takes %d tokens, budget %d", offset, got, budget)
				}
				if page.Tokens > budget {
					t.Errorf("page reports %d tokens, budget %d", page.Tokens, budget)
				}
				for _, r := range page.Results {
					seen = append(seen, r.ID)
				}
				if page.NextOffset == 0 {
					break
				}
				offset = page.NextOffset
			}
			if len(seen) < 20 {
				t.Errorf("pages under budget %d gave %d results in all, want every trip", budget, len(seen))
			}
			slices.Sort(seen)
			if len(slices.Compact(seen)) != len(seen) {
				t.Errorf("a result came back on two pages")
			}
		})
	}
}

func TestServer_RecallClipsLongFact(t *testing.T) {
	cs := connect(t, mcpserver.New(openEngine(t), mcpserver.Options{}), nil)
	long := "Zeno keeps a diary about the lighthouse" + strings.Repeat(" and the lighthouse keeper", 150) + "."
	retain(t, cs, map[string]any{"text": long})
	res, page := recall(t, cs, map[string]any{"query": "Zeno lighthouse diary", "budget": mcpserver.MinRecallBudget})
	if len(page.Results) != 1 {
		t.Fatalf("got %d results, want the one long fact", len(page.Results))
	}
	if r := page.Results[0].Text; !strings.HasSuffix(r, "…") || !strings.HasPrefix(r, "Zeno keeps") {
		t.Errorf("long fact not clipped: %q", r)
	}
	if got := measuredTokens(t, res); got > mcpserver.MinRecallBudget {
		t.Errorf("clipped page takes %d tokens, budget %d", got, mcpserver.MinRecallBudget)
	}
}

func TestServer_RecallTags(t *testing.T) {
	cs := connect(t, mcpserver.New(openEngine(t), mcpserver.Options{}), nil)
	retain(t, cs, map[string]any{"text": "Ivan reviews the budget on Mondays.", "tags": []string{"work"}})
	retain(t, cs, map[string]any{"text": "Ivan plays chess on Mondays.", "tags": []string{"home"}})
	_, all := recall(t, cs, map[string]any{"query": "What does Ivan do on Mondays?"})
	if len(all.Results) != 2 {
		t.Fatalf("untagged recall gave %d results, want both", len(all.Results))
	}
	_, work := recall(t, cs, map[string]any{"query": "What does Ivan do on Mondays?", "tags": []string{"work"}})
	if len(work.Results) != 1 || !strings.Contains(work.Results[0].Text, "budget") {
		t.Errorf("recall tagged work = %+v, want the budget fact only", work.Results)
	}
}
