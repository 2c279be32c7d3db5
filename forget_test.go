package mnemo_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
)

// forgetEngine opens an engine with two items retained in bank "b": one
// about a quokka, one about Bob (source "note", item "n2").
func forgetEngine(t *testing.T) *mnemo.Engine {
	t.Helper()
	ctx := context.Background()
	eng := openEngine(t, filepath.Join(t.TempDir(), "mnemo.db"))
	if _, err := eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	for _, r := range []memory.RetainRequest{
		{BankID: "b", Source: "note", ItemID: "n1", Text: "Caroline adopted a quokka named Pip."},
		{BankID: "b", Source: "note", ItemID: "n2", Text: "Bob Marley drinks green tea every morning."},
	} {
		if _, err := eng.Retain(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	return eng
}

// recallTexts returns the texts of a recall of q in bank b.
func recallTexts(t *testing.T, eng *mnemo.Engine, q string) string {
	t.Helper()
	rec, err := eng.Recall(context.Background(), memory.Query{BankID: "b", Text: q, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range rec.Results {
		b.WriteString(r.Fact.Text + "\n")
	}
	return b.String()
}

func TestEngine_Forget_Query(t *testing.T) {
	ctx := context.Background()
	eng := forgetEngine(t)
	before, _ := eng.Stats(ctx, "b")
	dry, err := eng.Forget(ctx, "b", mnemo.ForgetSelector{Query: "quokka", Limit: 1, DryRun: true, Actor: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Facts) != 1 || !strings.Contains(dry.Facts[0].Text, "quokka") || dry.Record != "" {
		t.Fatalf("dry run: got %+v, want the quokka fact with its text and no record", dry)
	}
	if after, _ := eng.Stats(ctx, "b"); *after != *before {
		t.Errorf("Stats after a dry run: got %+v, want %+v", after, before)
	}
	if log, _ := eng.ForgetLog(ctx, "b", 0); len(log) != 0 {
		t.Errorf("ForgetLog after a dry run: got %d records, want none", len(log))
	}
	res, err := eng.Forget(ctx, "b", mnemo.ForgetSelector{Query: "quokka", Limit: 1, Actor: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Facts) != 1 || res.Facts[0].ID != dry.Facts[0].ID || res.Facts[0].Text != "" || res.Counts.Facts != 1 || res.Record == "" {
		t.Fatalf("forget: got %+v, want the dry run's fact, no text, counts and a record", res)
	}
	if got := recallTexts(t, eng, "quokka Pip Caroline"); strings.Contains(got, "quokka") {
		t.Errorf("recall after forget still finds: %s", got)
	}
	if got := recallTexts(t, eng, "green tea"); !strings.Contains(got, "green tea") {
		t.Errorf("recall of the other item after forget: got %q", got)
	}
	log, err := eng.ForgetLog(ctx, "b", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 1 || log[0].ID != res.Record || log[0].Actor != "alice" || log[0].Counts != res.Counts {
		t.Fatalf("ForgetLog: got %+v", log)
	}
	// The record names the query by its fingerprint, never by its words:
	// they are often what was forgotten.
	if q := log[0].Selector.Query; q != memory.Fingerprint("Quokka") || !strings.HasPrefix(q, "sha256:") || strings.Contains(strings.ToLower(q), "quokka") {
		t.Errorf("ForgetLog selector query = %q, want the fingerprint of the words", q)
	}
}

func TestEngine_Forget_EntityAndDocument(t *testing.T) {
	ctx := context.Background()
	eng := forgetEngine(t)
	dry, err := eng.Forget(ctx, "b", mnemo.ForgetSelector{Entity: "bob marley", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Facts) == 0 || !strings.Contains(dry.Facts[0].Text, "Bob") {
		t.Fatalf("dry run by entity: got %+v, want Bob's fact", dry)
	}
	// Selectors are ANDed: Bob's facts in Caroline's document are none.
	none, err := eng.Forget(ctx, "b", mnemo.ForgetSelector{Entity: "Bob Marley", Source: "note", Item: "n1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(none.Facts) != 0 || none.Record != "" {
		t.Errorf("entity AND another document: got %+v, want nothing", none)
	}
	res, err := eng.Forget(ctx, "b", mnemo.ForgetSelector{Source: "note", Item: "n2"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts.Documents != 1 || res.Counts.Facts != len(dry.Facts) {
		t.Errorf("forget by document: got %+v, want its %d fact(s) and the document", res.Counts, len(dry.Facts))
	}
	if _, err := eng.Forget(ctx, "b", mnemo.ForgetSelector{Entity: "Bob Marley"}); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("forget by an entity forgotten with its last fact: got %v, want ENOTFOUND", err)
	}
	st, _ := eng.Stats(ctx, "b")
	if st.Documents != 1 {
		t.Errorf("Stats after forgetting n2: got %+v, want 1 document left", st)
	}
}

func TestEngine_Forget_Errors(t *testing.T) {
	ctx := context.Background()
	eng := forgetEngine(t)
	before, _ := eng.Stats(ctx, "b")
	for _, c := range []struct {
		name string
		bank string
		sel  mnemo.ForgetSelector
		code string
	}{
		{"NoSelector", "b", mnemo.ForgetSelector{}, memory.EINVALID},
		{"DryRunOnly", "b", mnemo.ForgetSelector{DryRun: true}, memory.EINVALID},
		{"UnknownID", "b", mnemo.ForgetSelector{IDs: []string{"nope"}}, memory.ENOTFOUND},
		{"EmptyID", "b", mnemo.ForgetSelector{IDs: []string{""}}, memory.EINVALID},
		{"UnknownEntity", "b", mnemo.ForgetSelector{Entity: "Nobody"}, memory.ENOTFOUND},
		{"UnknownDocument", "b", mnemo.ForgetSelector{Document: "nope"}, memory.ENOTFOUND},
		{"UnknownItem", "b", mnemo.ForgetSelector{Source: "note", Item: "nope"}, memory.ENOTFOUND},
		{"SourceWithoutItem", "b", mnemo.ForgetSelector{Source: "note"}, memory.EINVALID},
		{"DocumentAndItem", "b", mnemo.ForgetSelector{Document: "x", Source: "note", Item: "n1"}, memory.EINVALID},
		{"NegativeLimit", "b", mnemo.ForgetSelector{Query: "tea", Limit: -1}, memory.EINVALID},
		{"FromAfterTo", "b", mnemo.ForgetSelector{From: monday.Add(2), To: monday}, memory.EINVALID},
		{"UnknownBank", "nope", mnemo.ForgetSelector{Query: "tea"}, memory.ENOTFOUND},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := eng.Forget(ctx, c.bank, c.sel)
			if got := memory.ErrorCode(err); got != c.code {
				t.Errorf("Forget(%+v): got %v (%s), want %s", c.sel, err, got, c.code)
			}
		})
	}
	if after, _ := eng.Stats(ctx, "b"); *after != *before {
		t.Errorf("Stats after failed forgets: got %+v, want %+v", after, before)
	}
	if log, _ := eng.ForgetLog(ctx, "b", 0); len(log) != 0 {
		t.Errorf("ForgetLog after failed forgets: got %d records", len(log))
	}
	if _, err := eng.ForgetLog(ctx, "nope", 0); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("ForgetLog(unknown bank): got %v, want ENOTFOUND", err)
	}
}

// Forgetting an item takes every version of it: the facts a new version
// superseded (kept for history and as-of) go with the current ones, and
// history no longer finds them.
func TestEngine_Forget_ItemVersions(t *testing.T) {
	ctx := context.Background()
	eng := forgetEngine(t)
	for _, text := range []string{"Dana's flat is in Leith, near the docks.", "Dana's flat is in Morningside now."} {
		if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "b", Source: "note", ItemID: "dana", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	hist, err := eng.Recall(ctx, memory.Query{BankID: "b", Text: "Dana flat Leith docks", Filter: memory.Filter{Statuses: []memory.Status{memory.StatusActive, memory.StatusSuperseded}}})
	if err != nil || !strings.Contains(hist.Context, "Leith") {
		t.Fatalf("history before forget: %v, %q", err, hist.Context)
	}
	res, err := eng.Forget(ctx, "b", mnemo.ForgetSelector{Source: "note", Item: "dana"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts.Facts != 2 {
		t.Errorf("forget the item: %+v, want both versions' facts", res.Counts)
	}
	hist, err = eng.Recall(ctx, memory.Query{BankID: "b", Text: "Dana flat Leith docks", Filter: memory.Filter{Statuses: []memory.Status{memory.StatusActive, memory.StatusSuperseded}}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(hist.Context, "Leith") || strings.Contains(hist.Context, "Morningside") {
		t.Errorf("history after forgetting the item still has it: %q", hist.Context)
	}
}
