package recall_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/hashembed"
	"github.com/mnemo-ai/mnemo/recall"
	"github.com/mnemo-ai/mnemo/retain"
)

// TestRecall_ShortTerm checks that recall searches both tiers and tags
// each result with its own, that the contexts mark short-term facts, and
// that Pipeline.Lapsed takes out what it names once its time is up.
func TestRecall_ShortTerm(t *testing.T) {
	ctx := context.Background()
	st := testutil.OpenStore(t)
	testutil.CreateBank(t, st, "b")
	clock := testutil.NewClock(now)
	st.Now = clock.Now
	emb := hashembed.New(hashembed.DefaultDimension)
	rp := retain.New(st, emb, extract.NewHeuristic())
	rp.Now = clock.Now
	for _, req := range []memory.RetainRequest{
		{BankID: "b", Text: "Bob adopted a golden retriever named Max."},
		{BankID: "b", Text: "Bob walks Max in the park this afternoon.", ShortTerm: true},
	} {
		if _, err := rp.Retain(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	p := recall.New(st, emb, extract.ResolveTimeRange)
	p.Now = clock.Now
	ask := func(format string) *memory.Recollection {
		t.Helper()
		rec, err := p.Recall(ctx, memory.Query{BankID: "b", Text: "Bob Max", Format: format})
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	tiers := func(rec *memory.Recollection) map[string]memory.FactTier {
		out := map[string]memory.FactTier{}
		for _, r := range rec.Results {
			out[r.Fact.Text] = r.Tier
		}
		return out
	}
	rec := ask("")
	want := map[string]memory.FactTier{
		"Bob adopted a golden retriever named Max.": memory.TierLongTerm,
		"Bob walks Max in the park this afternoon.": memory.TierShortTerm,
	}
	if got := tiers(rec); len(got) != 2 || got["Bob adopted a golden retriever named Max."] != want["Bob adopted a golden retriever named Max."] ||
		got["Bob walks Max in the park this afternoon."] != want["Bob walks Max in the park this afternoon."] {
		t.Errorf("tiers: got %v, want %v", got, want)
	}
	if !strings.Contains(rec.Context, "Bob walks Max in the park this afternoon. (short-term)\n") ||
		!strings.Contains(rec.Context, "Bob adopted a golden retriever named Max.\n") {
		t.Errorf("text context: want the short-term fact marked, the long-term one not:\n%s", rec.Context)
	}
	if md := ask(memory.FormatMarkdown).Context; !strings.Contains(md, "this afternoon. *(short-term)*\n") || strings.Contains(md, "Max. *(short-term)*") {
		t.Errorf("markdown context: want the short-term fact marked alone:\n%s", md)
	}
	var doc struct {
		Facts []struct {
			Text string `json:"text"`
			Tier string `json:"tier"`
		} `json:"facts"`
	}
	if err := json.Unmarshal([]byte(ask(memory.FormatJSON).Context), &doc); err != nil {
		t.Fatal(err)
	}
	for _, f := range doc.Facts {
		if w := map[bool]string{true: "short_term", false: ""}[strings.Contains(f.Text, "afternoon")]; f.Tier != w {
			t.Errorf("JSON context: %q has tier %q, want %q", f.Text, f.Tier, w)
		}
	}

	// 49 hours on, the short-term fact's time is up. Without a Lapsed
	// rule recall still finds it (the store holds it until the expire
	// pass); with one that names it, recall leaves it out.
	clock.Advance(49 * time.Hour)
	if got := tiers(ask("")); len(got) != 2 {
		t.Errorf("past the TTL, no Lapsed rule: got %v, want both facts", got)
	}
	p.Lapsed = func(f *memory.Fact, at time.Time) bool {
		if !at.Equal(clock.Now()) {
			t.Errorf("Lapsed asked at %v, want the clock's %v", at, clock.Now())
		}
		return f.ExpiresBy(at) && f.AccessCount == 0
	}
	if got := tiers(ask("")); len(got) != 1 || got["Bob adopted a golden retriever named Max."] != memory.TierLongTerm {
		t.Errorf("past the TTL, lapsed: got %v, want the long-term fact alone", got)
	}
}
