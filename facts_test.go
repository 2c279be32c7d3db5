package mnemo_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
)

// recalled returns the texts recall finds in bank for text.
func factsRecalled(t *testing.T, eng *engine, bank, text string) []string {
	t.Helper()
	rec, err := eng.Recall(context.Background(), memory.Query{BankID: bank, Text: text, Now: monday})
	if err != nil {
		t.Fatalf("Recall(%q): %v", text, err)
	}
	var out []string
	for _, r := range rec.Results {
		out = append(out, r.Fact.Text)
	}
	return out
}

func TestEngine_Invalidate(t *testing.T) {
	ctx := context.Background()
	eng := open(t, mnemo.Config{})
	if _, err := eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "b", Text: "Alice keeps a red kayak in the boathouse.", At: monday}); err != nil {
		t.Fatal(err)
	}
	page, err := eng.Facts(ctx, "b", memory.FactQuery{})
	if err != nil || len(page.Facts) != 1 {
		t.Fatalf("Facts: %v, %v", page, err)
	}
	f := page.Facts[0]
	if got := factsRecalled(t, eng, "b", "kayak"); !slices.Contains(got, f.Text) {
		t.Fatalf("Recall(kayak) before: %q, want %q", got, f.Text)
	}

	changed, err := eng.Invalidate(ctx, "b", []string{f.ID}, "wrong boat")
	if err != nil || !slices.Equal(changed, []string{f.ID}) {
		t.Fatalf("Invalidate: %q, %v", changed, err)
	}
	if got := factsRecalled(t, eng, "b", "kayak"); slices.Contains(got, f.Text) {
		t.Errorf("Recall(kayak) after Invalidate: %q, want the fact gone", got)
	}
	archived, err := eng.Facts(ctx, "b", memory.FactQuery{Statuses: []memory.Status{memory.StatusArchived}})
	if err != nil || len(archived.Facts) != 1 || archived.Facts[0].ID != f.ID {
		t.Errorf("Facts(archived): %v, %v", archived, err)
	}

	if _, err := eng.Restore(ctx, "b", []string{f.ID}); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if got := factsRecalled(t, eng, "b", "kayak"); !slices.Contains(got, f.Text) {
		t.Errorf("Recall(kayak) after Restore: %q, want %q", got, f.Text)
	}
	d, err := eng.Fact(ctx, "b", f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Fact.Status != memory.StatusActive || d.Fact.Text != f.Text || d.Fact.Seq != f.Seq {
		t.Errorf("Fact after Restore: %+v, want it as before (%+v)", d.Fact, f)
	}

	for _, c := range []struct {
		name string
		err  error
		code string
	}{
		{"unknown id", factsErr(eng.Invalidate(ctx, "b", []string{"nope"}, "")), memory.ENOTFOUND},
		{"no ids", factsErr(eng.Invalidate(ctx, "b", nil, "")), memory.EINVALID},
		{"bad reason", factsErr(eng.Invalidate(ctx, "b", []string{f.ID}, "\xff")), memory.EINVALID},
		{"unknown bank", factsErr(eng.Restore(ctx, "zz", []string{f.ID})), memory.ENOTFOUND},
		{"fact of unknown bank", factsErr(eng.Fact(ctx, "zz", f.ID)), memory.ENOTFOUND},
		{"unknown fact", factsErr(eng.Fact(ctx, "b", "nope")), memory.ENOTFOUND},
	} {
		if got := memory.ErrorCode(c.err); c.err == nil || got != c.code {
			t.Errorf("%s: got %v, want code %s", c.name, c.err, c.code)
		}
	}
}

func factsErr[T any](_ T, err error) error { return err }

func TestEngine_About(t *testing.T) {
	ctx := context.Background()
	eng := open(t, mnemo.Config{})
	if _, err := eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	alice, err := eng.UpsertEntity(ctx, "b", mnemo.EntityInput{Name: "Alice", Type: memory.EntityPerson, Aliases: []string{"Ali"}})
	if err != nil {
		t.Fatalf("UpsertEntity(Alice): %v", err)
	}
	acme, err := eng.UpsertEntity(ctx, "b", mnemo.EntityInput{Name: "Acme Corp", Type: memory.EntityOrganization})
	if err != nil {
		t.Fatal(err)
	}
	again, err := eng.UpsertEntity(ctx, "b", mnemo.EntityInput{Name: "alice"})
	if err != nil || again.ID != alice.ID || again.MentionCount != alice.MentionCount+1 {
		t.Errorf("UpsertEntity(alice) again: %+v, %v, want %s with one more mention", again, err, alice.ID)
	}
	rel, err := eng.AddRelation(ctx, "b", mnemo.RelationInput{Subject: "Ali", Predicate: "works_at", Object: acme.ID, Confidence: 0.9})
	if err != nil {
		t.Fatalf("AddRelation: %v", err)
	}
	if rel.SubjectID != alice.ID || rel.ObjectID != acme.ID {
		t.Errorf("AddRelation: %+v, want %s → %s", rel, alice.ID, acme.ID)
	}
	for _, in := range []mnemo.RelationInput{
		{Subject: "Nobody", Predicate: "knows", Object: "Alice"},
		{Subject: "Alice", Predicate: "knows", Object: "Acme Corp", FactIDs: []string{"nope"}},
	} {
		if _, err := eng.AddRelation(ctx, "b", in); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Errorf("AddRelation(%+v): %v, want not_found", in, err)
		}
	}
	for _, in := range []mnemo.RelationInput{
		{Subject: "Alice", Predicate: "", Object: "Acme Corp"},
		{Subject: "Alice", Predicate: "likes", Object: "Acme Corp", Confidence: 2},
	} {
		if _, err := eng.AddRelation(ctx, "b", in); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("AddRelation(%+v): %v, want invalid", in, err)
		}
	}
	if _, err := eng.UpsertEntity(ctx, "b", mnemo.EntityInput{Name: "  "}); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("UpsertEntity(blank): %v, want invalid", err)
	}

	if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "b", Text: "I had lunch with Alice in Lisbon.", At: monday}); err != nil {
		t.Fatal(err)
	}
	a, err := eng.About(ctx, "b", "ALICE", 0)
	if err != nil {
		t.Fatalf("About(ALICE): %v", err)
	}
	if a.Entity.ID != alice.ID {
		t.Errorf("About: entity %s, want %s", a.Entity.ID, alice.ID)
	}
	if len(a.Facts) != 1 || a.Facts[0].Text != "I had lunch with Alice in Lisbon." {
		t.Errorf("About: facts %+v, want the retained one", a.Facts)
	}
	if len(a.Relations) != 1 || a.Relations[0].SubjectName != "Alice" || a.Relations[0].ObjectName != "Acme Corp" || !a.Relations[0].Current {
		t.Errorf("About: relations %+v, want Alice works_at Acme Corp, current", a.Relations)
	}
	b, err := eng.About(ctx, "b", "acme corp", 0)
	if err != nil || len(b.Relations) != 1 || b.Relations[0].Relation.ID != rel.ID {
		t.Errorf("About(acme corp): %+v, %v, want the relation from the object's side", b, err)
	}
	if _, err := eng.About(ctx, "b", "Zed", 0); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("About(Zed): %v, want not_found", err)
	}
	if _, err := eng.About(ctx, "b", "Alice", -1); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("About(limit -1): %v, want invalid", err)
	}
	page, err := eng.Entities(ctx, "b", memory.EntityQuery{Type: memory.EntityOrganization})
	if err != nil || len(page.Entities) != 1 || page.Entities[0].ID != acme.ID {
		t.Errorf("Entities(organization): %+v, %v", page, err)
	}
}
