package mnemo_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/provider/openai"
)

// The observation passes end to end: an engine with an LLM (the OpenAI
// client against llmtest's scripted server, over real HTTP) on a SQLite
// file, facts retained through the LLM write path, then
// Engine.Consolidate.

// eachStore runs test on an engine with an LLM over a SQLite file, and
// over PostgreSQL when MNEMO_TEST_POSTGRES is set.
func eachStore(t *testing.T, test func(t *testing.T, e *llmEnv)) {
	for _, c := range []struct {
		name string
		db   func(t *testing.T) string
	}{
		{"SQLite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "mnemo.db") }},
		{"Postgres", pgSchemaURL},
	} {
		t.Run(c.name, func(t *testing.T) { test(t, newLLMEnvAt(t, c.db(t))) })
	}
}

// newLLMEnvAt is newLLMEnv on the database db.
func newLLMEnvAt(t *testing.T, db string) *llmEnv {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	g := provider.NewGuard()
	g.Backoff, g.MaxBackoff, g.Timeout = time.Millisecond, 5*time.Millisecond, 2*time.Second
	c := &clock{t: time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)}
	eng, err := mnemo.Open(t.Context(), mnemo.Config{
		DB: db, LLM: openai.New(openai.Config{BaseURL: srv.URL(), APIKey: "sk-test", Model: "scripted"}),
		Guard: g, Now: c.now, AccessFlush: -1, JobPoll: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return &llmEnv{t: t, ctx: t.Context(), srv: srv, eng: eng, clock: c, guard: g}
}

// observation renders a per-fact decision.
func observation(action string, n int, text, kind string) llmtest.Reply {
	return llmtest.Reply{JSON: map[string]any{"action": action, "observation": n, "text": text, "kind": kind, "reason": "scripted"}}
}

// newFact is the user message's first line: the fact being decided.
func newFact(r llmtest.Request) string {
	c := r.Messages[len(r.Messages)-1].Content
	if i := strings.IndexByte(c, '\n'); i >= 0 {
		return c[:i]
	}
	return c
}

// candidate returns the number of the first candidate observation of r
// whose line holds every one of words; 0 when none does.
func candidate(r llmtest.Request, words ...string) int {
	for _, line := range strings.Split(r.Messages[len(r.Messages)-1].Content, "\n") {
		num, rest, ok := strings.Cut(line, ". (")
		n, err := strconv.Atoi(num)
		if !ok || err != nil {
			continue
		}
		if !slices.ContainsFunc(words, func(w string) bool { return !strings.Contains(rest, w) }) {
			return n
		}
	}
	return 0
}

// consolidate runs one pass and fails the test on an error.
func (e *llmEnv) consolidate(bank, pass string) *memory.Run {
	e.t.Helper()
	r, err := e.eng.Consolidate(e.ctx, bank, pass)
	if err != nil {
		e.t.Fatalf("Consolidate(%s): %v (run %+v)", pass, err, r)
	}
	if r.Status != memory.RunOK {
		e.t.Fatalf("Consolidate(%s): %+v", pass, *r)
	}
	return r
}

func (e *llmEnv) observations(bank string, st memory.Status) []*memory.Observation {
	e.t.Helper()
	all, err := e.eng.Observations(e.ctx, bank, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	return slices.DeleteFunc(all, func(o *memory.Observation) bool { return o.Status != st })
}

// pending returns the ids of bank's facts not yet consolidated.
func (e *llmEnv) pending(bank string) []string {
	e.t.Helper()
	if bank == "" {
		bank = memory.DefaultBank
	}
	fs, err := mnemo.StoreOf(e.eng).(memory.PendingFacts).PendingFacts(e.ctx, bank, 0, memory.MaxPageSize)
	if err != nil {
		e.t.Fatal(err)
	}
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.ID)
	}
	return ids
}

// say retains one message of speaker whose extraction is the one fact
// text (the scripted extraction answers the message, once).
func (e *llmEnv) say(bank, speaker, message, fact string, at time.Time) {
	e.t.Helper()
	e.srv.On(llmtest.Rule{Schema: "extraction", Contains: message, Times: 1, Reply: llmtest.Reply{JSON: extraction(xfact{
		text: fact, category: "project", speaker: speaker, message: 1, entities: [][3]any{{speaker, "person", 0.95}},
	})}})
	e.retain(bank, speaker, message, at)
}

// TestEngine_Observations_Transition is seed 000's transition: "Alex is
// the mobile lead", later "Alex now leads the backend rewrite". The
// second fact is offered the observation the first made and updates it;
// recall shows the observation with what it said before.
func TestEngine_Observations_Transition(t *testing.T) { eachStore(t, testObservationsTransition) }

func testObservationsTransition(t *testing.T, e *llmEnv) {
	mar := time.Date(2024, 3, 4, 10, 0, 0, 0, time.UTC)
	may := time.Date(2024, 5, 13, 10, 0, 0, 0, time.UTC)
	e.srv.On(llmtest.Rule{Schema: "conflicts", Reply: llmtest.Reply{JSON: decisions()}})
	e.srv.On(llmtest.Rule{Schema: "observation", Contains: "NEW FACT: [2024-03-04] Alex: Alex is the mobile lead",
		Reply: observation("create", 0, "Alex leads the mobile team", "pattern")})
	e.srv.On(llmtest.Rule{Schema: "observation", Match: func(r llmtest.Request) bool {
		return strings.Contains(newFact(r), "Alex now leads the backend rewrite") && candidate(r, "Alex leads the mobile team") == 1 &&
			strings.Contains(r.Messages[len(r.Messages)-1].Content, "- [2024-03-04] Alex: Alex is the mobile lead")
	}, Reply: observation("update", 1, "Alex moved from leading the mobile team to leading the backend rewrite", "transition")})

	e.clock.set(mar.Add(time.Hour))
	e.say("", "Alex", "I'm the mobile lead these days.", "Alex is the mobile lead", mar)
	r := e.consolidate("", mnemo.PassObservations)
	if r.Counts["facts"] != 1 || r.Counts["created"] != 1 || r.LLMCalls != 1 {
		t.Errorf("first run: counts %v, %d LLM calls; want one created with one call", r.Counts, r.LLMCalls)
	}
	created := e.observations("", memory.StatusActive)
	if len(created) != 1 {
		t.Fatalf("after the first run: %d observations", len(created))
	}

	e.clock.set(may.Add(time.Hour))
	e.say("", "Alex", "Big news: I'm leading the backend rewrite now.", "Alex now leads the backend rewrite", may)
	r = e.consolidate("", mnemo.PassObservations)
	if r.Counts["facts"] != 1 || r.Counts["updated"] != 1 || r.Counts["created"] != 0 || r.Counts["failed"] != 0 {
		t.Errorf("second run: counts %v; want one updated", r.Counts)
	}
	t.Logf("second decision's prompt:\n%s", e.srv.ChatRequests()[len(e.srv.ChatRequests())-1].Messages[1].Content)
	obs := e.observations("", memory.StatusActive)
	if len(obs) != 1 || obs[0].ID != created[0].ID {
		t.Fatalf("after the second run: %d observations, want the first one updated", len(obs))
	}
	o := obs[0]
	if o.Text != "Alex moved from leading the mobile team to leading the backend rewrite" || o.Kind != memory.ObservationTransition ||
		o.EvidenceCount != 2 || len(o.SourceFactIDs) != 2 || len(o.History) != 1 ||
		o.History[0].Previous != "Alex leads the mobile team" || !o.History[0].ChangedAt.Equal(may) {
		t.Errorf("observation: %+v; want the transition with the old text as history, changed %v", *o, may)
	}
	if len(e.pending("")) != 0 {
		t.Errorf("pending after the runs: %q", e.pending(""))
	}

	for _, c := range []struct{ format, want string }{
		{memory.FormatText, "  previously: Alex leads the mobile team (changed 2024-05-13)"},
		{memory.FormatMarkdown, "  - *previously:* Alex leads the mobile team (changed 2024-05-13)"},
	} {
		rec, err := e.eng.Recall(e.ctx, memory.Query{Text: "What does Alex lead?", Format: c.format})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("recall context (%s):\n%s", c.format, rec.Context)
		if len(rec.Observations) == 0 || rec.Observations[0].Observation.ID != o.ID {
			t.Errorf("recall (%s): observations %v, want the transition first", c.format, rec.Observations)
		}
		if !strings.Contains(rec.Context, o.Text) || !strings.Contains(rec.Context, c.want) {
			t.Errorf("recall context (%s) lacks the observation or %q:\n%s", c.format, c.want, rec.Context)
		}
	}
}

// Two near-identical observations merge into one keeper: its evidence
// summed, both sources, the other superseded. A pair the model keeps
// apart stays, and is asked once.
func TestEngine_Observations_Merge(t *testing.T) {
	for _, answer := range []string{"merge", "keep"} {
		t.Run(answer, func(t *testing.T) {
			eachStore(t, func(t *testing.T, e *llmEnv) { testObservationsMerge(t, e, answer) })
		})
	}
}

// testObservationsMerge makes two near-identical observations and runs
// the merge with the model answering answer.
func testObservationsMerge(t *testing.T, e *llmEnv, answer string) {
	day := func(d int) time.Time { return time.Date(2024, 6, d, 7, 0, 0, 0, time.UTC) }
	e.srv.On(llmtest.Rule{Schema: "conflicts", Reply: llmtest.Reply{JSON: decisions()}})
	// Each fact creates its own observation, alike but for a full
	// stop: near-identical.
	e.srv.On(llmtest.Rule{Schema: "observation", Contains: "Sam ran at 6am", Reply: observation("create", 0, "Sam runs every morning", "pattern")})
	e.srv.On(llmtest.Rule{Schema: "observation", Contains: "Sam ran at dawn again", Reply: observation("create", 0, "Sam runs every morning.", "pattern")})
	e.clock.set(day(3))
	e.say("", "Sam", "Ran at 6am today!", "Sam ran at 6am", day(1))
	e.say("", "Sam", "Out at dawn again for my run.", "Sam ran at dawn again", day(2))
	if r := e.consolidate("", mnemo.PassObservations); r.Counts["created"] != 2 {
		t.Fatalf("observations: %v, want 2 created", r.Counts)
	}
	two := e.observations("", memory.StatusActive)
	if len(two) != 2 {
		t.Fatalf("%d observations, want 2", len(two))
	}

	reply := llmtest.Reply{JSON: map[string]any{"action": answer, "text": "Sam runs every morning, from 6am or at dawn", "reason": "scripted"}}
	if answer == "keep" {
		reply = llmtest.Reply{JSON: map[string]any{"action": "keep", "text": "", "reason": "scripted"}}
	}
	e.srv.On(llmtest.Rule{Schema: "observation_merge", Match: func(r llmtest.Request) bool {
		c := r.Messages[len(r.Messages)-1].Content
		return strings.Contains(c, "A. (pattern; 1 supporting fact;") && strings.Contains(c, "B. (pattern; 1 supporting fact;")
	}, Reply: reply})
	r := e.consolidate("", mnemo.PassObservationMerge)
	if r.Counts["pairs"] != 1 || r.LLMCalls != 1 {
		t.Errorf("merge run: %v, %d calls; want one pair, asked once", r.Counts, r.LLMCalls)
	}
	active := e.observations("", memory.StatusActive)
	if answer == "keep" {
		if r.Counts["kept"] != 1 || len(active) != 2 {
			t.Errorf("keep: counts %v, %d active; want both kept", r.Counts, len(active))
		}
		return
	}
	if r.Counts["merged"] != 1 || len(active) != 1 {
		t.Fatalf("merge: counts %v, %d active; want one keeper", r.Counts, len(active))
	}
	k := active[0]
	// Equal evidence and the same creation time: the smaller id keeps
	// (two is newest first, then id descending).
	older := two[1]
	// The sources in time order: the day-1 fact first, whichever
	// observation keeps.
	var sources []string
	for _, o := range two {
		sources = append(sources, o.SourceFactIDs...)
	}
	occurred := func(id string) time.Time {
		d, err := e.eng.Fact(e.ctx, "", id)
		if err != nil {
			t.Fatal(err)
		}
		return d.Fact.EventTime()
	}
	slices.SortFunc(sources, func(a, b string) int { return occurred(a).Compare(occurred(b)) })
	if k.ID != older.ID || k.EvidenceCount != 2 || !slices.Equal(k.SourceFactIDs, sources) || k.Text != "Sam runs every morning, from 6am or at dawn" || len(k.History) != 1 {
		t.Errorf("keeper: %+v; want %s with evidence 2, sources %q in time order, one history entry", *k, older.ID, sources)
	}
	sup := e.observations("", memory.StatusSuperseded)
	if len(sup) != 1 || sup[0].ID != two[0].ID {
		t.Errorf("superseded: %v, want the newer observation", sup)
	}
	rec, err := e.eng.Recall(e.ctx, memory.Query{Text: "When does Sam run?"})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range rec.Observations {
		if o.Observation.ID == two[0].ID {
			t.Errorf("recall returned the superseded observation")
		}
	}
}

// Faults: a malformed answer fails one fact, which stays pending while
// the others go on; a provider that is down fails the run with its error
// and writes nothing; once it is back the pending facts are taken up,
// and a run with nothing pending does nothing.
func TestEngine_Observations_Faults(t *testing.T) { eachStore(t, testObservationsFaults) }

func testObservationsFaults(t *testing.T, e *llmEnv) {
	at := time.Date(2024, 7, 1, 9, 0, 0, 0, time.UTC)
	e.clock.set(at.Add(24 * time.Hour))
	e.srv.On(llmtest.Rule{Schema: "conflicts", Reply: llmtest.Reply{JSON: decisions()}})
	e.say("", "Ben", "I started learning Portuguese.", "Ben is learning Portuguese", at)
	e.say("", "Ben", "My knee hurts after squash.", "Ben hurt his knee playing squash", at.Add(time.Hour))
	e.say("", "Ben", "Booked flights to Lisbon!", "Ben booked flights to Lisbon", at.Add(2*time.Hour))

	e.srv.On(llmtest.Rule{Schema: "observation", Contains: "Ben hurt his knee", Reply: llmtest.Reply{Content: "Sure! The knee fact is interesting {"}})
	e.srv.On(llmtest.Rule{Schema: "observation", Contains: "NEW FACT: [2024-07-01] Ben: Ben is learning Portuguese", Reply: observation("create", 0, "Ben is preparing for life in Portugal", "trend")})
	e.srv.On(llmtest.Rule{Schema: "observation", Contains: "NEW FACT: [2024-07-01] Ben: Ben booked flights to Lisbon", Reply: observation("update", 1, "Ben is preparing a move to Portugal: learning Portuguese, flights to Lisbon booked", "trend")})
	r := e.consolidate("", mnemo.PassObservations)
	if r.Counts["facts"] != 3 || r.Counts["failed"] != 1 || r.Counts["created"] != 1 || r.Counts["updated"] != 1 {
		t.Errorf("run with a malformed answer: %v; want 1 failed, 1 created, 1 updated", r.Counts)
	}
	knee := e.factByText("", "Ben hurt his knee playing squash")
	if p := e.pending(""); !slices.Equal(p, []string{knee.ID}) {
		t.Errorf("pending: %q, want the knee fact alone", p)
	}
	before := e.observations("", memory.StatusActive)

	// The provider goes down.
	e.srv.Reset()
	e.srv.On(llmtest.Rule{Schema: "observation", Reply: llmtest.Reply{Status: 503, Content: "overloaded"}})
	r, err := e.eng.Consolidate(e.ctx, "", mnemo.PassObservations)
	if err == nil || r == nil || r.Status != memory.RunFailed || !strings.Contains(r.Error, "overloaded") || memory.ErrorCode(err) != memory.EUNAVAILABLE {
		t.Fatalf("run with the provider down: %+v, %v; want failed with the provider's error", r, err)
	}
	runs, _ := e.eng.Runs(e.ctx, "", 0)
	if i := slices.IndexFunc(runs, func(x *memory.Run) bool { return x.ID == r.ID }); i < 0 || runs[i].Status != memory.RunFailed || runs[i].Error == "" {
		t.Errorf("stored run %s: not found failed with its error among %d runs", r.ID, len(runs))
	}
	if after := e.observations("", memory.StatusActive); !slices.EqualFunc(after, before, func(a, b *memory.Observation) bool {
		return a.ID == b.ID && a.Text == b.Text && a.EvidenceCount == b.EvidenceCount
	}) {
		t.Errorf("observations changed while the provider was down")
	}
	if p := e.pending(""); len(p) != 1 {
		t.Errorf("pending after the failed run: %q, want the knee fact", p)
	}

	// Back up: the pending fact is taken in, then nothing is left.
	e.srv.Reset()
	e.srv.On(llmtest.Rule{Schema: "observation", Contains: "Ben hurt his knee", Reply: observation("skip", 0, "", "pattern")})
	r = e.consolidate("", mnemo.PassObservations)
	if r.Counts["facts"] != 1 || r.Counts["skipped"] != 1 || len(e.pending("")) != 0 {
		t.Errorf("run after recovery: %v, pending %q; want the knee fact skipped", r.Counts, e.pending(""))
	}
	r = e.consolidate("", mnemo.PassObservations)
	if r.Counts["facts"] != 0 || r.LLMCalls != 0 {
		t.Errorf("idle run: %v, %d calls; want nothing done", r.Counts, r.LLMCalls)
	}
	if r = e.consolidate("", mnemo.PassObservationMerge); r.Counts["pairs"] != 0 || r.LLMCalls != 0 {
		t.Errorf("merge run over distinct observations: %v, %d calls; want no pair", r.Counts, r.LLMCalls)
	}
}

// growthTopic is one of the growth test's 200 topics: a person and a
// habit, said three ways.
type growthTopic struct {
	name, key string
	says      [3]string
	obs       string
}

// growthTopics makes 20 people × 10 habits, each said three ways: as
// is, with the time phrase moved to the front, and with synonyms.
func growthTopics() []growthTopic {
	names := []string{"Maria", "Tomas", "Priya", "Kenji", "Olga", "Diego", "Amara", "Lukas", "Sofia", "Omar",
		"Ingrid", "Mateo", "Yuki", "Fatima", "Nikolai", "Chloe", "Rahul", "Elena", "Kwame", "Hana"}
	habits := []struct{ verb, syn, object, when, whenSyn string }{
		{"plays", "practises", "tennis", "on Saturdays", "every Saturday"},
		{"bakes", "makes", "sourdough bread", "on Sundays", "each Sunday"},
		{"swims", "does", "laps in the pool", "before breakfast", "ahead of breakfast"},
		{"practices", "rehearses", "the cello", "in the evenings", "every evening"},
		{"cycles", "rides a bike", "to the office", "on weekdays", "each weekday"},
		{"reads", "studies", "history books", "at bedtime", "before sleeping"},
		{"grows", "cultivates", "tomatoes on the balcony", "every summer", "each summer"},
		{"climbs", "scales", "bouldering walls at the gym", "on Tuesdays", "every Tuesday"},
		{"writes", "keeps", "a gratitude journal", "at night", "every night"},
		{"visits", "goes to see", "the farmers market", "on Fridays", "each Friday"},
	}
	var out []growthTopic
	for _, n := range names {
		for _, h := range habits {
			when := strings.ToUpper(h.when[:1]) + h.when[1:]
			out = append(out, growthTopic{
				name: n, key: strings.Fields(h.object)[len(strings.Fields(h.object))-1],
				says: [3]string{
					fmt.Sprintf("%s %s %s %s", n, h.verb, h.object, h.when),
					fmt.Sprintf("%s, %s %s %s", when, n, h.verb, h.object),
					fmt.Sprintf("%s %s %s %s", n, h.syn, h.object, h.whenSyn),
				},
				obs: fmt.Sprintf("%s has a steady habit: %s %s", n, h.object, h.when),
			})
		}
	}
	return out
}

// TestEngine_Observations_Growth retains the same 200 facts three
// times, paraphrased (word order, synonyms), with the observation pass
// after each round. The scripted model updates a candidate about the
// same person and habit when one is offered, and creates one otherwise:
// the bank ends with one observation per topic only if the pass offers
// the right candidates.
func TestEngine_Observations_Growth(t *testing.T) {
	if testing.Short() {
		t.Skip("600 retains and 600 decisions over HTTP")
	}
	eachStore(t, testObservationsGrowth)
}

func testObservationsGrowth(t *testing.T, e *llmEnv) {
	topics := growthTopics()
	e.srv.On(llmtest.Rule{Schema: "conflicts", Reply: llmtest.Reply{JSON: decisions()}})
	for _, tp := range topics {
		about := func(r llmtest.Request) bool {
			line := newFact(r)
			return strings.Contains(line, tp.name) && strings.Contains(line, tp.key)
		}
		e.srv.On(llmtest.Rule{Schema: "observation", Match: func(r llmtest.Request) bool { return about(r) && candidate(r, tp.name, tp.key) == 0 },
			Reply: observation("create", 0, tp.obs, "pattern")})
		for k := 1; k <= 5; k++ {
			e.srv.On(llmtest.Rule{Schema: "observation", Match: func(r llmtest.Request) bool { return about(r) && candidate(r, tp.name, tp.key) == k },
				Reply: observation("update", k, tp.obs, "pattern")})
		}
	}
	start := time.Date(2024, 1, 1, 8, 0, 0, 0, time.UTC)
	for round := range 3 {
		var reqs []memory.RetainRequest
		for i, tp := range topics {
			at := start.AddDate(0, 0, 7*round).Add(time.Duration(i) * time.Minute)
			msg := tp.says[round] + "."
			e.srv.On(llmtest.Rule{Schema: "extraction", Contains: msg, Times: 1, Reply: llmtest.Reply{JSON: extraction(xfact{
				text: tp.says[round], category: "personal", speaker: tp.name, message: 1, entities: [][3]any{{tp.name, "person", 0.95}},
			})}})
			reqs = append(reqs, memory.RetainRequest{Messages: []memory.Message{{Speaker: tp.name, Text: msg, Time: at}}, At: at})
		}
		e.clock.set(start.AddDate(0, 0, 7*round+1))
		_, errs := e.eng.RetainMany(e.ctx, reqs)
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, item %d: %v", round, i, err)
			}
		}
		r := e.consolidate("", mnemo.PassObservations)
		t.Logf("round %d: %v, %d LLM calls, %d observations", round+1, r.Counts, r.LLMCalls, len(e.observations("", memory.StatusActive)))
		want := map[string]int{"facts": len(topics), "created": 0, "updated": len(topics), "skipped": 0, "failed": 0}
		if round == 0 {
			want["created"], want["updated"] = len(topics), 0
		}
		for k, v := range want {
			if r.Counts[k] != v {
				t.Errorf("round %d: %s = %d, want %d (counts %v)", round+1, k, r.Counts[k], v, r.Counts)
			}
		}
	}
	obs := e.observations("", memory.StatusActive)
	perText := map[string]int{}
	for _, o := range obs {
		perText[o.Text]++
		if o.EvidenceCount != 3 || len(o.SourceFactIDs) != 3 {
			t.Errorf("observation %q: evidence %d, %d sources; want 3 each", o.Text, o.EvidenceCount, len(o.SourceFactIDs))
		}
	}
	if len(obs) != len(topics) || len(perText) != len(topics) {
		t.Errorf("%d observations for %d topics (%d distinct texts): duplicates grew", len(obs), len(topics), len(perText))
	}
}

// Offline, both observation passes are recorded as skipped, saying why,
// and leave the facts pending for when an LLM is configured.
func TestEngine_Observations_Offline(t *testing.T) {
	ctx := t.Context()
	eng := open(t, mnemo.Config{})
	if _, err := eng.Retain(ctx, memory.RetainRequest{Text: "Alex is the mobile lead."}); err != nil {
		t.Fatal(err)
	}
	for _, pass := range []string{mnemo.PassObservations, mnemo.PassObservationMerge} {
		r, err := eng.Consolidate(ctx, "", pass)
		if err != nil || r.Status != memory.RunSkipped || r.Reason != "no LLM configured" || r.LLMCalls != 0 {
			t.Errorf("%s offline: %+v, %v; want skipped: no LLM configured", pass, r, err)
		}
	}
	fs, err := mnemo.StoreOf(eng.Engine).(memory.PendingFacts).PendingFacts(ctx, memory.DefaultBank, 0, 10)
	if err != nil || len(fs) != 1 {
		t.Errorf("pending offline: %d facts, %v; want the fact left pending", len(fs), err)
	}
}
