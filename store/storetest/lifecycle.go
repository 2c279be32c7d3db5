package storetest

import (
	"math"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// A supersession closes the old fact (status, superseded_by, valid_to,
// expired_at) and changes nothing else of it; searches then skip it unless
// the filter asks for superseded facts, and FactsByEntity skips it.
func testLifecycleSupersede(e *env) {
	e.newBank("b")
	mel := memory.EntityID("Melanie")
	upsert := []memory.EntityUpsert{{Entity: memory.Entity{ID: mel, Name: "Melanie", Type: memory.EntityPerson}, Mentions: 1, Episodes: 1}}
	w1 := NewTestBatch("b", "doc1", "Melanie works at Acme as an engineer", "Melanie lives in Berlin")
	w1.Entities = upsert
	w1.Refs = []memory.EntityRef{{FactID: "doc1-f0", EntityID: mel}, {FactID: "doc1-f1", EntityID: mel}}
	e.writeNew(w1)
	old := e.fact("b", "doc1-f0")

	w2 := NewTestBatch("b", "doc2", "Melanie works at Globex as a manager")
	w2.Entities = upsert
	w2.Refs = []memory.EntityRef{{FactID: "doc2-f0", EntityID: mel}}
	w2.Supersede = []memory.Supersession{{FactID: "doc1-f0", SupersededBy: "doc2-f0", ValidTo: hours(-1), ExpiredAt: hours(0.5)}}
	e.writeNew(w2)

	want := *old
	want.Status, want.SupersededBy, want.ValidTo, want.ExpiredAt = memory.StatusSuperseded, "doc2-f0", hours(-1), hours(0.5)
	got := e.fact("b", "doc1-f0")
	checkFact(e.t, got, &want)
	if got.Seq != old.Seq {
		e.t.Errorf("superseded fact: got Seq %d, want %d", got.Seq, old.Seq)
	}

	withOld := memory.Filter{Statuses: []memory.Status{memory.StatusActive, memory.StatusSuperseded}}
	checkIDs(e.t, "SearchText(works)", hitIDs(e.searchText("b", 10, memory.Filter{}, "works")), []string{"doc2-f0"})
	checkIDSet(e.t, "SearchText(works), active and superseded", hitIDs(e.searchText("b", 10, withOld, "works")), []string{"doc1-f0", "doc2-f0"})
	checkIDs(e.t, "SearchText(works), superseded", hitIDs(e.searchText("b", 10, memory.Filter{Statuses: []memory.Status{memory.StatusSuperseded}}, "works")), []string{"doc1-f0"})

	vec := w1.Facts[0].Embedding
	for _, h := range e.searchVector("b", vec, 10, memory.Filter{}) {
		if h.ID == "doc1-f0" {
			e.t.Errorf("SearchVector(vector of the superseded fact): got it, want it skipped")
		}
	}
	if hits := e.searchVector("b", vec, 10, withOld); len(hits) == 0 || hits[0].ID != "doc1-f0" || math.Abs(hits[0].Score-1) > scoreTolerance {
		e.t.Errorf("SearchVector(vector of the superseded fact), active and superseded: got %v, want doc1-f0 first with score 1", hits)
	}
	checkIDSet(e.t, "every fact that passes the filter", e.passing("b", memory.Filter{}), []string{"doc1-f1", "doc2-f0"})
	checkIDSet(e.t, "every fact that passes the filter, active and superseded", e.passing("b", withOld), []string{"doc1-f0", "doc1-f1", "doc2-f0"})

	checkIDs(e.t, "FactsByEntity(melanie)", e.factsByEntity("b", mel, 10), []string{"doc2-f0", "doc1-f1"})
	st := e.stats("b")
	if st.Facts != 3 || st.Active != 2 || st.Superseded != 1 {
		e.t.Errorf("Stats: got Facts %d, Active %d, Superseded %d, want 3, 2, 1", st.Facts, st.Active, st.Superseded)
	}
}

// Reinforce adds one to each listed fact's ReinforcementCount and changes
// nothing else.
func testLifecycleReinforce(e *env) {
	e.newBank("b")
	w := NewTestBatch("b", "doc", "Melanie likes jazz", "Melanie plays the saxophone", "Melanie lives in Lyon")
	w.Facts[1].ReinforcementCount = 2
	e.writeNew(w)
	before := e.facts("b", batchIDs(w)...)

	w2 := NewTestBatch("b", "doc2", "Melanie loves jazz")
	w2.Reinforce = []string{"doc-f0", "doc-f1"}
	e.writeNew(w2)
	w3 := NewTestBatch("b", "doc3", "Jazz is Melanie's favourite")
	w3.Reinforce = []string{"doc-f0"}
	e.writeNew(w3)

	for i, f := range e.facts("b", batchIDs(w)...) {
		want := *before[i]
		want.ReinforcementCount += []int{2, 1, 0}[i]
		checkFact(e.t, f, &want)
	}
}

// RecordAccess adds one access to each known fact and sets LastAccessed;
// unknown ids are ignored (a fact may be forgotten between a recall and
// its access record).
func testLifecycleRecordAccess(e *env) {
	e.newBank("b")
	w := NewTestBatch("b", "doc", "Melanie likes jazz", "Melanie plays the saxophone", "Melanie lives in Lyon", "Melanie was born in May")
	w.Facts[3].AccessCount, w.Facts[3].LastAccessed = 5, hours(-5)
	e.writeNew(w)
	before := e.facts("b", batchIDs(w)...)

	if err := e.s.RecordAccess(e.ctx, "b", []string{"doc-f0", "doc-f1", "doc-f3", "missing"}, hours(1)); err != nil {
		e.t.Fatalf("RecordAccess: %v", err)
	}
	if err := e.s.RecordAccess(e.ctx, "b", []string{"doc-f0"}, hours(2)); err != nil {
		e.t.Fatalf("RecordAccess: %v", err)
	}
	if err := e.s.RecordAccess(e.ctx, "b", nil, hours(3)); err != nil {
		e.t.Errorf("RecordAccess(no ids): got %v, want success", err)
	}
	wantCounts := []int{2, 1, 0, 6}
	wantLast := []float64{2, 1, unset, 1}
	for i, f := range e.facts("b", batchIDs(w)...) {
		want := *before[i]
		want.AccessCount = wantCounts[i]
		if wantLast[i] != unset {
			want.LastAccessed = hours(wantLast[i])
		}
		checkFact(e.t, f, &want)
	}
}

// Sensitive facts are found by id but left out of every search unless
// the filter asks for them; private facts are not.
func testLifecycleSensitive(e *env) {
	e.newBank("b")
	open := NewTestFact("b", "open", "Melanie filed her tax return in April")
	private := NewTestFact("b", "private", "Melanie's tax advisor is Priya")
	private.Sensitivity = memory.SensitivityPrivate
	sensitive := NewTestFact("b", "sensitive", "Melanie's tax debt causes her anxiety")
	sensitive.Sensitivity = memory.SensitivitySensitive
	writeFacts(e, "b", "doc", open, private, sensitive)

	checkIDSet(e.t, "SearchText(tax)", hitIDs(e.searchText("b", 10, memory.Filter{}, "tax")), []string{"open", "private"})
	checkIDSet(e.t, "SearchText(tax), sensitive", hitIDs(e.searchText("b", 10, memory.Filter{Sensitive: true}, "tax")), []string{"open", "private", "sensitive"})
	checkIDSet(e.t, "SearchVector", hitIDs(e.searchVector("b", sensitive.Embedding, 10, memory.Filter{})), []string{"open", "private"})
	if hits := e.searchVector("b", sensitive.Embedding, 10, memory.Filter{Sensitive: true}); len(hits) != 3 || hits[0].ID != "sensitive" {
		e.t.Errorf("SearchVector(vector of the sensitive fact), sensitive: got %q, want sensitive first of 3", hitIDs(hits))
	}
	checkIDSet(e.t, "every fact that passes the filter", e.passing("b", memory.Filter{}), []string{"open", "private"})
	checkIDSet(e.t, "every fact that passes the filter, sensitive", e.passing("b", memory.Filter{Sensitive: true}), []string{"open", "private", "sensitive"})
	checkFact(e.t, e.fact("b", "sensitive"), sensitive)
}

// Stats counts every row of a bank by kind and fact status.
func testStatsCounts(e *env) {
	e.newBank("b")
	if got := e.stats("b"); got != (memory.Stats{}) {
		e.t.Errorf("Stats of a new bank: got %+v, want zero", got)
	}
	a := memory.EntityID("Melanie")
	b := memory.EntityID("Lyon")
	c := memory.EntityID("Jazz")
	up := func(id, name string, t memory.EntityType) memory.EntityUpsert {
		return memory.EntityUpsert{Entity: memory.Entity{ID: id, Name: name, Type: t}, Mentions: 1, Episodes: 1}
	}
	w1 := NewTestBatch("b", "doc1", "Melanie lives in Lyon", "Melanie likes jazz", "Lyon hosts a jazz festival")
	w1.Entities = []memory.EntityUpsert{up(a, "Melanie", memory.EntityPerson), up(b, "Lyon", memory.EntityPlace)}
	w1.Relations = []*memory.Relation{{ID: "r1", BankID: "b", SubjectID: a, Predicate: "lives_in", ObjectID: b, Confidence: 1, CreatedAt: testTime}}
	w1.Links = []memory.Link{
		{BankID: "b", FromID: "doc1-f0", ToID: "doc1-f1", Kind: memory.LinkTemporal, Weight: 1},
		{BankID: "b", FromID: "doc1-f1", ToID: "doc1-f2", Kind: memory.LinkTemporal, Weight: 1},
	}
	e.writeNew(w1)

	w2 := NewTestBatch("b", "doc2", "Melanie moved to Paris", "Melanie's old jazz records")
	extra := NewTestFact("b", "chunkless", "Melanie still likes jazz")
	// A masked secret counts as redacted; the word alone does not.
	masked := NewTestFact("b", "masked", "Melanie's archive key is [REDACTED:api_key]")
	word := NewTestFact("b", "word", "Melanie read the redacted report")
	for _, f := range []*memory.Fact{extra, masked, word} {
		f.DocumentID = "doc2"
	}
	w2.Facts = append(w2.Facts, extra, masked, word)
	w2.Facts[1].Status = memory.StatusArchived
	w2.Entities = []memory.EntityUpsert{up(a, "Melanie", memory.EntityPerson), up(c, "Jazz", memory.EntityTopic)}
	closed := *w1.Relations[0]
	closed.ValidTo, closed.ExpiredAt = testTime, testTime
	w2.Relations = []*memory.Relation{&closed, {ID: "r2", BankID: "b", SubjectID: a, Predicate: "likes", ObjectID: c, Confidence: 1, CreatedAt: testTime}}
	w2.Links = []memory.Link{
		{BankID: "b", FromID: "doc2-f0", ToID: "doc1-f0", Kind: memory.LinkEntity, Weight: 0.5, EntityID: a},
		{BankID: "b", FromID: "chunkless", ToID: "doc1-f1", Kind: memory.LinkSemantic, Weight: 0.9},
	}
	w2.Supersede = []memory.Supersession{{FactID: "doc1-f0", SupersededBy: "doc2-f0", ValidTo: testTime, ExpiredAt: testTime}}
	e.writeNew(w2)

	want := memory.Stats{Documents: 2, Chunks: 5, Facts: 8, Active: 6, Superseded: 1, Archived: 1, Redacted: 1, Entities: 3, Relations: 2, Links: 4}
	if got := e.stats("b"); got != want {
		e.t.Errorf("Stats: got %+v, want %+v", got, want)
	}
}

// AsOf answers from the transaction timeline: a fact is seen from its
// CreatedAt until its ExpiredAt, with the status it had then — a fact
// superseded later was active — in every search.
func testLifecycleAsOf(e *env) {
	e.newBank("b")
	w1 := NewTestBatch("b", "doc1", "The team caches with Redis", "Alice leads the cache team")
	for _, f := range w1.Facts {
		f.CreatedAt = hours(-10)
	}
	e.writeNew(w1)
	w2 := NewTestBatch("b", "doc2", "The team caches with Memcached now")
	w2.Facts[0].CreatedAt = hours(-5)
	w2.Supersede = []memory.Supersession{{FactID: "doc1-f0", SupersededBy: "doc2-f0", ValidTo: hours(-6), ExpiredAt: hours(-5)}}
	e.writeNew(w2)
	w3 := NewTestBatch("b", "doc3", "The cache team hired Bob")
	w3.Facts[0].CreatedAt = hours(-1)
	e.writeNew(w3)

	asOf := func(t time.Time, statuses ...memory.Status) memory.Filter {
		return memory.Filter{AsOf: t, Statuses: statuses}
	}
	everything := func(f memory.Filter) []string { return e.passing("b", f) }
	for _, c := range []struct {
		name string
		f    memory.Filter
		want []string
	}{
		{"before anything", asOf(hours(-20)), nil},
		{"after the first document", asOf(hours(-7)), []string{"doc1-f0", "doc1-f1"}},
		{"at the supersession", asOf(hours(-5)), []string{"doc1-f1", "doc2-f0"}},
		{"now", asOf(hours(0)), []string{"doc1-f1", "doc2-f0", "doc3-f0"}},
		{"superseded, before it was", asOf(hours(-7), memory.StatusSuperseded), nil},
		{"superseded, after it was", asOf(hours(-2), memory.StatusSuperseded), nil},
		{"no as-of, superseded", memory.Filter{Statuses: []memory.Status{memory.StatusSuperseded}}, []string{"doc1-f0"}},
	} {
		checkIDSet(e.t, "every fact that passes the filter, as of "+c.name, everything(c.f), c.want)
	}
	checkIDSet(e.t, "SearchText(caches), as of -7h", hitIDs(e.searchText("b", 10, asOf(hours(-7)), "caches")), []string{"doc1-f0", "doc1-f1"})
	checkIDSet(e.t, "SearchText(caches), as of now", hitIDs(e.searchText("b", 10, asOf(hours(0)), "caches")), []string{"doc1-f1", "doc2-f0", "doc3-f0"})
	vec := w1.Facts[0].Embedding
	if hits := e.searchVector("b", vec, 10, asOf(hours(-7))); len(hits) == 0 || hits[0].ID != "doc1-f0" {
		e.t.Errorf("SearchVector(Redis vector), as of -7h: got %v, want doc1-f0 first", hitIDs(hits))
	}
	for _, h := range e.searchVector("b", vec, 10, asOf(hours(-3))) {
		if h.ID == "doc1-f0" || h.ID == "doc3-f0" {
			e.t.Errorf("SearchVector, as of -3h: got %s, which was expired or unknown then", h.ID)
		}
	}
}
