package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
)

// TestRetain_ShortTerm: `retain --short-term` writes short-term facts,
// which recall, facts and the contexts mark and --json tags.
func TestRetain_ShortTerm(t *testing.T) {
	db := newDB(t)
	lunch, work := "Lunch with Maya is at noon today.", "Maya works at Northwind Labs."
	if out := mustRun(t, db, "retain", "--short-term", lunch); !strings.Contains(out, "as short-term memory") {
		t.Errorf("retain --short-term: %q, want it to say short-term", out)
	}
	if out := mustRun(t, db, "retain", work); strings.Contains(out, "short-term") {
		t.Errorf("retain: %q, want no short-term", out)
	}

	text := mustRun(t, db, "recall", "Maya")
	if !strings.Contains(text, lunch+" (short-term)\n") || !strings.Contains(text, work+"\n") {
		t.Errorf("recall: want the short-term fact marked, the other not:\n%s", text)
	}
	for _, r := range doRecall(t, db, "Maya").Results {
		want := map[bool]memory.FactTier{true: memory.TierShortTerm, false: memory.TierLongTerm}[r.Text == lunch]
		if r.Tier != want {
			t.Errorf("recall --json: %q has tier %q, want %q", r.Text, r.Tier, want)
		}
	}
	if md := mustRun(t, db, "recall", "--format", "markdown", "Maya"); !strings.Contains(md, lunch+" *(short-term)*") {
		t.Errorf("recall --format markdown: want the short-term fact marked:\n%s", md)
	}
	if txt := mustRun(t, db, "recall", "--format", "text", "Maya"); !strings.Contains(txt, lunch+" (short-term)") {
		t.Errorf("recall --format text: want the short-term fact marked:\n%s", txt)
	}

	var page wire.FactPage
	decodeStrict(t, mustRun(t, db, "--json", "facts"), &page)
	var short string
	for _, f := range page.Facts {
		switch f.Text {
		case lunch:
			short = f.ID
			if f.ExpiresAt == nil || f.CreatedAt == nil || !f.ExpiresAt.Equal(f.CreatedAt.Add(48*time.Hour)) {
				t.Errorf("facts --json: %q expires_at %v, want created_at + 48 h", f.Text, f.ExpiresAt)
			}
		case work:
			if f.ExpiresAt != nil {
				t.Errorf("facts --json: %q expires_at %v, want none", f.Text, f.ExpiresAt)
			}
		}
	}
	if list := mustRun(t, db, "facts"); !strings.Contains(list, lunch+" (short-term)\n") || strings.Contains(list, work+" (short-term)") {
		t.Errorf("facts: want the short-term fact marked alone:\n%s", list)
	}
	if show := mustRun(t, db, "facts", "show", short); !strings.Contains(show, "short-term: expires ") {
		t.Errorf("facts show: want its expiry:\n%s", show)
	}
	wantFailure(t, mnemoRun(t, db, "retain", "--session", "s1", "--short-term", "x"), exitInvalid, "--short-term")
}

// TestConsolidate_Expire: facts retained short-term three days ago have
// outlived their 48 h; recall leaves them out at once, and `consolidate
// --pass expire` prunes them for good.
func TestConsolidate_Expire(t *testing.T) {
	db := newDB(t)
	ctx := context.Background()
	past := time.Now().Add(-72 * time.Hour)
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: db, Now: func() time.Time { return past }, AccessFlush: -1, JobPoll: -1, SessionIdle: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []memory.RetainRequest{
		{Text: "The parking garage on Elm Street is full.", ShortTerm: true},
		{Text: "Maya parks her bike at the garage on Elm Street."},
	} {
		if _, err := eng.Retain(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}

	if out := mustRun(t, db, "recall", "parking garage Elm Street"); strings.Contains(out, "is full") || !strings.Contains(out, "Maya parks") {
		t.Errorf("recall past the TTL: want the long-term fact alone:\n%s", out)
	}
	if list := mustRun(t, db, "facts"); !strings.Contains(list, "is full") {
		t.Errorf("facts before the pass: want the expired fact still listed:\n%s", list)
	}
	var run wire.Run
	decodeStrict(t, mustRun(t, db, "--json", "consolidate", "--pass", "expire"), &run)
	if run.Status != memory.RunOK || run.Counts["expired"] != 1 || run.Counts["pruned"] != 1 || run.Counts["promoted"] != 0 {
		t.Errorf("consolidate --pass expire: %+v, want ok, 1 expired and pruned", run)
	}
	if list := mustRun(t, db, "facts"); strings.Contains(list, "is full") || !strings.Contains(list, "Maya parks") {
		t.Errorf("facts after the pass: want the long-term fact alone:\n%s", list)
	}
}
