package storetest

import (
	"reflect"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// The Consolidate group checks memory.Runs (run records saved, replaced
// and listed newest first) and memory.Decay (decay scores, salience and
// tiers written, tier changes logged, rows that are gone skipped), each
// per bank.

func testRunsRoundTrip(e *env) {
	e.newBank("b")
	e.newBank("other")
	t0 := testTime
	r1 := &memory.Run{ID: "run1", BankID: "b", Pass: "lifecycle", StartedAt: t0, Status: memory.RunRunning}
	if err := e.s.SaveRun(e.ctx, r1); err != nil {
		e.t.Fatalf("SaveRun(running): %v", err)
	}
	done := *r1
	done.FinishedAt, done.Status = t0.Add(time.Second), memory.RunOK
	done.Counts, done.LLMCalls, done.Tokens = map[string]int{"promoted": 2, "facts_scored": 7}, 3, 120
	if err := e.s.SaveRun(e.ctx, &done); err != nil {
		e.t.Fatalf("SaveRun(ok): %v", err)
	}
	r2 := &memory.Run{ID: "run2", BankID: "b", Pass: "observations", StartedAt: t0.Add(time.Minute), FinishedAt: t0.Add(time.Minute),
		Status: memory.RunSkipped, Reason: "no LLM configured", Counts: map[string]int{}}
	if err := e.s.SaveRun(e.ctx, r2); err != nil {
		e.t.Fatalf("SaveRun(skipped): %v", err)
	}
	failed := &memory.Run{ID: "run3", BankID: "other", Pass: "lifecycle", StartedAt: t0, FinishedAt: t0, Status: memory.RunFailed, Error: "boom", Counts: map[string]int{}}
	if err := e.s.SaveRun(e.ctx, failed); err != nil {
		e.t.Fatalf("SaveRun(other bank): %v", err)
	}
	got, err := e.s.Runs(e.ctx, "b", 0)
	if err != nil {
		e.t.Fatalf("Runs: %v", err)
	}
	want := []*memory.Run{r2, &done}
	if !reflect.DeepEqual(got, want) {
		e.t.Errorf("Runs(b):\n got %+v\nwant %+v", deref(got), deref(want))
	}
	if got, _ := e.s.Runs(e.ctx, "b", 1); len(got) != 1 || got[0].ID != "run2" {
		e.t.Errorf("Runs(b, 1): got %+v, want run2 alone", deref(got))
	}
	if got, _ := e.s.Runs(e.ctx, "other", 0); len(got) != 1 || !reflect.DeepEqual(got[0], failed) {
		e.t.Errorf("Runs(other): got %+v, want %+v", deref(got), *failed)
	}
}

func deref(rs []*memory.Run) []memory.Run {
	out := make([]memory.Run, len(rs))
	for i, r := range rs {
		out[i] = *r
	}
	return out
}

func testRunsErrors(e *env) {
	e.newBank("b")
	for _, r := range []*memory.Run{
		{BankID: "b", Pass: "lifecycle", StartedAt: testTime, Status: memory.RunOK},
		{ID: "r", BankID: "b", StartedAt: testTime, Status: memory.RunOK},
		{ID: "r", BankID: "b", Pass: "lifecycle", Status: memory.RunOK},
		{ID: "r", BankID: "b", Pass: "lifecycle", StartedAt: testTime, Status: "done"},
	} {
		if err := e.s.SaveRun(e.ctx, r); memory.ErrorCode(err) != memory.EINVALID {
			e.t.Errorf("SaveRun(%+v): %v, want EINVALID", *r, err)
		}
	}
	if err := e.s.SaveRun(e.ctx, &memory.Run{ID: "r", BankID: "nope", Pass: "lifecycle", StartedAt: testTime, Status: memory.RunOK}); memory.ErrorCode(err) != memory.ENOTFOUND {
		e.t.Errorf("SaveRun(unknown bank): %v, want ENOTFOUND", err)
	}
	if _, err := e.s.Runs(e.ctx, "nope", 0); memory.ErrorCode(err) != memory.ENOTFOUND {
		e.t.Errorf("Runs(unknown bank): %v, want ENOTFOUND", err)
	}
}

func testDecayApply(e *env) {
	e.newBank("b")
	e.newBank("other")
	coffee := memory.EntityID("coffee")
	w := NewTestBatch("b", "doc1", "I like coffee", "coffee again")
	w.Entities = []memory.EntityUpsert{{Entity: memory.Entity{ID: coffee, Name: "coffee", Type: memory.EntityTopic, FirstSeen: testTime, LastSeen: testTime}, Mentions: 1, Episodes: 1}}
	e.writeNew(w)
	f0, f1 := w.Facts[0].ID, w.Facts[1].ID
	wo := NewTestBatch("other", "doc1", "I like coffee")
	wo.Entities = []memory.EntityUpsert{{Entity: memory.Entity{ID: coffee, Name: "coffee", Type: memory.EntityTopic}, Mentions: 1, Episodes: 1}}
	e.writeNew(wo)

	at := testTime.Add(8 * 24 * time.Hour)
	ch := memory.TierChange{EntityID: coffee, From: memory.TierEpisodic, To: memory.TierSemantic, Reason: "age 8.0d, 3 episodes", At: at}
	u := &memory.DecayUpdate{
		Facts:    map[string]float64{f0: 0.625, "fact_gone": 0.5},
		Entities: []memory.EntityDecay{{ID: coffee, Salience: 0.832, Tier: memory.TierSemantic}, {ID: "ent_gone", Salience: 0.1, Tier: memory.TierPattern}},
		Changes:  []memory.TierChange{ch, {EntityID: "ent_gone", From: memory.TierSemantic, To: memory.TierPattern, At: at}},
	}
	if err := e.s.ApplyDecay(e.ctx, "b", u); err != nil {
		e.t.Fatalf("ApplyDecay: %v", err)
	}
	facts, err := e.s.Facts(e.ctx, "b", []string{f0, f1})
	if err != nil || len(facts) != 2 {
		e.t.Fatalf("Facts: %v, %d facts", err, len(facts))
	}
	if facts[0].DecayScore != 0.625 || facts[1].DecayScore != w.Facts[1].DecayScore {
		e.t.Errorf("decay scores: got %v, %v; want 0.625, %v (untouched)", facts[0].DecayScore, facts[1].DecayScore, w.Facts[1].DecayScore)
	}
	ent := e.entity("b", coffee)
	if ent.Salience != 0.832 || ent.Tier != memory.TierSemantic || ent.MentionCount != 1 || ent.Name != "coffee" {
		e.t.Errorf("entity after ApplyDecay: %+v, want salience 0.832, tier L1, the rest unchanged", *ent)
	}
	if o := e.entity("other", coffee); o.Tier != memory.TierEpisodic || o.Salience != 1 {
		e.t.Errorf("other bank's entity changed: %+v", *o)
	}
	log, err := e.s.TierLog(e.ctx, "b", 0)
	if err != nil {
		e.t.Fatalf("TierLog: %v", err)
	}
	if !reflect.DeepEqual(log, []memory.TierChange{ch}) {
		e.t.Errorf("TierLog: got %+v, want %+v (the gone entity's change skipped)", log, ch)
	}
	later := memory.TierChange{EntityID: coffee, From: memory.TierSemantic, To: memory.TierEpisodic, Reason: "forgotten episodes", At: at.Add(time.Hour)}
	if err := e.s.ApplyDecay(e.ctx, "b", &memory.DecayUpdate{Changes: []memory.TierChange{later}}); err != nil {
		e.t.Fatalf("ApplyDecay(changes only): %v", err)
	}
	if log, _ := e.s.TierLog(e.ctx, "b", 1); !reflect.DeepEqual(log, []memory.TierChange{later}) {
		e.t.Errorf("TierLog(1): got %+v, want the newest %+v", log, later)
	}
	if log, _ := e.s.TierLog(e.ctx, "other", 0); len(log) != 0 {
		e.t.Errorf("TierLog(other): got %+v, want none", log)
	}
	if err := e.s.ApplyDecay(e.ctx, "nope", u); memory.ErrorCode(err) != memory.ENOTFOUND {
		e.t.Errorf("ApplyDecay(unknown bank): %v, want ENOTFOUND", err)
	}
	if _, err := e.s.TierLog(e.ctx, "nope", 0); memory.ErrorCode(err) != memory.ENOTFOUND {
		e.t.Errorf("TierLog(unknown bank): %v, want ENOTFOUND", err)
	}
}
