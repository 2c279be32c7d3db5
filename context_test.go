package mnemo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/recall"
	"github.com/mnemo-ai/mnemo/store/sqlite"
	"github.com/mnemo-ai/mnemo/wire"
)

// openContextEngine opens an engine over a SQLite store the test can
// write observations to directly.
func openContextEngine(t *testing.T) (*mnemo.Engine, *sqlite.Store) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := mnemo.Open(context.Background(), mnemo.Config{Store: st, JobPoll: -1, SessionIdle: -1, AccessFlush: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng, st
}

var words = strings.Fields("alice bob carol tea coffee lisbon paris cello piano dog cat garden river train book red blue monday june project deploy review")

// sentence is n random words ending with a full stop.
func sentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[r.IntN(len(words))]
	}
	return strings.ToUpper(w[0][:1]) + strings.Join(w, " ")[1:] + "."
}

// The rendered context never exceeds its budget, whatever the bank, the
// budget, the format and the query: over random banks (blocks,
// directives in random scopes, observations, facts) and random budgets,
// every context counts at most its budget, its sections come in the
// stable order, each is a prefix of what it would show without a budget
// (cut between items, never inside one), and directives take the budget
// first.
func TestEngine_ContextBudgetProperty(t *testing.T) {
	ctx := context.Background()
	eng, st := openContextEngine(t)
	r := rand.New(rand.NewPCG(18, 2026))
	formats := []string{memory.FormatText, memory.FormatMarkdown, memory.FormatJSON}
	order := []string{wire.SectionBlocks, wire.SectionDirectives, wire.SectionObservations, wire.SectionFacts}
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	checked, cut := 0, 0
	for b := range 12 {
		bank := fmt.Sprintf("p%d", b)
		if _, err := eng.CreateBank(ctx, bank); err != nil {
			t.Fatal(err)
		}
		for i := range r.IntN(3) {
			name := []string{memory.BlockPersona, memory.BlockUserProfile, "notes"}[i]
			if _, err := eng.WriteBlock(ctx, bank, name, sentence(r, 3+r.IntN(60)), mnemo.BlockOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		for range r.IntN(7) {
			var scopes []string
			if r.IntN(2) == 0 {
				scopes = []string{[]string{"alpha", "beta", "gamma"}[r.IntN(3)]}
			}
			if _, err := eng.AddDirective(ctx, bank, sentence(r, 2+r.IntN(20)), scopes); err != nil {
				t.Fatal(err)
			}
		}
		var obs []*memory.Observation
		for i := range r.IntN(25) {
			obs = append(obs, &memory.Observation{ID: fmt.Sprintf("o%d", i), BankID: bank, Text: sentence(r, 4+r.IntN(30)),
				Kind: memory.ObservationPattern, EvidenceCount: 1 + r.IntN(9), Status: memory.StatusActive,
				CreatedAt: now.Add(-time.Duration(r.IntN(2000)) * time.Hour), UpdatedAt: now.Add(-time.Duration(r.IntN(2000)) * time.Hour)})
		}
		if len(obs) > 0 {
			if err := st.PutObservations(ctx, bank, obs); err != nil {
				t.Fatal(err)
			}
		}
		for i := range r.IntN(6) {
			if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: bank, ItemID: fmt.Sprint(i), Text: sentence(r, 5+r.IntN(15)), At: now}); err != nil {
				t.Fatal(err)
			}
		}
		for range 12 {
			req := mnemo.ContextRequest{Budget: 1 + r.IntN(900), Format: formats[r.IntN(3)], Now: now}
			if r.IntN(2) == 0 {
				req.Query = sentence(r, 3)
			}
			if r.IntN(2) == 0 {
				req.Scopes = []string{[]string{"alpha", "beta", "gamma"}[r.IntN(3)]}
			}
			full := req
			full.Budget = 1 << 30
			all, err := eng.Context(ctx, bank, full)
			if err != nil {
				t.Fatalf("Context(%s, unbounded %+v): %v", bank, full, err)
			}
			got, err := eng.Context(ctx, bank, req)
			if err != nil {
				empty, _ := wire.RenderContext(&wire.Context{Bank: bank, Budget: req.Budget}, req.Format)
				if memory.ErrorCode(err) != memory.EINVALID || recall.CountTokens(empty) <= req.Budget {
					t.Fatalf("Context(%s, %+v): %v", bank, req, err)
				}
				continue
			}
			checked++
			if got.Tokens > req.Budget || recall.CountTokens(got.Text) != got.Tokens {
				t.Fatalf("Context(%s, %+v): %d tokens (counted %d), budget %d\n%s", bank, req, got.Tokens, recall.CountTokens(got.Text), req.Budget, got.Text)
			}
			if again, _ := wire.RenderContext(&got.Context, req.Format); again != got.Text {
				t.Fatalf("Context(%s): its text is not the rendering of its sections", bank)
			}
			var names []string
			for _, s := range got.Context.Sections {
				names = append(names, s.Name)
				if len(s.Items) == 0 {
					t.Errorf("section %s shown with no item", s.Name)
				}
				whole := sectionItems(all, s.Name)
				if len(s.Items) > len(whole) || !slices.EqualFunc(s.Items, whole[:len(s.Items)], itemEqual) {
					t.Fatalf("section %s is not a prefix of its items without a budget:\n%+v\n%+v", s.Name, s.Items, whole)
				}
				if len(s.Items) < len(whole) {
					cut++
				}
				for _, it := range s.Items {
					if !strings.Contains(got.Text, jsonOr(req.Format, firstLine(it.Text))) {
						t.Fatalf("item %q not whole in the context:\n%s", it.Text, got.Text)
					}
				}
			}
			if !slices.IsSortedFunc(names, func(a, b string) int { return slices.Index(order, a) - slices.Index(order, b) }) {
				t.Errorf("sections %v not in the order %v", names, order)
			}
			// Directives take the budget first: a context that shows
			// anything else shows every directive that applies.
			if len(names) > 0 && len(sectionItems(got, wire.SectionDirectives)) < len(sectionItems(all, wire.SectionDirectives)) {
				for _, n := range names {
					if n != wire.SectionDirectives {
						t.Errorf("section %s shown while directives were cut", n)
					}
				}
			}
		}
	}
	if checked < 60 || cut < 10 {
		t.Errorf("only %d contexts checked, %d cut by their budget: the property was barely exercised", checked, cut)
	}
}

func sectionItems(c *mnemo.ContextResult, name string) []wire.ContextItem {
	for _, s := range c.Context.Sections {
		if s.Name == name {
			return s.Items
		}
	}
	return nil
}

func itemEqual(a, b wire.ContextItem) bool {
	return a.Kind == b.Kind && a.ID == b.ID && a.Name == b.Name && a.Text == b.Text && slices.Equal(a.Previously, b.Previously)
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(first)
}

// jsonOr is s as it appears in a context of that format: JSON-escaped in
// JSON.
func jsonOr(format, s string) string {
	if format != memory.FormatJSON {
		return s
	}
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

// A directive is in every context of its scope and in no other; one
// without scope is in all; recall gives them only when asked.
func TestEngine_ContextDirectiveScopes(t *testing.T) {
	ctx := context.Background()
	eng, _ := openContextEngine(t)
	if _, err := eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	all, err := eng.AddDirective(ctx, "b", "Answer in British English.", nil)
	if err != nil {
		t.Fatal(err)
	}
	web, err := eng.AddDirective(ctx, "b", "Never push to main on Fridays.", []string{"web", "ops"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.AddDirective(ctx, "b", "Use tabs.", []string{"go"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		scopes []string
		want   []string
	}{
		{nil, []string{"Answer in British English."}},
		{[]string{"web"}, []string{"Answer in British English.", "Never push to main on Fridays."}},
		{[]string{"ops", "go"}, []string{"Answer in British English.", "Never push to main on Fridays.", "Use tabs."}},
		{[]string{"python"}, []string{"Answer in British English."}},
	} {
		for _, f := range []string{memory.FormatText, memory.FormatMarkdown, memory.FormatJSON} {
			res, err := eng.Context(ctx, "b", mnemo.ContextRequest{Scopes: c.scopes, Format: f})
			if err != nil {
				t.Fatalf("Context(%v, %s): %v", c.scopes, f, err)
			}
			var got []string
			for _, it := range sectionItems(res, wire.SectionDirectives) {
				got = append(got, it.Text)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("Context(%v, %s) directives = %q, want %q", c.scopes, f, got, c.want)
			}
			for _, d := range []string{"Answer in British English.", "Never push to main on Fridays.", "Use tabs."} {
				if strings.Contains(res.Text, d) != slices.Contains(c.want, d) {
					t.Errorf("Context(%v, %s): %q shown = %v\n%s", c.scopes, f, d, !slices.Contains(c.want, d), res.Text)
				}
			}
		}
	}
	if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "b", Text: "Alice pushed the release to main."}); err != nil {
		t.Fatal(err)
	}
	plain, err := eng.RecallWith(ctx, memory.Query{BankID: "b", Text: "push to main"}, mnemo.RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Directives) != 0 || strings.Contains(plain.Context, "Fridays") {
		t.Errorf("recall not asked for directives returned them: %v %q", plain.Directives, plain.Context)
	}
	asked, err := eng.RecallWith(ctx, memory.Query{BankID: "b", Text: "push to main"}, mnemo.RecallOptions{Directives: true, Scopes: []string{"web"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(asked.Directives) != 2 || asked.Directives[0].ID != all.ID || asked.Directives[1].ID != web.ID {
		t.Errorf("recall asked for web's directives returned %v", asked.Directives)
	}

	// Consolidation (every pass) leaves directives as they are.
	before, err := eng.Directives(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.ConsolidateAll(ctx, "b"); err != nil {
		t.Fatalf("ConsolidateAll: %v", err)
	}
	after, err := eng.Directives(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("consolidation changed the directives: %d before, %d after", len(before), len(after))
	}
	for i := range before {
		if before[i].Text != after[i].Text || !slices.Equal(before[i].Scopes, after[i].Scopes) || !before[i].UpdatedAt.Equal(after[i].UpdatedAt) {
			t.Errorf("consolidation changed directive %s: %+v → %+v", before[i].ID, before[i], after[i])
		}
	}

	// Edits and removal.
	text := "Never push on Fridays."
	scopes := []string{}
	d, err := eng.EditDirective(ctx, "b", web.ID, mnemo.DirectiveEdit{Text: &text, Scopes: &scopes})
	if err != nil || d.Text != text || len(d.Scopes) != 0 || !d.CreatedAt.Equal(web.CreatedAt) {
		t.Fatalf("EditDirective = %+v, %v", d, err)
	}
	res, err := eng.Context(ctx, "b", mnemo.ContextRequest{Scopes: []string{"python"}})
	if err != nil || !strings.Contains(res.Text, text) {
		t.Errorf("a directive made global is not in another scope's context: %v\n%s", err, res.Text)
	}
	if err := eng.DeleteDirective(ctx, "b", web.ID); err != nil {
		t.Fatal(err)
	}
	if err := eng.DeleteDirective(ctx, "b", web.ID); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("deleting it again: %v, want ENOTFOUND", err)
	}
	bad := "  "
	if _, err := eng.EditDirective(ctx, "b", all.ID, mnemo.DirectiveEdit{Text: &bad}); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("a blank text: %v, want EINVALID", err)
	}
	if _, err := eng.AddDirective(ctx, "b", "x", []string{"has space"}); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("a bad scope: %v, want EINVALID", err)
	}
	if _, err := eng.AddDirective(ctx, "nobank", "x", nil); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("an unknown bank: %v, want ENOTFOUND", err)
	}
}

// The sections come in order with their items rendered in every format;
// a query adds its facts with their history; bad requests are EINVALID.
func TestEngine_ContextSections(t *testing.T) {
	ctx := context.Background()
	eng, st := openContextEngine(t)
	if _, err := eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.WriteBlock(ctx, "b", memory.BlockUserProfile, "Name: Alice.\nLikes tea.", mnemo.BlockOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.AddDirective(ctx, "b", "Answer in British English.", nil); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	if err := st.PutObservations(ctx, "b", []*memory.Observation{
		{ID: "o_old", BankID: "b", Text: "Alice used to swim.", Kind: memory.ObservationTrend, EvidenceCount: 9, Status: memory.StatusActive, CreatedAt: now.AddDate(-2, 0, 0), UpdatedAt: now.AddDate(-2, 0, 0)},
		{ID: "o_new", BankID: "b", Text: "Alice walks her dog daily.", Kind: memory.ObservationPattern, EvidenceCount: 3, Status: memory.StatusActive, CreatedAt: now, UpdatedAt: now,
			History: []memory.ObservationChange{{Previous: "Alice walks her dog weekly.", ChangedAt: now}}},
		{ID: "o_arch", BankID: "b", Text: "Alice lived in Paris.", Kind: memory.ObservationPattern, EvidenceCount: 20, Status: memory.StatusArchived, CreatedAt: now, UpdatedAt: now},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "b", Text: "Alice adopted a puppy named Rex.", At: now}); err != nil {
		t.Fatal(err)
	}
	res, err := eng.Context(ctx, "b", mnemo.ContextRequest{Query: "What is the puppy called?"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range res.Context.Sections {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "blocks,directives,observations,facts" {
		t.Fatalf("sections %v", names)
	}
	obs := sectionItems(res, wire.SectionObservations)
	if len(obs) != 2 || obs[0].ID != "o_new" || obs[1].ID != "o_old" {
		t.Errorf("observations %+v: want the recent one first (decay beats evidence), no archived one", obs)
	}
	if len(obs) > 0 && (len(obs[0].Previously) != 1 || !strings.HasPrefix(obs[0].Previously[0], "Alice walks her dog weekly.")) {
		t.Errorf("observation history %q", obs[0].Previously)
	}
	for _, want := range []string{"Memory blocks:\n[user_profile]\n  Name: Alice.\n  Likes tea.\n", "- Answer in British English.\n", "- Alice walks her dog daily. (pattern)\n  previously: Alice walks her dog weekly.", "Rex"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("text context lacks %q:\n%s", want, res.Text)
		}
	}
	md, err := eng.Context(ctx, "b", mnemo.ContextRequest{Format: memory.FormatMarkdown})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Memory blocks\n\n### user_profile\n\nName: Alice.\nLikes tea.\n", "## Directives (always follow these)\n\n- Answer in British English.\n"} {
		if !strings.Contains(md.Text, want) {
			t.Errorf("markdown context lacks %q:\n%s", want, md.Text)
		}
	}
	if strings.Contains(md.Text, "Rex") {
		t.Errorf("a context without a query shows facts:\n%s", md.Text)
	}
	js, err := eng.Context(ctx, "b", mnemo.ContextRequest{Format: memory.FormatJSON, Query: "puppy"})
	if err != nil {
		t.Fatal(err)
	}
	var back wire.Context
	if err := json.Unmarshal([]byte(js.Text), &back); err != nil {
		t.Fatalf("json context does not parse: %v\n%s", err, js.Text)
	}
	if back.Bank != "b" || len(back.Sections) != len(js.Context.Sections) {
		t.Errorf("json context %+v", back)
	}
	// Sections chosen; a relevance floor keeps unrelated facts out.
	only, err := eng.Context(ctx, "b", mnemo.ContextRequest{Query: "quantum chromodynamics lecture", Sections: []string{wire.SectionFacts}, MinSimilarity: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if only.Text != "" {
		t.Errorf("an unrelated prompt with a floor gave a context:\n%s", only.Text)
	}
	hit, err := eng.Context(ctx, "b", mnemo.ContextRequest{Query: "the puppy Rex", Sections: []string{wire.SectionFacts}, MinSimilarity: 0.5})
	if err != nil || !strings.Contains(hit.Text, "Rex") || strings.Contains(hit.Text, "British") {
		t.Errorf("a related prompt with a floor: %v\n%s", err, hit.Text)
	}
	for _, bad := range []mnemo.ContextRequest{{Budget: -1}, {Format: "yaml"}, {Sections: []string{"dreams"}}, {Scopes: []string{"a b"}}, {Format: memory.FormatJSON, Budget: 3}} {
		if _, err := eng.Context(ctx, "b", bad); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("Context(%+v): %v, want EINVALID", bad, err)
		}
	}
	if _, err := eng.Context(ctx, "nobank", mnemo.ContextRequest{}); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("unknown bank: %v, want ENOTFOUND", err)
	}
}

// A session's context: the bank's directives for the scope, its memory
// blocks and, given a query, the memories relevant to it, within a
// token budget — the text for a system prompt.
func ExampleEngine_Context() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "mnemo-example")
	defer os.RemoveAll(dir)
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: filepath.Join(dir, "m.db"), JobPoll: -1, SessionIdle: -1, AccessFlush: -1})
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	eng.AddDirective(ctx, "", "Answer in British English.", nil)
	eng.AddDirective(ctx, "", "Run the tests before a commit.", []string{"shop"})
	eng.WriteBlock(ctx, "", memory.BlockUserProfile, "Name: Maya. Lives in Porto.", mnemo.BlockOptions{})
	res, err := eng.Context(ctx, "", mnemo.ContextRequest{Scopes: []string{"shop"}, Budget: 200})
	if err != nil {
		panic(err)
	}
	fmt.Print(res.Text)
	// Output:
	// Memory blocks:
	// [user_profile]
	//   Name: Maya. Lives in Porto.
	//
	// Directives (always follow these):
	// - Answer in British English.
	// - Run the tests before a commit. [shop]
}
