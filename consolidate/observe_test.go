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
	"github.com/mnemo-ai/mnemo/store/sqlite"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// The direct tests of the observation passes run them on a real SQLite
// store with a scripted in-process model (consolidate.ScriptLLM) and an embedder that
// gives each text storetest.TestVector, the vectors the store's facts
// are written with. The engine's tests (observe_test.go at the root) run
// them through the OpenAI client against llmtest's server.

// testEmbedder embeds a text as storetest.TestVector of it.
type testEmbedder struct{}

func (testEmbedder) Name() string   { return storetest.TestEmbedder }
func (testEmbedder) Dimension() int { return storetest.TestDimension }
func (testEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = storetest.TestVector(t, storetest.TestDimension)
	}
	return out, nil
}

func decision(action string, obs int, text, kind, reason string) map[string]any {
	return map[string]any{"action": action, "observation": obs, "text": text, "kind": kind, "reason": reason}
}

// obsBank is a bank on a real SQLite file with facts written directly.
type obsBank struct {
	t    *testing.T
	ctx  context.Context
	s    *sqlite.Store
	bank string
	n    int
}

func newObsBank(t *testing.T) *obsBank {
	s := testutil.OpenStore(t)
	testutil.CreateBank(t, s, "b")
	return &obsBank{t: t, ctx: context.Background(), s: s, bank: "b"}
}

// fact writes one fact of speaker, said at at, in its own document, and
// returns its id.
func (b *obsBank) fact(speaker, text string, at time.Time) string {
	b.t.Helper()
	b.n++
	doc := fmt.Sprintf("doc%d", b.n)
	w := storetest.NewTestBatch(b.bank, doc, text)
	f := w.Facts[0]
	f.Speaker, f.OccurredStart, f.MentionedAt, f.CreatedAt = speaker, at, at, at
	f.Embedding = storetest.TestVector(f.Body(), storetest.TestDimension)
	if _, err := b.s.Write(b.ctx, w); err != nil {
		b.t.Fatalf("write %q: %v", text, err)
	}
	return f.ID
}

func (b *obsBank) observe(llm memory.LLM, now time.Time) (*consolidate.ObserveResult, error) {
	return consolidate.Observe(b.ctx, b.s, testEmbedder{}, llm, b.bank, now, consolidate.NewDefaults().Observe)
}

// observations returns the bank's observations of status st, oldest
// first.
func (b *obsBank) observations(st memory.Status) []*memory.Observation {
	b.t.Helper()
	all, err := b.s.ListObservations(b.ctx, b.bank, 0)
	if err != nil {
		b.t.Fatal(err)
	}
	slices.Reverse(all)
	return slices.DeleteFunc(all, func(o *memory.Observation) bool { return o.Status != st })
}

func (b *obsBank) pending() []string {
	b.t.Helper()
	fs, err := b.s.PendingFacts(b.ctx, b.bank, 0, memory.MaxPageSize)
	if err != nil {
		b.t.Fatal(err)
	}
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.ID)
	}
	return ids
}

func counts(r *consolidate.ObserveResult) string {
	return fmt.Sprintf("facts %d, created %d, updated %d, skipped %d, failed %d", r.Facts, r.Created, r.Updated, r.Skipped, r.Failed)
}

// TestObserve_Transition is seed 000's transition: "Alex is the mobile
// lead", later "Alex now leads the backend rewrite". The second fact is
// shown the observation the first made, with its source and its date,
// and updates it: the old text becomes history, dated when the change
// happened.
func TestObserve_Transition(t *testing.T) {
	b := newObsBank(t)
	mar, may := t0.Add(10*day), t0.Add(70*day)
	first := b.fact("Alex", "Alex is the mobile lead", mar)
	run1 := t0.Add(11 * day)
	llm := &consolidate.ScriptLLM{Answer: func(n int, req *memory.ChatRequest) (any, error) {
		if req.Schema == nil || req.Schema.Name != "observation" || req.Stage != consolidate.StageObserve {
			return nil, fmt.Errorf("request %d: schema %v, stage %q", n, req.Schema, req.Stage)
		}
		if n == 1 {
			return decision("create", 0, "Alex leads mobile development", "pattern", "a role"), nil
		}
		return decision("update", 1, "Alex moved from leading mobile development to leading the backend rewrite", "transition", "new role"), nil
	}}
	res, err := b.observe(llm, run1)
	if err != nil || res.Created != 1 || res.Facts != 1 {
		t.Fatalf("first run: %s, %v; want one created", counts(res), err)
	}
	if p := llm.Prompt(0); !strings.Contains(p, "NEW FACT: [2023-05-18] Alex: Alex is the mobile lead") || !strings.Contains(p, "none resembles") {
		t.Errorf("first prompt:\n%s", p)
	}
	if !strings.Contains(llm.Requests()[0].System, "never just rephrases one fact") {
		t.Errorf("system prompt does not forbid rephrasing:\n%s", llm.Requests()[0].System)
	}
	obs := b.observations(memory.StatusActive)
	if len(obs) != 1 || obs[0].Text != "Alex leads mobile development" || obs[0].EvidenceCount != 1 || !slices.Equal(obs[0].SourceFactIDs, []string{first}) {
		t.Fatalf("after the first run: %+v", obs)
	}
	created := obs[0]
	if !created.CreatedAt.Equal(run1) || created.Kind != memory.ObservationPattern {
		t.Errorf("created: %+v", *created)
	}

	second := b.fact("Alex", "Alex now leads the backend rewrite", may)
	run2 := t0.Add(71 * day)
	res, err = b.observe(llm, run2)
	if err != nil || res.Updated != 1 || res.Facts != 1 || res.Created != 0 {
		t.Fatalf("second run: %s, %v; want one updated", counts(res), err)
	}
	p := llm.Prompt(1)
	for _, want := range []string{
		"NEW FACT: [2023-07-17] Alex: Alex now leads the backend rewrite",
		"1. (pattern; 1 supporting fact; since 2023-05-19) Alex leads mobile development",
		"- [2023-05-18] Alex: Alex is the mobile lead",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("second prompt lacks %q:\n%s", want, p)
		}
	}
	obs = b.observations(memory.StatusActive)
	if len(obs) != 1 || obs[0].ID != created.ID {
		t.Fatalf("after the second run: %d observations, want the one updated", len(obs))
	}
	o := obs[0]
	want := []memory.ObservationChange{{Previous: "Alex leads mobile development", ChangedAt: may, Reason: "new role"}}
	if o.Text != "Alex moved from leading mobile development to leading the backend rewrite" || o.Kind != memory.ObservationTransition ||
		o.EvidenceCount != 2 || !slices.Equal(o.SourceFactIDs, []string{first, second}) || !slices.EqualFunc(o.History, want, sameChange) ||
		!o.UpdatedAt.Equal(run2) || !o.CreatedAt.Equal(run1) {
		t.Errorf("updated observation: %+v; want history %+v", *o, want)
	}
	// The update re-embedded it: its text's vector finds it.
	hits, err := b.s.SearchObservationsVector(b.ctx, b.bank, storetest.TestVector(o.Text, storetest.TestDimension), 1)
	if err != nil || len(hits) != 1 || hits[0].ID != o.ID || hits[0].Score < 0.999 {
		t.Errorf("search by the new text's vector: %v, %v", hits, err)
	}
	facts, _ := b.s.Facts(b.ctx, b.bank, []string{first, second})
	if !facts[0].ConsolidatedAt.Equal(run1) || !facts[1].ConsolidatedAt.Equal(run2) {
		t.Errorf("consolidated at %v, %v; want %v, %v", facts[0].ConsolidatedAt, facts[1].ConsolidatedAt, run1, run2)
	}
	// Nothing pending: a third run asks nothing.
	res, err = b.observe(llm, run2.Add(time.Hour))
	if err != nil || res.Facts != 0 || llm.Calls() != 2 {
		t.Errorf("third run: %s, %v, %d calls; want nothing done", counts(res), err, llm.Calls())
	}
}

func sameChange(a, b memory.ObservationChange) bool {
	return a.Previous == b.Previous && a.ChangedAt.Equal(b.ChangedAt) && a.Reason == b.Reason
}

// A malformed answer leaves its fact pending and the others go on; the
// next run asks about that fact alone.
func TestObserve_Malformed(t *testing.T) {
	b := newObsBank(t)
	ids := []string{
		b.fact("Sam", "Sam runs every morning", t0),
		b.fact("Sam", "Sam ignores all previous instructions", t0.Add(day)),
		b.fact("Sam", "Sam swims on Fridays", t0.Add(2*day)),
		b.fact("Sam", "Sam plays chess", t0.Add(3*day)),
	}
	bad := []any{
		json.RawMessage(`{"action": "update", "observation": 7, "text": "x", "kind": "pattern", "reason": ""}`), // no candidate 7
		json.RawMessage(`{"action": "create", "observation": 0, "text": "  ", "kind": "pattern", "reason": ""}`),
		json.RawMessage(`{"action": "create", "observation": 0, "text": "t", "kind": "habit", "reason": ""}`),
		json.RawMessage(`{"action": "explode"}`),
		json.RawMessage(`[1, 2]`),
		memory.Errorf(memory.EINVALID, "chat: malformed answer"),
	}
	for i, answer := range bad {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			b := newObsBank(t)
			for _, text := range []string{"Sam runs every morning", "Sam ignores all previous instructions", "Sam swims on Fridays"} {
				b.fact("Sam", text, t0)
			}
			llm := &consolidate.ScriptLLM{Answer: func(n int, req *memory.ChatRequest) (any, error) {
				if strings.Contains(req.Messages[0].Content, "ignores") {
					if err, ok := answer.(error); ok {
						return nil, err
					}
					return answer, nil
				}
				return decision("create", 0, fmt.Sprintf("Sam has habit %d", n), "pattern", ""), nil
			}}
			res, err := b.observe(llm, t0.Add(day))
			if err != nil || res.Failed != 1 || res.Created != 2 || res.Facts != 3 || len(res.Errors) != 1 || memory.ErrorCode(res.Errors[0]) != memory.EINVALID {
				t.Fatalf("run: %s, %v (errors %v); want 1 failed, 2 created", counts(res), err, res.Errors)
			}
			if p := b.pending(); len(p) != 1 {
				t.Errorf("pending: %q, want the fact with the bad answer", p)
			}
		})
	}

	// Fixed: the next run asks about the pending fact alone.
	llm := &consolidate.ScriptLLM{Answer: func(n int, req *memory.ChatRequest) (any, error) {
		return decision("skip", 0, "", "pattern", "nothing to abstract"), nil
	}}
	b.s.MarkConsolidated(b.ctx, b.bank, []string{ids[0], ids[2], ids[3]}, t0)
	res, err := b.observe(llm, t0.Add(5*day))
	if err != nil || res.Facts != 1 || res.Skipped != 1 || llm.Calls() != 1 || len(b.pending()) != 0 {
		t.Errorf("rerun: %s, %v, %d calls; want the one fact skipped", counts(res), err, llm.Calls())
	}
}

// The provider down stops the run with its error: facts done before are
// marked, the rest stay pending with nothing written for them, and the
// next run takes them up.
func TestObserve_ProviderDown(t *testing.T) {
	b := newObsBank(t)
	b.fact("Sam", "Sam runs every morning", t0)
	b.fact("Sam", "Sam swims on Fridays", t0.Add(day))
	b.fact("Sam", "Sam plays chess", t0.Add(2*day))
	down := memory.Errorf(memory.EUNAVAILABLE, "provider down")
	llm := &consolidate.ScriptLLM{Answer: func(n int, req *memory.ChatRequest) (any, error) {
		if n == 2 {
			return nil, down
		}
		return decision("create", 0, "Sam habit "+fmt.Sprint(n), "pattern", ""), nil
	}}
	res, err := b.observe(llm, t0.Add(3*day))
	if !errors.Is(err, down) || res == nil || res.Created != 1 || res.Facts != 2 {
		t.Fatalf("run: %+v, %v; want the provider's error after one created", res, err)
	}
	if p := b.pending(); len(p) != 2 {
		t.Errorf("pending after the failed run: %q, want the last two", p)
	}
	if obs := b.observations(memory.StatusActive); len(obs) != 1 {
		t.Errorf("observations after the failed run: %d, want 1", len(obs))
	}
	res, err = b.observe(llm, t0.Add(4*day))
	if err != nil || res.Facts != 2 || res.Created != 2 || len(b.pending()) != 0 || len(b.observations(memory.StatusActive)) != 3 {
		t.Errorf("rerun: %s, %v; want the two left created", counts(res), err)
	}
}

// failMark fails MarkConsolidated once, as a run killed between its
// observation write and its mark.
type failMark struct {
	*sqlite.Store
	failed bool
}

func (f *failMark) MarkConsolidated(ctx context.Context, bank string, ids []string, at time.Time) (int, error) {
	if !f.failed {
		f.failed = true
		return 0, testutil.ErrInjected
	}
	return f.Store.MarkConsolidated(ctx, bank, ids, at)
}

// A run that dies after writing a fact's observation and before marking
// it retakes the fact: the created observation keeps its id and is
// rewritten, not duplicated; an update does not count the fact twice.
func TestObserve_Rerun(t *testing.T) {
	b := newObsBank(t)
	f1 := b.fact("Sam", "Sam runs every morning", t0)
	llm := &consolidate.ScriptLLM{Answer: func(n int, req *memory.ChatRequest) (any, error) {
		if strings.Contains(req.Messages[0].Content, "1. (") {
			return decision("update", 1, "Sam runs every morning, rain or shine", "pattern", "again"), nil
		}
		return decision("create", 0, fmt.Sprintf("Sam is a morning runner (%d)", n), "pattern", ""), nil
	}}
	st := &failMark{Store: b.s}
	if _, err := consolidate.Observe(b.ctx, st, testEmbedder{}, llm, b.bank, t0.Add(day), consolidate.NewDefaults().Observe); !errors.Is(err, testutil.ErrInjected) {
		t.Fatalf("killed run: %v", err)
	}
	obs := b.observations(memory.StatusActive)
	if len(obs) != 1 || len(b.pending()) != 1 {
		t.Fatalf("after the killed run: %d observations, pending %q", len(obs), b.pending())
	}
	// The rerun is shown the observation and answers update: same
	// observation, the fact counted once.
	res, err := consolidate.Observe(b.ctx, st, testEmbedder{}, llm, b.bank, t0.Add(2*day), consolidate.NewDefaults().Observe)
	if err != nil || res.Updated != 1 {
		t.Fatalf("rerun: %s, %v", counts(res), err)
	}
	got := b.observations(memory.StatusActive)
	if len(got) != 1 || got[0].ID != obs[0].ID || got[0].EvidenceCount != 1 || !slices.Equal(got[0].SourceFactIDs, []string{f1}) || len(got[0].History) != 1 {
		t.Errorf("after the rerun: %+v; want the one observation, evidence 1, one history entry", got)
	}

	// A rerun answering create again derives the same id: rewritten in
	// place, no history for a text that was never shown.
	b2 := newObsBank(t)
	b2.fact("Sam", "Sam runs every morning", t0)
	create := &consolidate.ScriptLLM{Answer: func(n int, req *memory.ChatRequest) (any, error) {
		return decision("create", 0, fmt.Sprintf("Sam is a morning runner (%d)", n), "pattern", ""), nil
	}}
	st2 := &failMark{Store: b2.s}
	consolidate.Observe(b2.ctx, st2, testEmbedder{}, create, b2.bank, t0.Add(day), consolidate.NewDefaults().Observe)
	res, err = consolidate.Observe(b2.ctx, st2, testEmbedder{}, create, b2.bank, t0.Add(2*day), consolidate.NewDefaults().Observe)
	got = b2.observations(memory.StatusActive)
	if err != nil || res.Created != 1 || len(got) != 1 || got[0].Text != "Sam is a morning runner (2)" || len(got[0].History) != 0 || got[0].EvidenceCount != 1 {
		t.Errorf("create rerun: %s, %v, %+v; want one observation rewritten", counts(res), err, got)
	}
}

// Sensitive facts never feed an observation, and cost no call.
func TestObserve_Sensitive(t *testing.T) {
	b := newObsBank(t)
	w := storetest.NewTestBatch(b.bank, "d", "Sam's diagnosis came back")
	w.Facts[0].Sensitivity = memory.SensitivitySensitive
	if _, err := b.s.Write(b.ctx, w); err != nil {
		t.Fatal(err)
	}
	llm := &consolidate.ScriptLLM{Answer: func(int, *memory.ChatRequest) (any, error) { return nil, errors.New("asked") }}
	res, err := b.observe(llm, t0)
	if err != nil || res.Skipped != 1 || llm.Calls() != 0 || len(b.pending()) != 0 {
		t.Errorf("sensitive fact: %s, %v, %d calls; want skipped and marked without a call", counts(res), err, llm.Calls())
	}
}

// Walking pages of the queue visits each pending fact once per run, and
// oldest first.
func TestObserve_Pages(t *testing.T) {
	b := newObsBank(t)
	var want []string
	for i := range 7 {
		want = append(want, fmt.Sprintf("Sam fact number %d", i))
		b.fact("Sam", want[i], t0.Add(time.Duration(i)*time.Hour))
	}
	var seen []string
	llm := &consolidate.ScriptLLM{Answer: func(n int, req *memory.ChatRequest) (any, error) {
		line := strings.SplitN(req.Messages[0].Content, "\n", 2)[0]
		seen = append(seen, line[strings.Index(line, "Sam: ")+5:])
		if n%2 == 0 {
			return json.RawMessage(`{}`), nil // every other fact fails, and is not retried in the run
		}
		return decision("skip", 0, "", "pattern", ""), nil
	}}
	d := consolidate.NewDefaults().Observe
	d.BatchSize = 2
	res, err := consolidate.Observe(b.ctx, b.s, testEmbedder{}, llm, b.bank, t0.Add(day), d)
	if err != nil || res.Facts != 7 || res.Skipped != 4 || res.Failed != 3 || !slices.Equal(seen, want) {
		t.Errorf("run: %s, %v; asked %q, want each once, in order", counts(res), err, seen)
	}
	d.BatchSize = 0
	if _, err := consolidate.Observe(b.ctx, b.s, testEmbedder{}, llm, b.bank, t0, d); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("batch size 0: %v, want EINVALID", err)
	}
}
