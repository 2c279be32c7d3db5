package storetest

import (
	"math"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// The Communities group checks memory.Communities: the entity graph the
// communities pass reads (co-occurrence pairs, the graph mark), and the
// communities it stores with their mark.

// communityGraph writes a small entity graph to bank: facts mentioning
// mel, paris and acme, the pairs (mel, paris) ×2 and (mel, acme) ×1, and
// one relation mel works_at acme. It returns the three entity ids.
func communityGraph(e *env, bank, doc string) (mel, paris, acme string) {
	e.t.Helper()
	mel, paris, acme = memory.EntityID("Mel"), memory.EntityID("Paris"), memory.EntityID("Acme")
	w := NewTestBatch(bank, doc, "Mel lives in Paris", "Mel loves Paris", "Mel works at Acme")
	for _, x := range []struct {
		id, name string
		t        memory.EntityType
	}{{mel, "Mel", memory.EntityPerson}, {paris, "Paris", memory.EntityPlace}, {acme, "Acme", memory.EntityOrganization}} {
		w.Entities = append(w.Entities, memory.EntityUpsert{Entity: memory.Entity{ID: x.id, Name: x.name, Type: x.t, FirstSeen: testTime, LastSeen: testTime}, Mentions: 1, Episodes: 1})
	}
	f := func(i int) string { return TestFactID(doc, i) }
	w.Refs = []memory.EntityRef{{FactID: f(0), EntityID: mel}, {FactID: f(0), EntityID: paris}, {FactID: f(1), EntityID: mel}, {FactID: f(1), EntityID: paris}, {FactID: f(2), EntityID: mel}, {FactID: f(2), EntityID: acme}}
	w.Cooccurrences = []memory.Cooccurrence{{EntityA: min(mel, paris), EntityB: max(mel, paris), Count: 2}, {EntityA: min(mel, acme), EntityB: max(mel, acme), Count: 1}}
	w.Relations = []*memory.Relation{{ID: doc + "-r1", BankID: bank, SubjectID: mel, Predicate: "works_at", ObjectID: acme, Confidence: 0.9, FactIDs: []string{f(2)}, CreatedAt: testTime}}
	e.writeNew(w)
	return mel, paris, acme
}

// testCommunity is a community of members (weights 3, 2, 1, …) in bank.
func testCommunity(bank, id string, members ...string) *memory.Community {
	c := &memory.Community{ID: id, BankID: bank, Name: id + " name", Weight: 4.25, CreatedAt: testTime, UpdatedAt: testTime.Add(time.Hour)}
	for i, m := range members {
		c.Members = append(c.Members, memory.CommunityMember{EntityID: m, Weight: float64(len(members)-i) + 0.125})
	}
	c.Representatives = []string{members[0]}
	return c
}

func (e *env) communities(bank string) []*memory.Community {
	e.t.Helper()
	cs, err := e.s.ListCommunities(e.ctx, bank)
	if err != nil {
		e.t.Fatalf("ListCommunities(%q): %v", bank, err)
	}
	noNil(e.t, "ListCommunities", cs)
	return cs
}

func (e *env) saveCommunities(bank string, u *memory.CommunityUpdate) {
	e.t.Helper()
	if err := e.s.SaveCommunities(e.ctx, bank, u); err != nil {
		e.t.Fatalf("SaveCommunities(%q): %v", bank, err)
	}
}

func (e *env) graphMark(bank string) memory.GraphMark {
	e.t.Helper()
	m, err := e.s.GraphMark(e.ctx, bank)
	if err != nil {
		e.t.Fatalf("GraphMark(%q): %v", bank, err)
	}
	return m
}

// testCommunityGraph checks Cooccurrences and GraphMark on a written
// graph, and that a new write moves the mark.
func testCommunityGraph(e *env) {
	e.newBank("b")
	if cs, err := e.s.Cooccurrences(e.ctx, "b"); err != nil || len(cs) != 0 {
		e.t.Errorf("Cooccurrences of an empty bank: got %v, %v, want none", cs, err)
	}
	if m := e.graphMark("b"); m != (memory.GraphMark{}) {
		e.t.Errorf("GraphMark of an empty bank: got %+v, want zero", m)
	}
	mel, paris, acme := communityGraph(e, "b", "d1")
	cs, err := e.s.Cooccurrences(e.ctx, "b")
	if err != nil {
		e.t.Fatalf("Cooccurrences: %v", err)
	}
	want := []memory.Cooccurrence{{EntityA: min(mel, paris), EntityB: max(mel, paris), Count: 2}, {EntityA: min(mel, acme), EntityB: max(mel, acme), Count: 1}}
	if want[1].EntityA < want[0].EntityA || want[1].EntityA == want[0].EntityA && want[1].EntityB < want[0].EntityB {
		want[0], want[1] = want[1], want[0]
	}
	if len(cs) != 2 || cs[0] != want[0] || cs[1] != want[1] {
		e.t.Errorf("Cooccurrences: got %+v, want %+v", cs, want)
	}
	m1 := e.graphMark("b")
	seq := e.fact("b", TestFactID("d1", 2)).Seq
	if want := (memory.GraphMark{Seq: seq, Refs: 6, Pairs: 2, Weight: 3, Relations: 1, Open: 1}); m1 != want {
		e.t.Errorf("GraphMark: got %+v, want %+v", m1, want)
	}
	// A fact that mentions one entity and co-occurs with none moves the
	// mark too: the entity's weight in the graph changed.
	w := NewTestBatch("b", "d2", "Paris again")
	w.Refs = []memory.EntityRef{{FactID: TestFactID("d2", 0), EntityID: paris}}
	e.writeNew(w)
	m2 := e.graphMark("b")
	if m2.Seq <= m1.Seq || m2.Refs != 7 || m2.Pairs != 2 || m2.Weight != 3 {
		e.t.Errorf("GraphMark after a new ref: got %+v, want Seq above %d, Refs 7, the pairs as before", m2, m1.Seq)
	}
	// A fact without entities leaves it as it was.
	e.writeNew(NewTestBatch("b", "d3", "nothing named here"))
	if m3 := e.graphMark("b"); m3 != m2 {
		e.t.Errorf("GraphMark after a fact with no entity: got %+v, want %+v", m3, m2)
	}
}

// testCommunityRoundTrip checks SaveCommunities, ListCommunities and
// CommunityMark: communities read back whole, in size order; an update
// replaces, deletes and keeps the rest; the mark is the last one saved.
func testCommunityRoundTrip(e *env) {
	e.newBank("b")
	if cs := e.communities("b"); len(cs) != 0 {
		e.t.Errorf("ListCommunities of a new bank: got %d, want none", len(cs))
	}
	if _, ok, err := e.s.CommunityMark(e.ctx, "b"); ok || err != nil {
		e.t.Errorf("CommunityMark of a new bank: got ok %v, %v, want none", ok, err)
	}
	small := testCommunity("b", "c-small", "e1", "e2")
	big := testCommunity("b", "c-big", "e3", "e4", "e5")
	big.Summary, big.Sources, big.SummarizedAt = "Three entities that go together.", []string{"f1", "f2"}, testTime.Add(2*time.Hour)
	big.Representatives = []string{"e3", "e5"}
	twin := testCommunity("b", "c-a", "e6", "e7") // as many members as c-small: by id
	mark := memory.GraphMark{Seq: 9, Refs: 8, Pairs: 7, Weight: 6, Relations: 5, Open: 4}
	e.saveCommunities("b", &memory.CommunityUpdate{Put: []*memory.Community{small, big, twin}, Mark: &mark})
	got := e.communities("b")
	want := []*memory.Community{big, twin, small}
	if len(got) != len(want) {
		e.t.Fatalf("ListCommunities: got %d, want %d", len(got), len(want))
	}
	for i := range want {
		checkDiff(e.t, "community "+want[i].ID, got[i], want[i])
	}
	if m, ok, err := e.s.CommunityMark(e.ctx, "b"); err != nil || !ok || m != mark {
		e.t.Errorf("CommunityMark: got %+v, %v, %v, want %+v", m, ok, err, mark)
	}

	// Replace one, delete another, keep the third; no mark: the old one
	// stays.
	small2 := testCommunity("b", "c-small", "e1", "e2", "e8", "e9")
	small2.UpdatedAt = testTime.Add(3 * time.Hour)
	e.saveCommunities("b", &memory.CommunityUpdate{Put: []*memory.Community{small2}, Delete: []string{"c-a", "no-such"}})
	got = e.communities("b")
	want = []*memory.Community{small2, big}
	if len(got) != len(want) {
		e.t.Fatalf("ListCommunities after an update: got %d, want %d", len(got), len(want))
	}
	for i := range want {
		checkDiff(e.t, "after an update: community "+want[i].ID, got[i], want[i])
	}
	if m, _, _ := e.s.CommunityMark(e.ctx, "b"); m != mark {
		e.t.Errorf("CommunityMark after an update without one: got %+v, want %+v", m, mark)
	}
	mark2 := memory.GraphMark{Seq: 10}
	e.saveCommunities("b", &memory.CommunityUpdate{Mark: &mark2})
	if m, _, _ := e.s.CommunityMark(e.ctx, "b"); m != mark2 {
		e.t.Errorf("CommunityMark: got %+v, want %+v", m, mark2)
	}
	if n := len(e.communities("b")); n != 2 {
		e.t.Errorf("a mark alone changed the communities: got %d, want 2", n)
	}
}

// testCommunityErrors checks that a bad update is EINVALID and stores
// nothing, and that an unknown bank is ENOTFOUND everywhere.
func testCommunityErrors(e *env) {
	e.newBank("b")
	good := testCommunity("b", "ok", "e1", "e2")
	e.saveCommunities("b", &memory.CommunityUpdate{Put: []*memory.Community{good}})
	bad := func(edit func(c *memory.Community)) *memory.CommunityUpdate {
		c := testCommunity("b", "new", "e3", "e4")
		edit(c)
		return &memory.CommunityUpdate{Put: []*memory.Community{testCommunity("b", "other", "e5"), c}, Delete: []string{"ok"}}
	}
	for name, u := range map[string]*memory.CommunityUpdate{
		"Nil":                nil,
		"NoID":               bad(func(c *memory.Community) { c.ID = "" }),
		"NoMembers":          bad(func(c *memory.Community) { c.Members, c.Representatives = nil, nil }),
		"MemberTwice":        bad(func(c *memory.Community) { c.Members = append(c.Members, c.Members[0]) }),
		"EmptyMember":        bad(func(c *memory.Community) { c.Members[1].EntityID = "" }),
		"NaNWeight":          bad(func(c *memory.Community) { c.Members[0].Weight = math.NaN() }),
		"RepresentativeOut":  bad(func(c *memory.Community) { c.Representatives = []string{"e9"} }),
		"NoTimes":            bad(func(c *memory.Community) { c.CreatedAt = time.Time{} }),
		"BadUTF8":            bad(func(c *memory.Community) { c.Summary = "\xff" }),
		"PutAndDeleted":      bad(func(c *memory.Community) { c.ID = "ok" }),
		"TwiceInOneUpdate":   bad(func(c *memory.Community) { c.ID = "other" }),
		"EmptySource":        bad(func(c *memory.Community) { c.Sources = []string{""} }),
		"NegativeMark":       {Mark: &memory.GraphMark{Weight: -1}},
		"EmptyIDToDelete":    {Delete: []string{""}},
		"SummaryTooLong":     bad(func(c *memory.Community) { c.Summary = string(make([]byte, memory.MaxCommunitySummaryBytes+1)) }),
		"InfiniteCommWeight": bad(func(c *memory.Community) { c.Weight = math.Inf(1) }),
	} {
		wantCode(e.t, "SaveCommunities "+name, e.s.SaveCommunities(e.ctx, "b", u), memory.EINVALID)
	}
	if cs := e.communities("b"); len(cs) != 1 || cs[0].ID != "ok" {
		e.t.Errorf("a refused update changed the communities: got %d", len(cs))
	}
	if _, ok, _ := e.s.CommunityMark(e.ctx, "b"); ok {
		e.t.Errorf("a refused update stored a mark")
	}
	_, err := e.s.Cooccurrences(e.ctx, "nope")
	wantCode(e.t, "Cooccurrences of an unknown bank", err, memory.ENOTFOUND)
	_, err = e.s.GraphMark(e.ctx, "nope")
	wantCode(e.t, "GraphMark of an unknown bank", err, memory.ENOTFOUND)
	wantCode(e.t, "SaveCommunities in an unknown bank", e.s.SaveCommunities(e.ctx, "nope", &memory.CommunityUpdate{Put: []*memory.Community{good}}), memory.ENOTFOUND)
	_, err = e.s.ListCommunities(e.ctx, "nope")
	wantCode(e.t, "ListCommunities of an unknown bank", err, memory.ENOTFOUND)
	_, _, err = e.s.CommunityMark(e.ctx, "nope")
	wantCode(e.t, "CommunityMark of an unknown bank", err, memory.ENOTFOUND)
}

// testCommunityIsolation checks that communities, marks and graphs stay
// in their bank and go with it.
func testCommunityIsolation(e *env) {
	e.newBank("a")
	e.newBank("b")
	communityGraph(e, "a", "d1")
	mark := memory.GraphMark{Seq: 1}
	e.saveCommunities("a", &memory.CommunityUpdate{Put: []*memory.Community{testCommunity("a", "c1", "e1", "e2")}, Mark: &mark})
	if cs := e.communities("b"); len(cs) != 0 {
		e.t.Errorf("bank b sees %d communities of bank a", len(cs))
	}
	if _, ok, _ := e.s.CommunityMark(e.ctx, "b"); ok {
		e.t.Errorf("bank b sees bank a's mark")
	}
	if m := e.graphMark("b"); m != (memory.GraphMark{}) {
		e.t.Errorf("GraphMark of bank b: got %+v, want zero", m)
	}
	if cs, _ := e.s.Cooccurrences(e.ctx, "b"); len(cs) != 0 {
		e.t.Errorf("bank b sees %d pairs of bank a", len(cs))
	}
	// The same id in another bank is another community.
	e.saveCommunities("b", &memory.CommunityUpdate{Put: []*memory.Community{testCommunity("b", "c1", "e7", "e8", "e9")}})
	if cs := e.communities("a"); len(cs) != 1 || len(cs[0].Members) != 2 || cs[0].BankID != "a" {
		e.t.Errorf("bank a's community after bank b saved one of the same id: got %+v", cs)
	}
	if err := e.s.DeleteBank(e.ctx, "a"); err != nil {
		e.t.Fatalf("DeleteBank: %v", err)
	}
	e.newBank("a")
	if cs := e.communities("a"); len(cs) != 0 {
		e.t.Errorf("a bank made again has %d communities of the deleted one", len(cs))
	}
	if _, ok, _ := e.s.CommunityMark(e.ctx, "a"); ok {
		e.t.Errorf("a bank made again has the deleted one's mark")
	}
	if cs := e.communities("b"); len(cs) != 1 {
		e.t.Errorf("deleting bank a removed bank b's communities: got %d", len(cs))
	}
}
