package recall_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/hashembed"
	"github.com/mnemo-ai/mnemo/recall"
	"github.com/mnemo-ai/mnemo/retain"
)

// TestRecall_FirstPersonIsTheUser: in a conversation between a user and
// an assistant, the asker's "I" and "my" are the user, so the user's own
// turn ranks above the assistant's longer answer that repeats the
// question's words; a question in the third person, or a bank whose
// speakers have names, is ranked by its words alone.
func TestRecall_FirstPersonIsTheUser(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	chat := func(user, assistant string) memory.RetainRequest {
		return memory.RetainRequest{BankID: "b", ItemID: "s1", Source: memory.SourceChat, At: at, Messages: []memory.Message{
			{ID: "D1:1", Speaker: user, Text: "My first sprint ends on March 15 and covers the login page."},
			{ID: "D1:2", Speaker: assistant, Text: "A sprint plan: the first sprint covers the login page, the second sprint the sprint review of the login page; each sprint ends with a sprint demo."},
			{ID: "D1:3", Speaker: user, Text: "Thanks, that helps."},
		}}
	}
	top := func(user, assistant, query string) string {
		t.Helper()
		st := testutil.OpenStore(t)
		testutil.CreateBank(t, st, "b")
		emb := hashembed.New(hashembed.DefaultDimension)
		if _, err := retain.New(st, emb, extract.NewHeuristic()).Retain(ctx, chat(user, assistant)); err != nil {
			t.Fatal(err)
		}
		rec, err := recall.New(st, emb, extract.ResolveTimeRange).Recall(ctx, memory.Query{BankID: "b", Text: query, Now: at.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Results) == 0 {
			t.Fatalf("%q: no results", query)
		}
		return rec.Results[0].Fact.SourceRef
	}
	for _, c := range []struct {
		user, assistant, query, want string
	}{
		{"user", "assistant", "When does my first sprint end?", "D1:1"},
		{"user", "assistant", "When does the first sprint end?", "D1:2"},
		{"User", "Assistant", "When do I finish the first sprint?", "D1:1"},
		{"Maya", "Tom", "When does my first sprint end?", "D1:2"},
		// A user with a name of their own, talking to the assistant: the
		// one speaker who is not the assistant is the asker.
		{"Maya", "assistant", "When does my first sprint end?", "D1:1"},
		{"Maya", "assistant", "When does the first sprint end?", "D1:2"},
	} {
		if got := top(c.user, c.assistant, c.query); got != c.want {
			t.Errorf("speakers %s/%s, %q: first %s, want %s", c.user, c.assistant, c.query, got, c.want)
		}
	}
}
