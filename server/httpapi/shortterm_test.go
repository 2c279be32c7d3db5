package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
	"github.com/mnemo-ai/mnemo/wire"
)

// The retain body's short_term makes short-term memory, sync and async;
// the facts listing shows its expires_at and recall tags each result
// with its tier.
func TestServer_ShortTerm(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks", wire.CreateBank{Name: "alice"}, nil)
	var res wire.RetainResult
	e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/alice/memories", `{"text":"Alice is at the dentist until three.","short_term":true}`, &res)
	if res.Facts != 1 {
		t.Fatalf("short-term retain: %+v, want 1 fact", res)
	}
	e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/alice/memories", wire.Retain{Text: "Alice lives in Lisbon."}, &res)
	var job wire.Job
	e.must(http.StatusAccepted, keyRoot, "POST", "/v1/banks/alice/memories", wire.Retain{Text: "Alice's train leaves at five.", Async: true, ShortTerm: true}, &job)
	if n, err := e.eng.RunJobs(t.Context()); err != nil || n != 1 {
		t.Fatalf("RunJobs: %d, %v", n, err)
	}

	var page wire.FactPage
	e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice/facts", nil, &page)
	short := map[string]bool{"Alice is at the dentist until three.": true, "Alice's train leaves at five.": true}
	if len(page.Facts) != 3 {
		t.Fatalf("facts: %d, want 3", len(page.Facts))
	}
	for _, f := range page.Facts {
		switch {
		case short[f.Text] && (f.ExpiresAt == nil || !f.ExpiresAt.Equal(f.CreatedAt.Add(memory.DefaultShortTermTTL))):
			t.Errorf("%q: expires_at %v, want created_at + 48 h", f.Text, f.ExpiresAt)
		case !short[f.Text] && f.ExpiresAt != nil:
			t.Errorf("%q: expires_at %v, want none", f.Text, f.ExpiresAt)
		}
	}

	var rec wire.Recall
	e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/alice/recall", wire.RecallRequest{Query: "Alice"}, &rec)
	if len(rec.Results) != 3 {
		t.Fatalf("recall: %d results, want 3", len(rec.Results))
	}
	for _, r := range rec.Results {
		want := memory.TierLongTerm
		if short[r.Text] {
			want = memory.TierShortTerm
		}
		if r.Tier != want {
			t.Errorf("recall %q: tier %q, want %q", r.Text, r.Tier, want)
		}
	}
}
