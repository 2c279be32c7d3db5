package mnemo_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/provider/openai"
)

// Every test here runs the LLM write path against llmtest's scripted
// OpenAI-compatible server over real HTTP, through the real OpenAI client
// and the real provider.Guard, on a real SQLite file.

// clock is a settable clock for the engine.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// llmEnv is an engine with an LLM behind a scripted server.
type llmEnv struct {
	t     *testing.T
	ctx   context.Context
	srv   *llmtest.Server
	eng   *mnemo.Engine
	clock *clock
	guard *provider.Guard
}

func newLLMEnv(t *testing.T) *llmEnv {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	g := provider.NewGuard()
	g.Backoff, g.MaxBackoff, g.Timeout = time.Millisecond, 5*time.Millisecond, 2*time.Second
	c := &clock{t: time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)}
	eng, err := mnemo.Open(t.Context(), mnemo.Config{
		DB:          filepath.Join(t.TempDir(), "mnemo.db"),
		LLM:         openai.New(openai.Config{BaseURL: srv.URL(), APIKey: "sk-test-secret", Model: "scripted"}),
		Guard:       g,
		Now:         c.now,
		AccessFlush: -1,
		JobPoll:     -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return &llmEnv{t: t, ctx: t.Context(), srv: srv, eng: eng, clock: c, guard: g}
}

// xfact is one fact of a scripted extraction answer.
type xfact struct {
	text, category, speaker string
	confidence              float64
	message                 int
	when                    string
	entities                [][3]any // name, type, confidence
	relations               [][3]string
	sensitivity             string
}

// extraction renders facts as an answer valid against the schema.
func extraction(fs ...xfact) map[string]any {
	out := []map[string]any{}
	for _, f := range fs {
		ents := []map[string]any{}
		for _, e := range f.entities {
			ents = append(ents, map[string]any{"name": e[0], "type": e[1], "confidence": e[2]})
		}
		rels := []map[string]any{}
		for _, r := range f.relations {
			rels = append(rels, map[string]any{"subject": r[0], "predicate": r[1], "object": r[2], "confidence": 0.9})
		}
		conf := f.confidence
		if conf == 0 {
			conf = 0.9
		}
		sens := f.sensitivity
		if sens == "" {
			sens = "open"
		}
		out = append(out, map[string]any{
			"text": f.text, "kind": "experience", "category": f.category, "confidence": conf, "importance": 0.7,
			"sensitivity": sens, "speaker": f.speaker, "message": f.message, "evidence": f.text,
			"occurred_start": f.when, "occurred_end": "", "entities": ents, "relations": rels, "causes": []any{},
		})
	}
	return map[string]any{"facts": out}
}

// decisions renders a conflict answer.
func decisions(ds ...[3]any) map[string]any {
	out := []map[string]any{}
	for _, d := range ds {
		out = append(out, map[string]any{"fact": d[0], "action": d[1], "existing": d[2], "reason": "scripted"})
	}
	return map[string]any{"decisions": out}
}

func (e *llmEnv) retain(bank, speaker, text string, at time.Time) *memory.RetainResult {
	e.t.Helper()
	res, err := e.eng.Retain(e.ctx, memory.RetainRequest{BankID: bank, Messages: []memory.Message{{Speaker: speaker, Text: text, Time: at}}, At: at})
	if err != nil {
		e.t.Fatalf("Retain(%q): %v", text, err)
	}
	return res
}

// factByText finds a fact (any status) of the bank by its exact text.
func (e *llmEnv) factByText(bank, text string) *memory.Fact {
	e.t.Helper()
	rec, err := e.eng.Recall(e.ctx, memory.Query{BankID: bank, Text: text, Limit: 50, Filter: memory.Filter{Statuses: []memory.Status{memory.StatusActive, memory.StatusSuperseded}, Sensitive: true}})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, r := range rec.Results {
		if r.Fact.Text == text {
			return r.Fact
		}
	}
	e.t.Fatalf("no fact %q in bank %s", text, bank)
	return nil
}

// TestEngine_LLM_NikeToHoka is seed 004's story: a preference stated in
// week 1 and replaced in week 3 ends with the old edge closed, the new one
// open, and recall answering with the new fact and the old as history.
func TestEngine_LLM_NikeToHoka(t *testing.T) {
	e := newLLMEnv(t)
	week1 := time.Date(2024, 5, 1, 18, 0, 0, 0, time.UTC)
	week3 := time.Date(2024, 5, 15, 18, 0, 0, 0, time.UTC)
	tom := [3]any{"Tom", "person", 0.95}
	e.srv.On(llmtest.Rule{Schema: "extraction", Contains: "I love Nike shoes", Reply: llmtest.Reply{JSON: extraction(xfact{
		text: "Tom's favourite shoe brand is Nike", category: "preference", speaker: "Tom", message: 1,
		entities: [][3]any{tom, {"Nike", "organization", 0.9}}, relations: [][3]string{{"Tom", "likes", "Nike"}},
	})}})
	e.srv.On(llmtest.Rule{Schema: "extraction", Contains: "these Hokas are incredible", Reply: llmtest.Reply{JSON: extraction(xfact{
		text: "Tom's favourite shoe brand is now Hoka", category: "preference", speaker: "Tom", message: 1,
		entities: [][3]any{tom, {"Hoka", "organization", 0.9}}, relations: [][3]string{{"Tom", "likes", "Hoka"}},
	})}})

	e.clock.set(week1)
	e.retain("default", "Tom", "I love Nike shoes, I wore them for every run this year.", week1)
	nike := e.factByText("default", "Tom's favourite shoe brand is Nike")
	if n := len(e.srv.ChatRequests()); n != 1 {
		t.Errorf("week 1: %d LLM calls, want 1 (extraction; nothing to compare with yet)", n)
	}

	e.srv.On(llmtest.Rule{Schema: "conflicts", Contains: "Hoka", Reply: llmtest.Reply{JSON: decisions([3]any{0, "update", nike.ID})}})
	now := week3.Add(time.Hour)
	e.clock.set(now)
	e.retain("default", "Tom", "Switched this month: these Hokas are incredible.", week3)
	if n := len(e.srv.ChatRequests()); n != 3 {
		t.Errorf("after week 3: %d LLM calls, want 3 (one extraction each, one conflict call)", n)
	}
	// The judge saw the Nike fact as a candidate of the Hoka fact.
	judged := e.srv.ChatRequests()[2]
	if judged.Schema != "conflicts" || !strings.Contains(judged.Messages[len(judged.Messages)-1].Content, nike.ID) {
		t.Errorf("conflict call: schema %q, content %q; want the Nike fact among the candidates", judged.Schema, judged.Messages[len(judged.Messages)-1].Content)
	}

	hoka := e.factByText("default", "Tom's favourite shoe brand is now Hoka")
	nike = e.factByText("default", "Tom's favourite shoe brand is Nike")
	if nike.Status != memory.StatusSuperseded || nike.SupersededBy != hoka.ID || !nike.ValidTo.Equal(week3) || !nike.ExpiredAt.Equal(now) {
		t.Errorf("Nike fact: status %s by %q, valid_to %v, expired_at %v; want superseded by %s, %v, %v",
			nike.Status, nike.SupersededBy, nike.ValidTo, nike.ExpiredAt, hoka.ID, week3, now)
	}
	if hoka.Status != memory.StatusActive || !hoka.ValidTo.IsZero() {
		t.Errorf("Hoka fact: %s, valid_to %v; want active and open", hoka.Status, hoka.ValidTo)
	}

	st := mnemo.StoreOf(e.eng)
	toms, err := st.EntitiesByName(e.ctx, "default", []string{"tom"})
	if err != nil || len(toms) != 1 {
		t.Fatalf("entity Tom: %v, %v; want one", toms, err)
	}
	rels, err := st.Relations(e.ctx, "default", memory.RelationQuery{SubjectID: toms[0].ID, Predicate: "likes"})
	if err != nil || len(rels) != 2 {
		t.Fatalf("Tom likes: %d relations, %v; want 2", len(rels), err)
	}
	objects, _ := st.Entities(e.ctx, "default", []string{rels[0].ObjectID, rels[1].ObjectID})
	name := map[string]string{}
	for _, o := range objects {
		name[o.ID] = o.Name
	}
	for _, r := range rels {
		switch name[r.ObjectID] {
		case "Nike":
			if !r.ValidFrom.Equal(week1) || !r.ValidTo.Equal(week3) || !r.ExpiredAt.Equal(now) || !r.CreatedAt.Equal(week1) {
				t.Errorf("Tom likes Nike: valid %v–%v, created %v, expired %v; want %v–%v, %v, %v", r.ValidFrom, r.ValidTo, r.CreatedAt, r.ExpiredAt, week1, week3, week1, now)
			}
		case "Hoka":
			if !r.ValidFrom.Equal(week3) || !r.ValidTo.IsZero() || !r.ExpiredAt.IsZero() || !r.CreatedAt.Equal(now) {
				t.Errorf("Tom likes Hoka: valid %v–%v, expired %v; want open from %v", r.ValidFrom, r.ValidTo, r.ExpiredAt, week3)
			}
		default:
			t.Errorf("unexpected relation object %q", name[r.ObjectID])
		}
	}
	if tomNow, _ := st.Entities(e.ctx, "default", []string{toms[0].ID}); len(tomNow) != 1 || !tomNow[0].Contradicted {
		t.Errorf("Tom: contradicted = false, want true after the closed edge")
	}

	rec, err := e.eng.Recall(e.ctx, memory.Query{Text: "What's my favourite shoe brand?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Results) == 0 || rec.Results[0].Fact.ID != hoka.ID {
		t.Fatalf("recall: got %v, want the Hoka fact first", texts(rec))
	}
	for _, r := range rec.Results {
		if r.Fact.ID == nike.ID {
			t.Errorf("recall without history returned the superseded Nike fact")
		}
	}
	if p := rec.Results[0].Previously; len(p) != 1 || p[0].ID != nike.ID {
		t.Errorf("Hoka result's history: %v, want the Nike fact", p)
	}
	if want := "previously: Tom: Tom's favourite shoe brand is Nike (changed 2024-05-15)"; !strings.Contains(rec.Context, want) {
		t.Errorf("context lacks %q:\n%s", want, rec.Context)
	}
	hist, _ := e.eng.Recall(e.ctx, memory.Query{Text: "What's my favourite shoe brand?", Filter: memory.Filter{Statuses: []memory.Status{memory.StatusActive, memory.StatusSuperseded}}})
	if !containsFact(hist, nike.ID) {
		t.Errorf("recall with history: %v, want the Nike fact too", texts(hist))
	}

	// As of week 2, mnemo knew only the Nike fact, and it was current.
	before, err := e.eng.Recall(e.ctx, memory.Query{Text: "What's my favourite shoe brand?", Filter: memory.Filter{AsOf: week3.Add(-7 * 24 * time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Results) == 0 || before.Results[0].Fact.ID != nike.ID || containsFact(before, hoka.ID) || len(before.Results[0].Previously) != 0 {
		t.Errorf("recall as of week 2: %v, want the Nike fact first, no Hoka, no history", texts(before))
	}
	if strings.Contains(before.Context, "previously") {
		t.Errorf("context as of week 2 shows a history that came later:\n%s", before.Context)
	}
}

func texts(rec *memory.Recollection) []string {
	var out []string
	for _, r := range rec.Results {
		out = append(out, r.Fact.Text)
	}
	return out
}

func containsFact(rec *memory.Recollection, id string) bool {
	for _, r := range rec.Results {
		if r.Fact.ID == id {
			return true
		}
	}
	return false
}

// TestEngine_LLM_RedisToMemcached is seed 002's conflict resolution: a
// repeated fact is skipped and reinforces the one it repeats; a switch
// supersedes.
func TestEngine_LLM_RedisToMemcached(t *testing.T) {
	e := newLLMEnv(t)
	day := func(d int) time.Time { return time.Date(2024, 3, d, 10, 0, 0, 0, time.UTC) }
	redis := "Alice decided to use Redis for caching"
	ents := [][3]any{{"Alice", "person", 0.9}, {"Redis", "technology", 0.9}}
	e.srv.On(llmtest.Rule{Schema: "extraction", Contains: "go with Redis", Reply: llmtest.Reply{JSON: extraction(
		xfact{text: redis, category: "decision", speaker: "Alice", message: 1, entities: ents, relations: [][3]string{{"Alice", "uses", "Redis"}}},
		xfact{text: "Bob disagreed with Alice's caching decision", category: "decision", speaker: "Alice", message: 1, confidence: 0.85,
			entities: [][3]any{{"Bob", "person", 0.9}, {"Alice", "person", 0.9}}},
	)}})
	e.srv.On(llmtest.Rule{Schema: "extraction", Contains: "Redis it is", Reply: llmtest.Reply{JSON: extraction(
		xfact{text: redis, category: "decision", speaker: "Alice", message: 1, entities: ents},
	)}})
	e.srv.On(llmtest.Rule{Schema: "extraction", Contains: "switched from Redis", Reply: llmtest.Reply{JSON: extraction(
		xfact{text: "The team switched from Redis to Memcached for caching", category: "decision", speaker: "Alice", message: 1,
			entities: [][3]any{{"Alice", "person", 0.9}, {"Memcached", "technology", 0.9}}, relations: [][3]string{{"Alice", "uses", "Memcached"}}},
	)}})

	e.clock.set(day(1))
	e.retain("default", "Alice", "We'll go with Redis for caching. Bob disagreed.", day(1))
	first := e.factByText("default", redis)

	// The same fact again: skipped, the first one reinforced.
	e.srv.On(llmtest.Rule{Schema: "conflicts", Contains: "Redis it is", Times: 1, Reply: llmtest.Reply{JSON: decisions([3]any{0, "duplicate", first.ID})}})
	e.srv.On(llmtest.Rule{Schema: "conflicts", Match: func(r llmtest.Request) bool {
		return strings.Contains(r.Messages[len(r.Messages)-1].Content, "NEW 0: "+redis)
	}, Times: 1,
		Reply: llmtest.Reply{JSON: decisions([3]any{0, "duplicate", first.ID})}})
	before, _ := e.eng.Stats(e.ctx, "default")
	res := e.retain("default", "Alice", "Redis it is, final answer.", day(2))
	after, _ := e.eng.Stats(e.ctx, "default")
	if res.Facts != 0 || after.Facts != before.Facts || after.Documents != before.Documents+1 {
		t.Errorf("duplicate: result %d facts, bank %d → %d facts, %d → %d documents; want no new fact, the document kept", res.Facts, before.Facts, after.Facts, before.Documents, after.Documents)
	}
	if f := e.factByText("default", redis); f.ReinforcementCount != 1 || f.Status != memory.StatusActive {
		t.Errorf("repeated fact: reinforcement %d, %s; want 1, active", f.ReinforcementCount, f.Status)
	}

	e.srv.On(llmtest.Rule{Schema: "conflicts", Contains: "Memcached", Reply: llmtest.Reply{JSON: decisions([3]any{0, "contradiction", first.ID})}})
	e.clock.set(day(9))
	e.retain("default", "Alice", "The team switched from Redis to Memcached last week.", day(9))
	old := e.factByText("default", redis)
	mc := e.factByText("default", "The team switched from Redis to Memcached for caching")
	if old.Status != memory.StatusSuperseded || old.SupersededBy != mc.ID || !old.ValidTo.Equal(mc.OccurredStart) || !old.ExpiredAt.Equal(day(9)) {
		t.Errorf("Redis fact: %s by %q, valid_to %v, expired %v; want superseded by %s at %v, %v", old.Status, old.SupersededBy, old.ValidTo, old.ExpiredAt, mc.ID, mc.OccurredStart, day(9))
	}
	st, _ := e.eng.Stats(e.ctx, "default")
	if st.Facts != 3 || st.Active != 2 || st.Superseded != 1 {
		t.Errorf("stats: %d facts, %d active, %d superseded; want 3, 2, 1 (nothing deleted)", st.Facts, st.Active, st.Superseded)
	}
	rec, _ := e.eng.Recall(e.ctx, memory.Query{Text: "what caching solution was chosen?"})
	if len(rec.Results) == 0 || rec.Results[0].Fact.ID != mc.ID {
		t.Errorf("recall: %v, want the Memcached fact first", texts(rec))
	}
	u := e.eng.Usage()
	if u["extract"].Calls != 3 || u["conflicts"].Calls != 2 || u["extract"].Errors != 0 {
		t.Errorf("usage: %+v; want 3 extraction calls and 2 conflict calls", u)
	}
}

// TestEngine_LLM_Gates drops facts and entities under their per-type
// gates and keeps one entity per name, Topic:Google and
// Organization:Google one Google (the type given with the highest
// confidence); sensitive facts stay out of recall unless asked for.
func TestEngine_LLM_Gates(t *testing.T) {
	e := newLLMEnv(t)
	at := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	e.srv.On(llmtest.Rule{Schema: "extraction", Reply: llmtest.Reply{JSON: extraction(
		xfact{text: "Maya works on search at Google", category: "project", speaker: "Maya", message: 1, confidence: 0.9,
			entities: [][3]any{{"Maya", "person", 0.95}, {"google", "organization", 0.6}, {"Google", "organization", 0.9}, {"Google", "topic", 0.8}, {"Sam", "person", 0.55}}},
		xfact{text: "Maya might switch teams", category: "decision", speaker: "Maya", message: 1, confidence: 0.65},
		xfact{text: "Maya enjoys climbing", category: "preference", speaker: "Maya", message: 1, confidence: 0.4},
		xfact{text: "Maya takes medication for migraines", category: "personal", speaker: "Maya", message: 1, confidence: 0.9, sensitivity: "sensitive"},
	)}})
	res := e.retain("default", "Maya", "I work on search at Google; might switch teams; I climb; my migraine meds are working.", at)
	if res.Facts != 2 {
		t.Errorf("facts: %d, want 2 (a decision at 0.65 < 0.7 and a fact at 0.4 < 0.5 gated)", res.Facts)
	}
	st := mnemo.StoreOf(e.eng)
	ents, _ := st.EntitiesByName(e.ctx, "default", []string{"google", "sam", "maya"})
	got := map[string]string{}
	for _, x := range ents {
		got[string(x.Type)+":"+x.Name] = x.ID
	}
	for _, want := range []string{"organization:Google", "person:Maya"} {
		if _, ok := got[want]; !ok {
			t.Errorf("entities %v: want %s", got, want)
		}
	}
	if len(got) != 2 {
		t.Errorf("entities %v: want exactly 2 (Sam at 0.55 < 0.6 gated; google/Google organization and Google topic one Google)", got)
	}
	rec, _ := e.eng.Recall(e.ctx, memory.Query{Text: "Maya medication migraines"})
	for _, r := range rec.Results {
		if r.Fact.Sensitivity == memory.SensitivitySensitive {
			t.Errorf("recall returned a sensitive fact without being asked: %q", r.Fact.Text)
		}
	}
	rec, _ = e.eng.Recall(e.ctx, memory.Query{Text: "Maya medication migraines", Filter: memory.Filter{Sensitive: true}})
	if len(rec.Results) == 0 || rec.Results[0].Fact.Sensitivity != memory.SensitivitySensitive {
		t.Errorf("recall asking for sensitive facts: %v, want the medication fact first", texts(rec))
	}
}

// TestEngine_LLM_Faults injects each provider fault: retain completes, or
// fails with one clear line and nothing of the document written.
func TestEngine_LLM_Faults(t *testing.T) {
	good := extraction(xfact{text: "Lena adopted a cat named Miso", category: "personal", speaker: "Lena", message: 1, entities: [][3]any{{"Lena", "person", 0.9}, {"Miso", "topic", 0.8}}})
	cases := []struct {
		name   string
		rules  []llmtest.Rule
		ok     bool
		errHas string
	}{
		{"Timeout", []llmtest.Rule{{Schema: "extraction", Reply: llmtest.Reply{Hang: true}}}, false, "200ms"},
		{"429ThenSuccess", []llmtest.Rule{{Schema: "extraction", Times: 2, Reply: llmtest.Reply{Status: 429, Content: "slow down"}}, {Schema: "extraction", Reply: llmtest.Reply{JSON: good}}}, true, ""},
		{"500Always", []llmtest.Rule{{Schema: "extraction", Reply: llmtest.Reply{Status: 500, Content: "model crashed"}}}, false, "model crashed"},
		{"TruncatedJSON", []llmtest.Rule{{Schema: "extraction", Reply: llmtest.Reply{JSON: good, TruncateContent: true}}}, false, "malformed"},
		{"TruncatedBody", []llmtest.Rule{{Schema: "extraction", Reply: llmtest.Reply{JSON: good, TruncateBody: true}}}, false, ""},
		{"SchemaViolation", []llmtest.Rule{{Schema: "extraction", Reply: llmtest.Reply{JSON: map[string]any{"facts": []any{map[string]any{"text": "Lena adopted a cat", "confidence": "very"}}}}}}, false, "malformed"},
		{"ConflictStage500", []llmtest.Rule{{Schema: "extraction", Reply: llmtest.Reply{JSON: good}}, {Schema: "conflicts", Reply: llmtest.Reply{Status: 503, Content: "overloaded"}}}, false, "overloaded"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newLLMEnv(t)
			e.guard.Timeout = 200 * time.Millisecond
			at := time.Date(2024, 7, 1, 8, 0, 0, 0, time.UTC)
			// A first document, so the conflict stage has a candidate.
			e.srv.On(llmtest.Rule{Schema: "extraction", Contains: "first", Times: 1, Reply: llmtest.Reply{JSON: extraction(xfact{text: "Lena adopted a cat named Miso last year", category: "personal", speaker: "Lena", message: 1})}})
			e.retain("default", "Lena", "first: I adopted Miso last year", at)
			for _, r := range c.rules {
				e.srv.On(r)
			}
			e.srv.On(llmtest.Rule{Schema: "conflicts", Reply: llmtest.Reply{JSON: decisions()}})
			before, _ := e.eng.Stats(e.ctx, "default")
			_, err := e.eng.Retain(e.ctx, memory.RetainRequest{Messages: []memory.Message{{Speaker: "Lena", Text: "I adopted a cat, Miso!"}}, At: at, ItemID: "doc-2"})
			after, _ := e.eng.Stats(e.ctx, "default")
			if c.ok {
				if err != nil {
					t.Fatalf("retain: %v, want success after retries", err)
				}
				if after.Documents != before.Documents+1 || after.Facts != before.Facts+1 {
					t.Errorf("stats %+v → %+v: want one more document and fact", before, after)
				}
				return
			}
			if err == nil {
				t.Fatalf("retain succeeded, want an error")
			}
			msg := memory.ErrorMessage(err)
			if strings.Contains(msg, "\n") || !strings.Contains(msg, c.errHas) || strings.Contains(err.Error(), "sk-test-secret") {
				t.Errorf("error %q: want one line mentioning %q, without the key", err, c.errHas)
			}
			if *after != *before {
				t.Errorf("stats %+v → %+v: want the bank unchanged", before, after)
			}
			if _, err := mnemo.StoreOf(e.eng).DocumentByItem(e.ctx, "default", memory.SourceAPI, "doc-2"); memory.ErrorCode(err) != memory.ENOTFOUND {
				t.Errorf("document after a failed retain: %v, want ENOTFOUND", err)
			}
		})
	}
}

// TestEngine_LLM_CallsPerDocument retains 50 documents through the
// scripted server and reports the LLM calls per document (≤ 2 on
// average: one extraction, and one conflict call only when similar facts
// exist).
func TestEngine_LLM_CallsPerDocument(t *testing.T) {
	e := newLLMEnv(t)
	topics := []string{"hiking", "chess", "baking", "cycling", "painting", "guitar", "rowing", "pottery", "sailing", "yoga"}
	people := []string{"Ana", "Ben", "Caro", "Dev", "Eli"}
	for i := 0; i < 50; i++ {
		p, topic := people[i%len(people)], topics[i%len(topics)]
		e.srv.On(llmtest.Rule{Schema: "extraction", Contains: fmt.Sprintf("doc-%02d", i), Reply: llmtest.Reply{JSON: extraction(
			xfact{text: fmt.Sprintf("%s took up %s in week %d", p, topic, i), category: "personal", speaker: p, message: 1,
				entities: [][3]any{{p, "person", 0.9}, {topic, "habit", 0.8}}, relations: [][3]string{{p, "practices", topic}}},
		), Usage: memory.Usage{InputTokens: 900, OutputTokens: 120}}})
	}
	e.srv.On(llmtest.Rule{Schema: "conflicts", Reply: llmtest.Reply{JSON: decisions(), Usage: memory.Usage{InputTokens: 300, OutputTokens: 20}}})
	for i := 0; i < 50; i++ {
		p := people[i%len(people)]
		at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, 7*i)
		e.retain("default", p, fmt.Sprintf("doc-%02d: I started something new this week.", i), at)
	}
	u := e.eng.Usage()
	calls := u["extract"].Calls + u["conflicts"].Calls
	perDoc := float64(calls) / 50
	t.Logf("LLM calls over 50 documents: %d extraction + %d conflicts = %.2f per document; tokens in/out %d/%d",
		u["extract"].Calls, u["conflicts"].Calls, perDoc, u["extract"].InputTokens+u["conflicts"].InputTokens, u["extract"].OutputTokens+u["conflicts"].OutputTokens)
	if perDoc > 2 || u["extract"].Calls != 50 {
		t.Errorf("%.2f LLM calls per document (%d extraction), want ≤ 2 and one extraction each", perDoc, u["extract"].Calls)
	}
	if got := len(e.srv.ChatRequests()); got != calls {
		t.Errorf("server saw %d chat requests, usage counts %d", got, calls)
	}
}

// TestEngine_LLM_RetainManyOrdered: items of one RetainMany are judged
// against the items before them, as if retained one by one.
func TestEngine_LLM_RetainManyOrdered(t *testing.T) {
	e := newLLMEnv(t)
	for _, brand := range []string{"Nike", "Hoka", "Asics"} {
		e.srv.On(llmtest.Rule{Schema: "extraction", Contains: "shoe-" + brand, Reply: llmtest.Reply{JSON: extraction(xfact{
			text: "Tom's favourite shoe brand is " + brand, category: "preference", speaker: "Tom", message: 1,
			entities: [][3]any{{"Tom", "person", 0.9}, {brand, "organization", 0.9}}, relations: [][3]string{{"Tom", "likes", brand}},
		})}})
	}
	e.srv.On(llmtest.Rule{Schema: "conflicts", Reply: llmtest.Reply{JSON: decisions()}})
	var reqs []memory.RetainRequest
	for i, brand := range []string{"Nike", "Hoka", "Asics"} {
		at := time.Date(2024, 5, 1+7*i, 9, 0, 0, 0, time.UTC)
		reqs = append(reqs, memory.RetainRequest{Messages: []memory.Message{{Speaker: "Tom", Text: "shoe-" + brand + " is what I run in now", Time: at}}, At: at})
	}
	_, errs := e.eng.RetainMany(e.ctx, reqs)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
	}
	var judged []string
	for _, r := range e.srv.ChatRequests() {
		if r.Schema == "conflicts" {
			judged = append(judged, r.Messages[len(r.Messages)-1].Content)
		}
	}
	if len(judged) != 2 || !strings.Contains(judged[0], "is Nike") || !strings.Contains(judged[1], "is Hoka") || !strings.Contains(judged[1], "is Nike") {
		t.Errorf("conflict calls: %q; want Hoka judged against Nike, then Asics against both", judged)
	}
}
