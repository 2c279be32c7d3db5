package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The retain and remember tools take short_term: the facts are
// short-term memory, and recall's page and text say so.
func TestServer_RetainShortTerm(t *testing.T) {
	eng := openEngine(t)
	cs := connect(t, mcpserver.New(eng, mcpserver.Options{}), nil)
	out := retain(t, cs, map[string]any{"text": "The user is at the airport until six.", "short_term": true})
	if !out.Stored || out.Result == nil || out.Result.Facts != 1 || !strings.Contains(out.Message, "short-term") {
		t.Fatalf("retain short_term = %+v, want one fact stored as short-term", out)
	}
	res := call(t, cs, "remember", map[string]any{"text": "The user's gate is B12.", "short_term": true})
	if res.IsError {
		t.Fatalf("remember short_term: %s", text(res))
	}
	retain(t, cs, map[string]any{"text": "The user flies home to Oslo."})

	page, err := eng.Facts(t.Context(), "", memory.FactQuery{})
	if err != nil || len(page.Facts) != 3 {
		t.Fatalf("facts: %v, %v", page, err)
	}
	for _, f := range page.Facts {
		if want := f.Text != "The user flies home to Oslo."; f.ShortTerm() != want {
			t.Errorf("%q: short-term %v, want %v", f.Text, f.ShortTerm(), want)
		}
	}

	res, rp := recall(t, cs, map[string]any{"query": "the user airport gate flies"})
	if len(rp.Results) != 3 {
		t.Fatalf("recall: %d results, want 3", len(rp.Results))
	}
	for _, r := range rp.Results {
		want := memory.TierShortTerm
		if r.Text == "The user flies home to Oslo." {
			want = memory.TierLongTerm
		}
		if r.Tier != want {
			t.Errorf("recall %q: tier %q, want %q", r.Text, r.Tier, want)
		}
	}
	if s := text(res); !strings.Contains(s, "The user is at the airport until six. (short-term)") || strings.Contains(s, "Oslo. (short-term)") {
		t.Errorf("recall text: want the short-term facts marked alone:\n%s", s)
	}
}

// With approval required, the user is told the memory is short-term.
func TestServer_RetainShortTermApproval(t *testing.T) {
	var asked string
	cs := connect(t, mcpserver.New(openEngine(t), mcpserver.Options{RequireApproval: true}), &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = req.Params.Message
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	if out := retain(t, cs, map[string]any{"text": "The user is in a meeting.", "short_term": true}); !out.Stored {
		t.Fatalf("retain = %+v, want stored", out)
	}
	if !strings.Contains(asked, "short-term memory") {
		t.Errorf("the user was asked %q, want it to say short-term memory", asked)
	}
}
