package consolidate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/hashembed"
	"github.com/mnemo-ai/mnemo/store/sqlite"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// temporalBank is a SQLite store with bank "b" whose vectors come from a
// 64-dimensional hashing embedder.
type temporalBank struct {
	t   *testing.T
	ctx context.Context
	s   *sqlite.Store
	emb *hashembed.Embedder
	n   int
}

func newTemporalBank(t *testing.T) *temporalBank {
	s := testutil.OpenStore(t)
	testutil.CreateBank(t, s, "b")
	return &temporalBank{t: t, ctx: context.Background(), s: s, emb: hashembed.New(64)}
}

// say writes one fact about the named person, occurred at at, and
// returns its id.
func (b *temporalBank) say(person, text string, at time.Time) string {
	b.t.Helper()
	b.n++
	w := storetest.NewTestBatch("b", fmt.Sprintf("doc%d", b.n), text)
	f := w.Facts[0]
	f.Embedding = b.emb.EmbedOne(text)
	f.OccurredStart, f.MentionedAt, f.CreatedAt = at, at, at
	ent := memory.EntityID(person)
	w.Entities = []memory.EntityUpsert{{Entity: memory.Entity{ID: ent, Name: person, Type: memory.EntityPerson, FirstSeen: at, LastSeen: at}, Mentions: 1, Episodes: 1}}
	w.Refs = []memory.EntityRef{{FactID: f.ID, EntityID: ent}}
	if _, err := b.s.Write(b.ctx, w); err != nil {
		b.t.Fatal(err)
	}
	return f.ID
}

func (b *temporalBank) run(llm memory.LLM, now time.Time) *consolidate.TemporalResult {
	b.t.Helper()
	res, err := consolidate.Temporal(b.ctx, b.s, b.emb, llm, "b", now, consolidate.NewDefaults().Temporal)
	if err != nil {
		b.t.Fatalf("Temporal: %v", err)
	}
	return res
}

func (b *temporalBank) observations() []*memory.Observation {
	b.t.Helper()
	obs, err := b.s.ListObservations(b.ctx, "b", 0)
	if err != nil {
		b.t.Fatal(err)
	}
	return obs
}

// patterns renders a temporal answer: (kind, text, sources...) each.
func patterns(ps ...[]string) map[string]any {
	out := []map[string]any{}
	for _, p := range ps {
		out = append(out, map[string]any{"kind": p[0], "text": p[1], "source_fact_ids": append([]string{}, p[2:]...)})
	}
	return map[string]any{"patterns": out}
}

// TestTemporal is seed 000's temporal pass on Alice's move from mobile to
// backend: a transition observation resting on the facts the model named
// (in time order, unknown ids dropped), rejected patterns counted, no
// call for an entity with two recent facts or with old ones only, no
// call again until a new fact, then the same pattern enriching the
// observation instead of duplicating it.
func TestTemporal(t *testing.T) {
	b := newTemporalBank(t)
	now := t0.Add(100 * day)
	a := []string{
		b.say("Alice", "Alice leads the mobile app team", now.Add(-20*day)),
		b.say("Alice", "Alice started reviewing backend pull requests", now.Add(-15*day)),
		b.say("Alice", "Alice joined the backend rewrite", now.Add(-10*day)),
		b.say("Alice", "Alice handed the mobile app over to Ben", now.Add(-5*day)),
	}
	b.say("Bob", "Bob ran 5 km", now.Add(-3*day))
	b.say("Bob", "Bob ran 10 km", now.Add(-2*day))
	for i := range 3 {
		b.say("Carol", fmt.Sprintf("Carol note %d", i), now.Add(-time.Duration(60+i)*day))
	}
	const text = "Alice moved from leading mobile to the backend rewrite between day 80 and day 95"
	llm := consolidate.Script(func(req *memory.ChatRequest) (any, error) {
		return patterns(
			[]string{"transition", text, a[3], "f_unknown", a[0], a[2], a[0]},
			[]string{"trend", "Alice does more backend work", "f_unknown"},
			[]string{"pattern", "not a temporal kind", a[1]},
			[]string{"cycle", "  ", a[1]},
		), nil
	})

	res := b.run(llm, now)
	want := consolidate.TemporalResult{Entities: 1, Patterns: 1, Created: 1, Rejected: 3}
	if *res != want {
		t.Errorf("first run: %+v, want %+v", *res, want)
	}
	calls := llm.Requests()
	if len(calls) != 1 {
		t.Fatalf("first run: %d calls, want 1 (Alice only)", len(calls))
	}
	prompt := calls[0].Messages[0].Content
	if calls[0].Schema == nil || calls[0].Schema.Name != "temporal_patterns" || !strings.Contains(prompt, "ENTITY: Alice") {
		t.Errorf("call: schema %v, prompt %q", calls[0].Schema, prompt)
	}
	last := -1
	for i, id := range a {
		at := strings.Index(prompt, id)
		if at <= last {
			t.Errorf("fact %d (%s) at %d in the prompt, after %d: want the facts in time order", i, id, at, last)
		}
		last = at
	}
	if !strings.Contains(prompt, now.Add(-20*day).Format("2006-01-02")) {
		t.Errorf("prompt %q: want the occurred dates", prompt)
	}
	obs := b.observations()
	if len(obs) != 1 {
		t.Fatalf("%d observations, want 1", len(obs))
	}
	o := obs[0]
	if o.Kind != memory.ObservationTransition || o.Text != text || !slices.Equal(o.SourceFactIDs, []string{a[0], a[2], a[3]}) ||
		o.EvidenceCount != 3 || len(o.History) != 0 || o.Status != memory.StatusActive {
		t.Errorf("observation: %+v; want a transition resting on facts 0, 2, 3 in time order", *o)
	}

	if res := b.run(llm, now.Add(time.Hour)); *res != (consolidate.TemporalResult{}) || len(llm.Requests()) != 1 {
		t.Errorf("second run with no new fact: %+v, %d calls in all; want nothing and no call", *res, len(llm.Requests()))
	}

	a5 := b.say("Alice", "Alice gave her first backend design review", now.Add(-1*day))
	llm.Answer = func(int, *memory.ChatRequest) (any, error) {
		return patterns([]string{"transition", text, a[0], a[2], a5, a[3]}), nil
	}
	res = b.run(llm, now.Add(2*time.Hour))
	if want := (consolidate.TemporalResult{Entities: 1, Patterns: 1, Enriched: 1}); *res != want {
		t.Errorf("run after a new fact: %+v, want %+v", *res, want)
	}
	if n := len(llm.Requests()); n != 2 {
		t.Errorf("%d calls in all, want 2", n)
	}
	obs = b.observations()
	if len(obs) != 1 {
		t.Fatalf("%d observations after enrichment, want still 1", len(obs))
	}
	o = obs[0]
	if !slices.Equal(o.SourceFactIDs, []string{a[0], a[2], a[3], a5}) || o.EvidenceCount != 4 || len(o.History) != 1 ||
		o.History[0].Previous != text || !o.History[0].ChangedAt.Equal(now.Add(2*time.Hour)) || o.Kind != memory.ObservationTransition {
		t.Errorf("enriched observation: sources %v, evidence %d, history %+v; want the new fact appended, evidence 4, one history entry",
			o.SourceFactIDs, o.EvidenceCount, o.History)
	}

	// Asked again (a newer fact) with nothing the observation lacks: no
	// change.
	b.say("Alice", "Alice had lunch", now.Add(-12*time.Hour))
	res = b.run(llm, now.Add(3*time.Hour))
	if want := (consolidate.TemporalResult{Entities: 1, Patterns: 1, Unchanged: 1}); *res != want {
		t.Errorf("run with nothing new for the observation: %+v, want %+v", *res, want)
	}
	if obs := b.observations(); len(obs) != 1 || len(obs[0].History) != 1 {
		t.Errorf("after an unchanged run: %d observations, history %d; want 1 and 1", len(obs), len(obs[0].History))
	}
}

// TestTemporal_Failed: a failed call or a malformed answer counts the
// entity failed, writes nothing and leaves it unmarked, so the next run
// asks again.
func TestTemporal_Failed(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer func(*memory.ChatRequest) (any, error)
	}{
		{"Error", func(*memory.ChatRequest) (any, error) {
			return nil, memory.Errorf(memory.EUNAVAILABLE, "provider down")
		}},
		{"NotJSON", func(*memory.ChatRequest) (any, error) { return json.RawMessage(`{"patterns": [`), nil }},
		{"NoPatterns", func(*memory.ChatRequest) (any, error) { return map[string]any{"actions": []any{}}, nil }},
		{"WrongShape", func(*memory.ChatRequest) (any, error) { return map[string]any{"patterns": "none"}, nil }},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newTemporalBank(t)
			now := t0.Add(100 * day)
			for i := range 3 {
				b.say("Alice", fmt.Sprintf("Alice fact %d", i), now.Add(-time.Duration(i+1)*day))
			}
			llm := consolidate.Script(c.answer)
			for run := 1; run <= 2; run++ {
				if res := b.run(llm, now); *res != (consolidate.TemporalResult{Entities: 1, Failed: 1}) {
					t.Errorf("run %d: %+v, want 1 entity failed", run, *res)
				}
			}
			if n := len(llm.Requests()); n != 2 {
				t.Errorf("%d calls, want 2 (asked again)", n)
			}
			if obs := b.observations(); len(obs) != 0 {
				t.Errorf("%d observations, want none", len(obs))
			}
		})
	}
}

// TestTemporal_EmptyAnswer: no pattern is an answer: the entity is
// marked and not asked again.
func TestTemporal_EmptyAnswer(t *testing.T) {
	b := newTemporalBank(t)
	now := t0.Add(100 * day)
	for i := range 3 {
		b.say("Alice", fmt.Sprintf("Alice fact %d", i), now.Add(-time.Duration(i+1)*day))
	}
	llm := consolidate.Script(func(*memory.ChatRequest) (any, error) { return patterns(), nil })
	b.run(llm, now)
	if res := b.run(llm, now); *res != (consolidate.TemporalResult{}) || len(llm.Requests()) != 1 {
		t.Errorf("second run: %+v after %d calls, want nothing after 1", *res, len(llm.Requests()))
	}
}

// TestTemporal_DuplicatesInOneAnswer: two near-identical patterns of one
// answer make one observation, the second enriching the first.
func TestTemporal_DuplicatesInOneAnswer(t *testing.T) {
	b := newTemporalBank(t)
	now := t0.Add(100 * day)
	var ids []string
	for i := range 4 {
		ids = append(ids, b.say("Alice", fmt.Sprintf("Alice slept %d hours", 8-i), now.Add(-time.Duration(4-i)*day)))
	}
	const text = "Alice's sleep declined from 8 to 5 hours over four days"
	llm := consolidate.Script(func(*memory.ChatRequest) (any, error) {
		return patterns([]string{"trend", text, ids[0], ids[1]}, []string{"trend", text + ".", ids[2], ids[3]}), nil
	})
	res := b.run(llm, now)
	if want := (consolidate.TemporalResult{Entities: 1, Patterns: 2, Created: 1, Enriched: 1}); *res != want {
		t.Errorf("run: %+v, want %+v", *res, want)
	}
	if obs := b.observations(); len(obs) != 1 || !slices.Equal(obs[0].SourceFactIDs, ids) || obs[0].EvidenceCount != 4 {
		t.Errorf("observations: %d, want 1 resting on the four facts", len(obs))
	}
}

// TestTemporal_Skipped: without an LLM the pass says so and reads
// nothing.
func TestTemporal_Skipped(t *testing.T) {
	_, err := consolidate.Temporal(context.Background(), nil, nil, nil, "b", t0, consolidate.NewDefaults().Temporal)
	var skip *consolidate.Skipped
	if !errors.As(err, &skip) || skip.Reason != consolidate.NoLLM {
		t.Errorf("Temporal(no LLM): %v, want skipped: %s", err, consolidate.NoLLM)
	}
}

// TestScoreImportance: unscored facts are scored in batches, once; a
// malformed batch is counted failed and scored by a later run; facts an
// answer leaves out stay unscored.
func TestScoreImportance(t *testing.T) {
	b := newTemporalBank(t)
	var ids []string
	for i := range 25 {
		ids = append(ids, b.say("Alice", fmt.Sprintf("Alice fact number %d", i), t0.Add(time.Duration(i)*time.Hour)))
	}
	d := consolidate.NewDefaults().Importance
	failSecond := true
	llm := consolidate.Script(func(req *memory.ChatRequest) (any, error) {
		content := req.Messages[0].Content
		if failSecond && strings.Contains(content, ids[20]) {
			return json.RawMessage(`{"scores": "later"}`), nil
		}
		var scores []map[string]any
		for i, id := range ids {
			if strings.Contains(content, "id "+id+" ") && i != 3 {
				scores = append(scores, map[string]any{"fact": id, "importance": float64(i) / 100})
			}
		}
		scores = append(scores, map[string]any{"fact": "f_unknown", "importance": 0.5})
		return map[string]any{"scores": scores}, nil
	})
	res, err := consolidate.ScoreImportance(b.ctx, b.s, llm, "b", t0, d)
	if err != nil || *res != (consolidate.ImportanceResult{Scored: 19, Failed: 6}) {
		t.Fatalf("first run: %+v, %v; want 19 scored, 6 failed (one left out, a malformed batch of 5)", res, err)
	}
	if n := len(llm.Requests()); n != 2 || llm.Requests()[0].Schema.Name != "importance" {
		t.Errorf("%d calls, want 2 (batches of %d)", n, d.BatchSize)
	}
	f, err := b.s.Facts(b.ctx, "b", []string{ids[7], ids[3]})
	if err != nil || len(f) != 2 || f[0].Importance != 0.07 || f[1].Importance != 0.5 {
		t.Errorf("importance of facts 7 and 3: %v; want 0.07 and 0.5 (unscored)", f)
	}
	failSecond = false
	res, err = consolidate.ScoreImportance(b.ctx, b.s, llm, "b", t0, d)
	// Fact 3 is left out again: it stays unscored.
	if err != nil || *res != (consolidate.ImportanceResult{Scored: 5, Failed: 1}) || len(llm.Requests()) != 3 {
		t.Errorf("second run: %+v, %v after %d calls; want the 5 failed scored and fact 3 left out, in one call", res, err, len(llm.Requests()))
	}
	if _, err := consolidate.ScoreImportance(b.ctx, b.s, nil, "b", t0, d); err == nil {
		t.Error("ScoreImportance(no LLM): no error, want skipped")
	}
}
