package mnemo_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/provider/openai"
)

// movesModel scripts a model for "I moved to CITY." turns: extraction
// answers "Tom lives in CITY", with the edge Tom -lives_in-> CITY when
// edges is set, and the conflict judge answers that the new fact updates
// the existing "Tom lives in" fact it is shown (the first, if several:
// which is what two current edges, or two active successors, would look
// like).
func movesModel(srv *llmtest.Server, judgeDelay time.Duration, edges bool) {
	city := regexp.MustCompile(`(?:moved to|live in) ([A-Z][a-z]+)`)
	existing := regexp.MustCompile(`EXISTING (\S+): Tom lives in`)
	last := func(r llmtest.Request) string {
		for i := len(r.Messages) - 1; i >= 0; i-- {
			if r.Messages[i].Role == "user" {
				return r.Messages[i].Content
			}
		}
		return ""
	}
	srv.On(llmtest.Rule{Schema: "extraction", Respond: func(r llmtest.Request) llmtest.Reply {
		m := city.FindStringSubmatch(last(r))
		if m == nil {
			return llmtest.Reply{JSON: extraction()}
		}
		f := xfact{
			text: "Tom lives in " + m[1], category: "personal", speaker: "Tom", message: 1,
			entities: [][3]any{{"Tom", "person", 0.95}, {m[1], "place", 0.9}},
		}
		if edges {
			f.relations = [][3]string{{"Tom", "lives_in", m[1]}}
		}
		return llmtest.Reply{JSON: extraction(f)}
	}})
	srv.On(llmtest.Rule{Schema: "conflicts", Respond: func(r llmtest.Request) llmtest.Reply {
		time.Sleep(judgeDelay) // every writer resolves before any writes
		if m := existing.FindStringSubmatch(last(r)); m != nil {
			return llmtest.Reply{JSON: decisions([3]any{0, "update", m[1]})}
		}
		return llmtest.Reply{JSON: decisions()}
	}})
}

// Several writers (engines of their own on one database, as processes
// would be) supersede the same edge at the same moment: "Tom lives in
// Paris", then six "I moved to …" at once. Each read Paris as current;
// the database lets one close it, the others resolve again against the
// edge that replaced it. In the end exactly one lives_in edge is
// current, and the history is one chain: every other edge is closed,
// every fact but one superseded, each by a different fact, from Paris to
// the current one.
//
// Without the edge (extraction names no relation) the facts race alone:
// each writer supersedes the Paris fact it read active; the database
// lets one do so, the others resolve again against the fact that
// replaced it, and the history is the same one chain.
func TestEngine_LLM_OneCurrentEdgeUnderConcurrentWriters(t *testing.T) {
	for _, c := range []struct {
		name  string
		db    func(t *testing.T) string
		edges bool
	}{
		{"SQLite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "mnemo.db") }, true},
		{"Postgres", pgSchemaURL, true},
		{"SQLite/FactsOnly", func(t *testing.T) string { return filepath.Join(t.TempDir(), "mnemo.db") }, false},
		{"Postgres/FactsOnly", pgSchemaURL, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			movesModel(srv, 100*time.Millisecond, c.edges)
			db := c.db(t)
			open := func() *mnemo.Engine {
				g := provider.NewGuard()
				g.Backoff, g.MaxBackoff, g.Timeout = time.Millisecond, 5*time.Millisecond, 10*time.Second
				eng, err := mnemo.Open(t.Context(), mnemo.Config{DB: db, Guard: g, AccessFlush: -1, JobPoll: -1, SessionIdle: -1,
					LLM: openai.New(openai.Config{BaseURL: srv.URL(), APIKey: "sk-test", Model: "scripted"})})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { eng.Close() })
				return eng
			}
			first := open()
			ctx := t.Context()
			at := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
			if _, err := first.Retain(ctx, memory.RetainRequest{Messages: []memory.Message{{Speaker: "Tom", Text: "I live in Paris.", Time: at}}, At: at}); err != nil {
				t.Fatal(err)
			}
			cities := []string{"Lyon", "Nice", "Lille", "Brest", "Nantes", "Dijon"}
			var wg sync.WaitGroup
			errs := make([]error, len(cities))
			for i, city := range cities {
				eng := open()
				wg.Add(1)
				go func() {
					defer wg.Done()
					when := at.Add(time.Duration(i+1) * time.Hour)
					_, errs[i] = eng.Retain(ctx, memory.RetainRequest{Messages: []memory.Message{{Speaker: "Tom", Text: fmt.Sprintf("I moved to %s.", city), Time: when}}, At: when})
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("writer %d (%s): %v", i, cities[i], err)
				}
			}

			rels, err := first.Relations(ctx, "", memory.RelationQuery{SubjectID: memory.EntityID("Tom"), Predicate: "lives_in"})
			if err != nil {
				t.Fatal(err)
			}
			var current []*memory.Relation
			for _, r := range rels {
				if r.ExpiredAt.IsZero() {
					current = append(current, r)
				} else if r.ValidTo.IsZero() {
					t.Errorf("edge %s is closed without its valid_to", r.ID)
				}
			}
			switch {
			case !c.edges && len(rels) != 0:
				t.Fatalf("%d lives_in edges, want none", len(rels))
			case c.edges && (len(current) != 1 || len(rels) != len(cities)+1):
				t.Fatalf("%d lives_in edges, %d current: want %d and exactly 1", len(rels), len(current), len(cities)+1)
			}
			page, err := first.Facts(ctx, "", memory.FactQuery{Statuses: []memory.Status{memory.StatusActive, memory.StatusSuperseded}, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			next := map[string]string{} // fact → the fact that superseded it
			var active []string
			var paris string
			for _, f := range page.Facts {
				if f.Text == "Tom lives in Paris" {
					paris = f.ID
				}
				if f.Status == memory.StatusActive {
					active = append(active, f.ID)
				} else {
					next[f.ID] = f.SupersededBy
				}
			}
			if len(page.Facts) != len(cities)+1 || len(active) != 1 {
				t.Fatalf("%d facts, %d active; want %d and 1", len(page.Facts), len(active), len(cities)+1)
			}
			steps, seen := 0, map[string]bool{}
			for id := paris; next[id] != ""; id = next[id] {
				if seen[id] {
					t.Fatalf("the supersession history loops at %s", id)
				}
				seen[id] = true
				steps++
			}
			if steps != len(cities) {
				t.Errorf("the history from Paris has %d steps, want one chain of %d through every fact", steps, len(cities))
			}
		})
	}
}
