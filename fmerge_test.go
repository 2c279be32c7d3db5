package mnemo_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
)

// The fact merge and group consolidation end to end: an Engine on a
// SQLite file, its LLM the scripted server over real HTTP through the
// real OpenAI client.

// fmergeTail makes the facts long enough that one changed word leaves
// them above the merge's 0.90 cosine with the built-in embedder.
const fmergeTail = " after three years leading the mobile app, mentoring interns and shipping the offline sync feature"

// retainOne retains text as speaker's message, extracted (scripted) as
// one fact mentioning ents, and returns the fact's id.
func (e *llmEnv) retainOne(bank, speaker, text string, ents ...[3]any) string {
	e.t.Helper()
	e.srv.On(llmtest.Rule{Schema: "extraction", Contains: text, Times: 1, Reply: llmtest.Reply{JSON: extraction(xfact{
		text: text, category: "project", speaker: speaker, message: 1, entities: ents,
	})}})
	res := e.retain(bank, speaker, text, e.clock.now())
	if len(res.Outcomes) != 1 || res.Outcomes[0].FactID == "" {
		e.t.Fatalf("retain %q: outcomes %+v, want one stored fact", text, res.Outcomes)
	}
	return res.Outcomes[0].FactID
}

func mergeVerdicts(vs ...[2]string) map[string]any {
	out := []map[string]any{}
	for _, v := range vs {
		out = append(out, map[string]any{"candidate": v[0], "verdict": v[1]})
	}
	return map[string]any{"verdicts": out}
}

// chatCount counts the scripted server's chat requests of a schema.
func chatCount(s *llmtest.Server, schema string) int {
	n := 0
	for _, r := range s.ChatRequests() {
		if r.Schema == schema {
			n++
		}
	}
	return n
}

// Seed 000's fact merge: two near-identical facts judged the same merge
// into the keeper (more entity refs), which takes the other's refs and
// its place in an observation's sources; a fact judged different stays,
// and its verdict is not asked again on the next run.
func TestEngine_FactMerge_LLM(t *testing.T) {
	e := newLLMEnv(t)
	ctx := e.ctx
	if _, err := e.eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	e.srv.On(llmtest.Rule{Schema: "conflicts", Reply: llmtest.Reply{JSON: decisions()}}) // every fact is new at retain
	alice := [3]any{"Alice", "person", 0.9}
	team := [3]any{"Backend team", "organization", 0.9}
	f1 := e.retainOne("b", "Ann", "Alice joined the backend team in March"+fmergeTail, alice)
	f2 := e.retainOne("b", "Ann", "In March Alice joined the backend team"+fmergeTail, alice, team)
	f3 := e.retainOne("b", "Ann", "Alice left the backend team in March"+fmergeTail, alice, team)
	st := mnemo.StoreOf(e.eng)
	obs := &memory.Observation{ID: "o1", Text: "Alice moved from mobile to backend", Kind: memory.ObservationPattern,
		SourceFactIDs: []string{f1, f3}, EvidenceCount: 2, Status: memory.StatusActive, CreatedAt: e.clock.now(), UpdatedAt: e.clock.now()}
	if err := st.(memory.ObservationStore).PutObservations(ctx, "b", []*memory.Observation{obs}); err != nil {
		t.Fatal(err)
	}
	// The walk is newest first: f3 ("left") is asked about f1 and f2,
	// then f2 about f1.
	e.srv.On(llmtest.Rule{Schema: "fact_merge", Contains: "FACT: Ann: Alice left", Reply: llmtest.Reply{JSON: mergeVerdicts([2]string{f1, "different"}, [2]string{f2, "different"})}})
	e.srv.On(llmtest.Rule{Schema: "fact_merge", Contains: "FACT: Ann: In March", Reply: llmtest.Reply{JSON: mergeVerdicts([2]string{f1, "same"})}})
	run, err := e.eng.Consolidate(ctx, "b", mnemo.PassMerge)
	if err != nil {
		t.Fatal(err)
	}
	c := run.Counts
	if run.Status != memory.RunOK || c["asked"] != 3 || c["llm_merged"] != 1 || c["different"] != 2 || c["failed"] != 0 || c["merged"] != 0 || run.LLMCalls != 2 {
		t.Fatalf("merge run: %s, counts %v, %d LLM calls; want 3 asked, 1 merged, 2 different in 2 calls", run.Status, c, run.LLMCalls)
	}
	got, err := st.Facts(ctx, "b", []string{f1, f2, f3})
	if err != nil || len(got) != 3 {
		t.Fatal(got, err)
	}
	if got[0].Status != memory.StatusSuperseded || got[0].SupersededBy != f2 || got[1].Status != memory.StatusActive || got[2].Status != memory.StatusActive {
		t.Errorf("after the merge: f1 %s by %q, f2 %s, f3 %s; want f1 superseded by f2 (more refs), the others active",
			got[0].Status, got[0].SupersededBy, got[1].Status, got[2].Status)
	}
	refs, err := st.EntityRefs(ctx, "b", []string{f1, f2})
	if err != nil {
		t.Fatal(err)
	}
	var keeperRefs []string
	for _, r := range refs {
		if r.FactID != f2 {
			t.Errorf("ref %v still on the merged fact", r)
		}
		keeperRefs = append(keeperRefs, r.EntityID)
	}
	if len(keeperRefs) != 2 {
		t.Errorf("keeper refs: got %v, want Alice and the backend team", keeperRefs)
	}
	o, err := st.(memory.ObservationStore).Observations(ctx, "b", []string{"o1"})
	if err != nil || len(o) != 1 || !slices.Equal(o[0].SourceFactIDs, []string{f2, f3}) {
		t.Errorf("observation sources: got %v, %v; want [f2 f3] (f1 rewritten to its keeper)", o, err)
	}
	rec, err := e.eng.Recall(ctx, memory.Query{BankID: "b", Text: "When did Alice join the backend team?", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rec.Results {
		if r.Fact.ID == f1 || slices.ContainsFunc(r.Previously, func(p *memory.Fact) bool { return p.ID == f1 }) {
			t.Errorf("recall returned the merged fact %s (as a result or as history of %s)", f1, r.Fact.ID)
		}
	}
	// The next run walks the same facts again (the clock stands still:
	// they were created at its start) and asks nothing: f3 against f2 was
	// judged different and remembered, f1 is gone.
	asked := chatCount(e.srv, "fact_merge")
	again, err := e.eng.Consolidate(ctx, "b", mnemo.PassMerge)
	if err != nil {
		t.Fatal(err)
	}
	if n := chatCount(e.srv, "fact_merge"); n != asked || again.Counts["asked"] != 0 || again.Counts["remembered"] == 0 {
		t.Errorf("second run: %d new fact_merge requests, counts %v; want none asked and the verdict remembered", n-asked, again.Counts)
	}
}

// coffeeFacts are three facts about one habit, similar enough to group
// (cosine ≥ 0.8 pairwise with the built-in embedder).
var coffeeFacts = []string{
	"Alice drinks a flat white coffee every morning at the corner cafe before work",
	"Every morning before work Alice drinks a flat white coffee at the corner cafe",
	"Alice drinks a flat white coffee at the corner cafe every morning before her work",
}

// Seed 002's group consolidation: three similar facts become one summary
// fact, which recall returns instead of them; the originals are
// superseded by it, linked from it, and still listed.
func TestEngine_GroupConsolidation(t *testing.T) {
	e := newLLMEnv(t)
	ctx := e.ctx
	if _, err := e.eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	e.srv.On(llmtest.Rule{Schema: "conflicts", Reply: llmtest.Reply{JSON: decisions()}})
	var ids []string
	for _, text := range coffeeFacts {
		ids = append(ids, e.retainOne("b", "Ann", text, [3]any{"Alice", "person", 0.9}))
	}
	e.retainOne("b", "Ann", "Quentin visited Perth in the winter to see the quokkas")
	const summary = "Alice has a flat white at the corner cafe every morning before work."
	e.srv.On(llmtest.Rule{Schema: "group_summary", Contains: coffeeFacts[0], Reply: llmtest.Reply{JSON: map[string]any{"summary": summary}}})
	run, err := e.eng.Consolidate(ctx, "b", mnemo.PassGroup)
	if err != nil {
		t.Fatal(err)
	}
	if c := run.Counts; run.Status != memory.RunOK || c["groups"] != 1 || c["summarised"] != 1 || c["facts_deactivated"] != 3 || c["failed"] != 0 {
		t.Fatalf("group run: %s %v (%s); want 1 group of 3 summarised", run.Status, run.Counts, run.Error)
	}
	rec, err := e.eng.Recall(ctx, memory.Query{BankID: "b", Text: "What coffee does Alice drink in the morning?", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Results) == 0 || rec.Results[0].Fact.Text != summary {
		t.Fatalf("recall: got %v, want the summary first", rec.Results)
	}
	sum := rec.Results[0].Fact
	for _, r := range rec.Results {
		if slices.Contains(ids, r.Fact.ID) || len(r.Previously) > 0 {
			t.Errorf("recall returned an original %q (or history %v): the summary replaces them", r.Fact.Text, r.Previously)
		}
	}
	page, err := e.eng.Facts(ctx, "b", memory.FactQuery{Statuses: []memory.Status{memory.StatusSuperseded}})
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, f := range page.Facts {
		if f.SupersededBy != sum.ID {
			t.Errorf("original %s superseded by %q, want the summary %s", f.ID, f.SupersededBy, sum.ID)
		}
		listed = append(listed, f.ID)
	}
	slices.Sort(listed)
	want := slices.Sorted(slices.Values(ids))
	if !slices.Equal(listed, want) {
		t.Errorf("superseded facts listed: %v, want the three originals %v", listed, want)
	}
	links, err := mnemo.StoreOf(e.eng).Links(ctx, "b", []string{sum.ID}, memory.LinkSummarises)
	if err != nil || len(links) != 3 {
		t.Errorf("summary links: %v, %v; want one to each original", links, err)
	}
	refs, err := mnemo.StoreOf(e.eng).EntityRefs(ctx, "b", []string{sum.ID})
	if err != nil || len(refs) != 1 {
		t.Errorf("summary refs: %v, %v; want Alice", refs, err)
	}
}

// Offline, the merge pass folds exact and near-exact duplicates of one
// speaker and never facts whose numbers differ.
func TestEngine_FactMerge_NearExactOffline(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t, filepath.Join(t.TempDir(), "mnemo.db"))
	if _, err := eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	// One sentence each: the heuristic extractor makes a fact of each
	// sentence.
	const sense = "That's why the probability of a shared birthday in a class of thirty pupils is higher than most people guess, and we use the complement method to calculate it accurately, which makes total sense to me now"
	paid := "Alex paid $%d for the tickets to the jazz concert in Lisbon on Friday evening, booked through the festival website after comparing seats, parking, restaurants and hotels near the venue, then told the whole family about the programme, the musicians and the late train home"
	texts := []string{
		"I love tea!", "i love tea",
		sense, strings.NewReplacer("total ", "", ",", "").Replace(sense),
		fmt.Sprintf(paid, 40), fmt.Sprintf(paid, 45),
	}
	for i, text := range texts {
		if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "b", Source: "chat", ItemID: fmt.Sprint(i), Speaker: "Ann", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	run, err := eng.Consolidate(ctx, "b", mnemo.PassMerge)
	if err != nil {
		t.Fatal(err)
	}
	if run.Counts["merged"] != 1 || run.Counts["near_exact"] != 1 || run.Counts["asked"] != 0 {
		t.Errorf("merge run counts %v: want 1 exact, 1 near-exact, nothing asked", run.Counts)
	}
	page, err := eng.Facts(ctx, "b", memory.FactQuery{Statuses: []memory.Status{memory.StatusActive}})
	if err != nil {
		t.Fatal(err)
	}
	var active []string
	for _, f := range page.Facts {
		active = append(active, f.Text)
	}
	if len(active) != len(texts)-2 || !slices.Contains(active, texts[4]) || !slices.Contains(active, texts[5]) {
		t.Errorf("active facts %q: want 4, both payments among them", active)
	}
}
