package storetest

import (
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

// The FactGroup group checks the capabilities of the fact merge and
// group consolidation: memory.FactVectors (stored embeddings read back),
// memory.MergeVerdicts (pair verdicts remembered, forgotten with their
// facts) and memory.FactGrouper (a summary fact replaces its members in
// one step, and a bad call changes nothing).

// Vectors: the embeddings read back are the ones written, whatever the
// status; unknown ids are absent.
func testFactVectors(e *env) {
	e.newBank("b")
	w := forgetBatch("b", "d1")
	e.writeNew(w)
	f := func(i int) string { return TestFactID("d1", i) }
	if _, err := e.s.SetFactStatus(e.ctx, "b", []string{f(1)}, memory.StatusArchived); err != nil {
		e.t.Fatal(err)
	}
	got, err := e.s.FactEmbeddings(e.ctx, "b", []string{f(0), f(1), "nope"})
	if err != nil {
		e.t.Fatal(err)
	}
	if len(got) != 2 {
		e.t.Fatalf("FactEmbeddings: got %d vectors, want 2 (f0, archived f1; not the unknown id)", len(got))
	}
	for i := range 2 {
		if !slices.Equal(got[f(i)], w.Facts[i].Embedding) {
			e.t.Errorf("FactEmbeddings(%s): got %v…, want the written vector", f(i), got[f(i)][:2])
		}
	}
	if got, err := e.s.FactEmbeddings(e.ctx, "b", nil); err != nil || len(got) != 0 {
		e.t.Errorf("FactEmbeddings(no ids): %v, %v; want empty", got, err)
	}
	if _, err := e.s.FactEmbeddings(e.ctx, "nobank", []string{f(0)}); memory.ErrorCode(err) != memory.ENOTFOUND {
		e.t.Errorf("FactEmbeddings(unknown bank): %v, want ENOTFOUND", err)
	}
}

// Verdicts: saved, read back, replaced, refused when malformed, kept per
// bank, and forgotten with a fact they name.
func testPairVerdicts(e *env) {
	e.newBank("b")
	e.newBank("c")
	e.writeNew(forgetBatch("b", "d1"))
	f := func(i int) string { return TestFactID("d1", i) }
	p01, p12, p02 := memory.NewFactPair(f(1), f(0)), memory.NewFactPair(f(1), f(2)), memory.NewFactPair(f(0), f(2))
	if p01.A != f(0) || p01.B != f(1) {
		e.t.Fatalf("NewFactPair(f1, f0) = %+v, want (f0, f1)", p01)
	}
	save := func(bank string, vs ...memory.PairVerdict) {
		e.t.Helper()
		if err := e.s.SavePairVerdicts(e.ctx, bank, vs); err != nil {
			e.t.Fatalf("SavePairVerdicts: %v", err)
		}
	}
	save("b", memory.PairVerdict{Pair: p01, Verdict: memory.VerdictDifferent, At: hours(1)},
		memory.PairVerdict{Pair: p12, Verdict: memory.VerdictSame, At: hours(1)})
	save("b", memory.PairVerdict{Pair: p12, Verdict: memory.VerdictDifferent, At: hours(2)})
	got, err := e.s.PairVerdicts(e.ctx, "b", []memory.FactPair{p01, p12, p02})
	if err != nil {
		e.t.Fatal(err)
	}
	if len(got) != 2 || got[p01].Verdict != memory.VerdictDifferent || !got[p01].At.Equal(hours(1)) ||
		got[p12].Verdict != memory.VerdictDifferent || !got[p12].At.Equal(hours(2)) || got[p12].Pair != p12 {
		e.t.Errorf("PairVerdicts: got %+v, want p01 different at 1h, p12 replaced by different at 2h", got)
	}
	if got, _ := e.s.PairVerdicts(e.ctx, "c", []memory.FactPair{p01}); len(got) != 0 {
		e.t.Errorf("PairVerdicts of another bank: got %+v, want none", got)
	}
	for _, bad := range []memory.PairVerdict{
		{Pair: memory.FactPair{A: f(1), B: f(0)}, Verdict: memory.VerdictDifferent},
		{Pair: memory.FactPair{A: "", B: f(0)}, Verdict: memory.VerdictDifferent},
		{Pair: p02, Verdict: "maybe"},
	} {
		if err := e.s.SavePairVerdicts(e.ctx, "b", []memory.PairVerdict{{Pair: p02, Verdict: memory.VerdictSame}, bad}); memory.ErrorCode(err) != memory.EINVALID {
			e.t.Errorf("SavePairVerdicts(%+v): %v, want EINVALID", bad, err)
		}
	}
	if got, _ := e.s.PairVerdicts(e.ctx, "b", []memory.FactPair{p02}); len(got) != 0 {
		e.t.Errorf("a refused SavePairVerdicts stored %+v", got)
	}
	if err := e.s.SavePairVerdicts(e.ctx, "nobank", []memory.PairVerdict{{Pair: p02, Verdict: memory.VerdictSame}}); memory.ErrorCode(err) != memory.ENOTFOUND {
		e.t.Errorf("SavePairVerdicts(unknown bank): %v, want ENOTFOUND", err)
	}
	if _, err := e.s.PairVerdicts(e.ctx, "nobank", []memory.FactPair{p02}); memory.ErrorCode(err) != memory.ENOTFOUND {
		e.t.Errorf("PairVerdicts(unknown bank): %v, want ENOTFOUND", err)
	}
	e.forget("b", f(0))
	got, err = e.s.PairVerdicts(e.ctx, "b", []memory.FactPair{p01, p12})
	if err != nil || len(got) != 1 || got[p12].Verdict != memory.VerdictDifferent {
		e.t.Errorf("PairVerdicts after forgetting f0: got %+v, %v; want p12 only", got, err)
	}
}

// groupSummary is the summary fact of testGroup*: about Zara, with its
// own vector.
func groupSummary(bank string) *memory.Fact {
	s := NewTestFact(bank, "sum1", "Zara keeps a quokka and runs; Quentin visits her")
	s.CreatedAt = hours(5)
	return s
}

// Group: the summary is stored, active and found; it mentions every
// entity its members did and links to each; the members are superseded
// by it, still readable, out of searches.
func testGroupFacts(e *env) {
	e.newBank("b")
	w := forgetBatch("b", "d1")
	e.writeNew(w)
	f := func(i int) string { return TestFactID("d1", i) }
	before := e.facts("b", f(0), f(1), f(2))
	entBefore, err := e.s.Entities(e.ctx, "b", []string{memory.EntityID("Zara"), memory.EntityID("Quentin")})
	if err != nil {
		e.t.Fatal(err)
	}
	sum := groupSummary("b")
	if err := e.s.GroupFacts(e.ctx, "b", &memory.FactGroup{Summary: sum, Members: []string{f(0), f(1), f(2)}, At: hours(6)}); err != nil {
		e.t.Fatalf("GroupFacts: %v", err)
	}
	got := e.fact("b", "sum1")
	if got.Status != memory.StatusActive || got.Text != sum.Text || got.Seq == 0 {
		e.t.Errorf("summary: got status %q, text %q, seq %d; want active, its text, a seq", got.Status, got.Text, got.Seq)
	}
	if h := e.searchVector("b", sum.Embedding, 1, memory.Filter{}); len(h) != 1 || h[0].ID != "sum1" {
		e.t.Errorf("SearchVector(summary's vector): got %v, want sum1 first", h)
	}
	checkIDs(e.t, "SearchText(quokka)", hitIDs(e.searchText("b", 10, memory.Filter{}, "quokka")), []string{"sum1"})
	var refs []string
	for _, r := range e.refs("b", "sum1") {
		refs = append(refs, r.EntityID)
	}
	checkIDSet(e.t, "summary refs", refs, []string{memory.EntityID("Zara"), memory.EntityID("Quentin")})
	checkIDSet(e.t, "summary links", linkSet(e.links("b", []string{"sum1"})), []string{
		"sum1>" + f(0) + ":summarises:", "sum1>" + f(1) + ":summarises:", "sum1>" + f(2) + ":summarises:"})
	for i, b := range before {
		want := *b
		want.Status, want.SupersededBy, want.ExpiredAt = memory.StatusSuperseded, "sum1", hours(6)
		checkFact(e.t, e.fact("b", f(i)), &want)
	}
	// The members keep their own refs and links.
	if n := len(e.refs("b", f(0), f(1), f(2))); n != 4 {
		e.t.Errorf("member refs: got %d, want the 4 written", n)
	}
	old, err := e.s.SupersededBy(e.ctx, "b", []string{"sum1"})
	if err != nil || len(old) != 3 {
		e.t.Errorf("SupersededBy(sum1): got %d facts, %v; want the 3 members", len(old), err)
	}
	entAfter, err := e.s.Entities(e.ctx, "b", []string{memory.EntityID("Zara"), memory.EntityID("Quentin")})
	if err != nil {
		e.t.Fatal(err)
	}
	for i := range entBefore {
		if entAfter[i].MentionCount != entBefore[i].MentionCount {
			e.t.Errorf("entity %s mentions: got %d, want %d (unchanged)", entAfter[i].Name, entAfter[i].MentionCount, entBefore[i].MentionCount)
		}
	}
	if st := e.stats("b"); st.Active != 1 || st.Superseded != 3 || st.Facts != 4 {
		e.t.Errorf("Stats: got Active %d, Superseded %d, Facts %d; want 1, 3, 4", st.Active, st.Superseded, st.Facts)
	}
}

// GroupErrors: each bad call is refused with its code and changes
// nothing.
func testGroupErrors(e *env) {
	e.newBank("b")
	e.writeNew(forgetBatch("b", "d1"))
	f := func(i int) string { return TestFactID("d1", i) }
	if _, err := e.s.SetFactStatus(e.ctx, "b", []string{f(2)}, memory.StatusArchived); err != nil {
		e.t.Fatal(err)
	}
	before := e.facts("b", f(0), f(1), f(2))
	statsBefore := e.stats("b")
	for _, c := range []struct {
		name string
		bank string
		g    *memory.FactGroup
		code string
	}{
		{"Nil", "b", nil, memory.EINVALID},
		{"NoSummaryID", "b", &memory.FactGroup{Summary: &memory.Fact{}, Members: []string{f(0), f(1)}}, memory.EINVALID},
		{"OneMember", "b", &memory.FactGroup{Summary: groupSummary("b"), Members: []string{f(0)}}, memory.EINVALID},
		{"Repeat", "b", &memory.FactGroup{Summary: groupSummary("b"), Members: []string{f(0), f(0)}}, memory.EINVALID},
		{"SummaryIsMember", "b", &memory.FactGroup{Summary: groupSummary("b"), Members: []string{f(0), "sum1"}}, memory.EINVALID},
		{"UnknownMember", "b", &memory.FactGroup{Summary: groupSummary("b"), Members: []string{f(0), "nope"}}, memory.ENOTFOUND},
		{"InactiveMember", "b", &memory.FactGroup{Summary: groupSummary("b"), Members: []string{f(0), f(1), f(2)}}, memory.ECONFLICT},
		{"UnknownBank", "nobank", &memory.FactGroup{Summary: groupSummary("nobank"), Members: []string{f(0), f(1)}}, memory.ENOTFOUND},
	} {
		err := e.s.GroupFacts(e.ctx, c.bank, c.g)
		if memory.ErrorCode(err) != c.code {
			e.t.Errorf("%s: GroupFacts = %v, want %s", c.name, err, c.code)
		}
	}
	// A summary id that exists outside the group is ECONFLICT.
	e.writeNew(NewTestBatch("b", "d2", "Zara sails"))
	err := e.s.GroupFacts(e.ctx, "b", &memory.FactGroup{Summary: NewTestFact("b", TestFactID("d2", 0), "x"), Members: []string{f(0), f(1)}, At: hours(6)})
	if memory.ErrorCode(err) != memory.ECONFLICT {
		e.t.Errorf("SummaryExists: GroupFacts = %v, want ECONFLICT", err)
	}
	for i, b := range before {
		checkFact(e.t, e.fact("b", f(i)), b)
	}
	if got := e.facts("b", "sum1"); len(got) != 0 {
		e.t.Errorf("a refused GroupFacts stored the summary")
	}
	if st := e.stats("b"); st.Active != statsBefore.Active+1 || st.Superseded != 0 {
		e.t.Errorf("Stats after refused groups: got %+v, want %+v plus d2's fact", st, statsBefore)
	}
}
