package storetest

import (
	"encoding/json"
	"strings"

	"github.com/mnemo-ai/mnemo/memory"
)

// The Forget group checks memory.Forgetter: a
// forgotten fact leaves no trace a reader can find (facts, searches,
// refs, links, entities, relations, observations, chunks, documents,
// supersession pointers), a bad call changes nothing, the audit keeps
// the selector and counts but not the text, and another bank is never
// touched.

// forgetter returns the store's Forgetter.
func (e *env) forgetter() memory.Forgetter { return e.s }

// forget forgets ids in bank and returns the audit record.
func (e *env) forget(bank string, ids ...string) *memory.ForgetRecord {
	e.t.Helper()
	rec, err := e.forgetter().Forget(e.ctx, bank, ids, &memory.ForgetRecord{Actor: "test", Selector: memory.ForgetAudit{IDs: len(ids)}, At: testTime})
	if err != nil {
		e.t.Fatalf("Forget(%q, %v): %v", bank, ids, err)
	}
	return rec
}

// selectFacts resolves a selector in bank.
func (e *env) selectFacts(bank string, sel memory.ForgetSelector) []string {
	e.t.Helper()
	ids, err := e.forgetter().ForgetSelect(e.ctx, bank, sel)
	if err != nil {
		e.t.Fatalf("ForgetSelect(%q, %+v): %v", bank, sel, err)
	}
	return ids
}

// forgetBatch is a document of three facts, two mentioning Zara and
// one Zara and Quentin, with links between them.
func forgetBatch(bank, doc string) *memory.WriteBatch {
	w := NewTestBatch(bank, doc, "Zara adopted a quokka named Pip", "Zara runs every morning", "Quentin visited Zara in Perth")
	zara, quentin := memory.EntityID("Zara"), memory.EntityID("Quentin")
	w.Entities = []memory.EntityUpsert{
		{Entity: memory.Entity{ID: zara, Name: "Zara", Type: memory.EntityPerson, Aliases: []string{"Z"}}, Mentions: 3, Episodes: 1, Embedding: TestVector("Zara", TestDimension)},
		{Entity: memory.Entity{ID: quentin, Name: "Quentin", Type: memory.EntityPerson}, Mentions: 1, Episodes: 1, Embedding: TestVector("Quentin", TestDimension)},
	}
	f := func(i int) string { return TestFactID(doc, i) }
	w.Refs = []memory.EntityRef{{FactID: f(0), EntityID: zara}, {FactID: f(1), EntityID: zara}, {FactID: f(2), EntityID: zara}, {FactID: f(2), EntityID: quentin}}
	w.Cooccurrences = []memory.Cooccurrence{{EntityA: min(zara, quentin), EntityB: max(zara, quentin), Count: 1}}
	w.Links = []memory.Link{
		{FromID: f(0), ToID: f(1), Kind: memory.LinkTemporal, Weight: 1},
		{FromID: f(1), ToID: f(2), Kind: memory.LinkTemporal, Weight: 1},
		{FromID: f(2), ToID: f(0), Kind: memory.LinkEntity, EntityID: zara, Weight: 1},
	}
	w.Relations = []*memory.Relation{
		{ID: doc + "-r1", BankID: bank, SubjectID: quentin, Predicate: "visited", ObjectID: zara, Confidence: 1, FactIDs: []string{f(2)}, CreatedAt: testTime},
		{ID: doc + "-r2", BankID: bank, SubjectID: zara, Predicate: "owns", ObjectID: zara, Confidence: 1, FactIDs: []string{f(0), f(1)}, CreatedAt: testTime},
	}
	return w
}

// ByID: the fact is gone from every read and search; the others stay;
// the chunk it came from goes, and the document's content is cleared.
func testForgetByID(e *env) {
	e.newBank("b")
	w := forgetBatch("b", "d1")
	e.writeNew(w)
	gone := TestFactID("d1", 0)
	rec := e.forget("b", gone, gone)
	if rec.Counts.Facts != 1 || rec.Counts.Chunks != 1 || rec.Counts.Documents != 0 || rec.Counts.Refs != 1 {
		e.t.Errorf("Forget counts: got %+v, want 1 fact, 1 ref, 1 chunk, no document", rec.Counts)
	}
	if got := e.facts("b", gone); len(got) != 0 {
		e.t.Errorf("Facts(%s) after forget: got %d facts", gone, len(got))
	}
	checkIDs(e.t, "SearchText(quokka)", hitIDs(e.searchText("b", 10, memory.Filter{}, "quokka")), nil)
	all := memory.Filter{Statuses: []memory.Status{memory.StatusActive, memory.StatusSuperseded, memory.StatusArchived}}
	for _, h := range e.searchVector("b", w.Facts[0].Embedding, 10, all) {
		if h.ID == gone {
			e.t.Errorf("SearchVector: the forgotten fact %s is still found", gone)
		}
	}
	checkIDs(e.t, "SearchText(morning)", hitIDs(e.searchText("b", 10, memory.Filter{}, "morning")), []string{TestFactID("d1", 1)})
	if got := e.refs("b", gone); len(got) != 0 {
		e.t.Errorf("EntityRefs(%s): got %v, want none", gone, got)
	}
	for _, l := range e.links("b", []string{TestFactID("d1", 1), TestFactID("d1", 2)}) {
		if l.ToID == gone || l.FromID == gone {
			e.t.Errorf("Links: %+v still reaches the forgotten fact", l)
		}
	}
	if got := e.links("b", []string{gone}); len(got) != 0 {
		e.t.Errorf("Links(%s): got %v, want none", gone, got)
	}
	chunks, err := e.s.Chunks(e.ctx, "b", "d1")
	if err != nil {
		e.t.Fatalf("Chunks: %v", err)
	}
	if len(chunks) != 2 || strings.Contains(chunks[0].Text+chunks[1].Text, "quokka") {
		e.t.Errorf("Chunks after forget: got %d, want the 2 others without the forgotten text", len(chunks))
	}
	doc, err := e.s.DocumentByItem(e.ctx, "b", w.Document.Source, w.Document.ItemID)
	if err != nil {
		e.t.Fatalf("DocumentByItem: %v", err)
	}
	if doc.Content != "" {
		e.t.Errorf("document content after forget: got %q, want it cleared", doc.Content)
	}
	if st := e.stats("b"); st.Facts != 2 || st.Documents != 1 {
		e.t.Errorf("Stats after forget: got %+v, want 2 facts in 1 document", st)
	}
	zara := e.entity("b", memory.EntityID("Zara"))
	if zara.MentionCount != 2 {
		e.t.Errorf("Zara's mentions: got %d, want 3 - 1", zara.MentionCount)
	}
}

// Document: the selector gives every fact of the document; forgetting
// them removes the document and its chunks.
func testForgetByDocument(e *env) {
	e.newBank("b")
	w := forgetBatch("b", "d1")
	e.writeNew(w)
	e.writeNew(NewTestBatch("b", "d2", "Quentin likes tea"))
	ids := e.selectFacts("b", memory.ForgetSelector{DocumentID: "d1"})
	checkIDs(e.t, "ForgetSelect(document d1)", ids, batchIDs(w))
	checkIDs(e.t, "ForgetSelect(document nope)", e.selectFacts("b", memory.ForgetSelector{DocumentID: "nope"}), nil)
	rec := e.forget("b", ids...)
	if rec.Counts.Facts != 3 || rec.Counts.Documents != 1 || rec.Counts.Chunks != 3 {
		e.t.Errorf("Forget counts: got %+v, want 3 facts, 1 document, 3 chunks", rec.Counts)
	}
	if _, err := e.s.DocumentByItem(e.ctx, "b", w.Document.Source, w.Document.ItemID); memory.ErrorCode(err) != memory.ENOTFOUND {
		e.t.Errorf("DocumentByItem after forget: got %v, want ENOTFOUND", err)
	}
	if chunks, err := e.s.Chunks(e.ctx, "b", "d1"); err != nil || len(chunks) != 0 {
		e.t.Errorf("Chunks after forget: got %d, %v; want none", len(chunks), err)
	}
	if st := e.stats("b"); st.Facts != 1 || st.Documents != 1 || st.Chunks != 1 || st.Entities != 0 || st.Relations != 0 || st.Links != 0 {
		e.t.Errorf("Stats after forget: got %+v, want only d2 (1 fact, 1 chunk, no entity, relation or link)", st)
	}
	if got := e.entitiesByName("b", "zara", "z", "quentin"); len(got) != 0 {
		e.t.Errorf("EntitiesByName after forget: got %d entities, want none (no refs left)", len(got))
	}
}

// Item: the selector gives the facts of every version of an item — the
// current document's and those of the versions it superseded — and no
// other item's; an item needs its source.
func testForgetByItem(e *env) {
	e.newBank("b")
	v1 := NewTestBatch("b", "v1", "a bison named Otto", "Otto eats hay")
	v1.Document.ItemID = "item"
	e.writeNew(v1)
	v2 := NewTestBatch("b", "v2", "a yak named Yuri")
	v2.Document.ItemID = "item"
	if res := e.write(v2); !res.Replaced {
		e.t.Fatalf("Write of the item's second version: %+v, want Replaced", res)
	}
	other := NewTestBatch("b", "o1", "a llama named Lola")
	other.Document.ItemID = "other"
	e.writeNew(other)
	got := e.selectFacts("b", memory.ForgetSelector{Source: memory.SourceNote, Item: "item"})
	checkIDs(e.t, "ForgetSelect(item, both versions)", got, append(batchIDs(v1), batchIDs(v2)...))
	checkIDs(e.t, "ForgetSelect(unknown item)", e.selectFacts("b", memory.ForgetSelector{Source: memory.SourceNote, Item: "nope"}), nil)
	_, err := e.s.ForgetSelect(e.ctx, "b", memory.ForgetSelector{Item: "item"})
	wantCode(e.t, "ForgetSelect(item without source)", err, memory.EINVALID)
	e.forget("b", got...)
	if st := e.stats("b"); st.Facts != 1 {
		e.t.Errorf("after forgetting the item: %d facts, want the other item's 1", st.Facts)
	}
}

// Entity: the selector gives the facts that mention the entity; an
// entity left with no refs goes with its relations, one with refs left
// loses mentions; a relation loses its support.
func testForgetByEntity(e *env) {
	e.newBank("b")
	e.writeNew(forgetBatch("b", "d1"))
	quentin, zara := memory.EntityID("Quentin"), memory.EntityID("Zara")
	ids := e.selectFacts("b", memory.ForgetSelector{EntityID: quentin})
	checkIDs(e.t, "ForgetSelect(entity Quentin)", ids, []string{TestFactID("d1", 2)})
	checkIDs(e.t, "ForgetSelect(entity Zara, document d1)", e.selectFacts("b", memory.ForgetSelector{EntityID: zara, DocumentID: "d1"}),
		[]string{TestFactID("d1", 0), TestFactID("d1", 1), TestFactID("d1", 2)})
	rec := e.forget("b", ids...)
	if rec.Counts.Entities != 1 || rec.Counts.Relations != 1 || rec.Counts.Refs != 2 {
		e.t.Errorf("Forget counts: got %+v, want 1 entity (Quentin), 1 relation, 2 refs", rec.Counts)
	}
	if got := e.entities("b", quentin); len(got) != 0 {
		e.t.Errorf("Entities(Quentin): got %d, want none", len(got))
	}
	if got := e.entitiesByName("b", "quentin"); len(got) != 0 {
		e.t.Errorf("EntitiesByName(quentin): got %d, want none", len(got))
	}
	if got := e.entity("b", zara); got.MentionCount != 2 {
		e.t.Errorf("Zara's mentions: got %d, want 2", got.MentionCount)
	}
	rels, err := e.s.Relations(e.ctx, "b", memory.RelationQuery{})
	if err != nil {
		e.t.Fatal(err)
	}
	if len(rels) != 1 || rels[0].ID != "d1-r2" {
		e.t.Fatalf("Relations after forget: got %d, want d1-r2 only", len(rels))
	}
	// The last support of d1-r2 goes in two steps.
	rec = e.forget("b", TestFactID("d1", 0))
	if rec.Counts.RelationsShrunk != 1 || rec.Counts.Relations != 0 {
		e.t.Errorf("Forget(d1-f0) counts: got %+v, want 1 relation shrunk", rec.Counts)
	}
	rels, _ = e.s.Relations(e.ctx, "b", memory.RelationQuery{})
	if len(rels) != 1 || len(rels[0].FactIDs) != 1 || rels[0].FactIDs[0] != TestFactID("d1", 1) {
		e.t.Errorf("Relations after the first support went: got %+v", rels)
	}
	rec = e.forget("b", TestFactID("d1", 1))
	if rec.Counts.Relations != 1 || rec.Counts.Entities != 1 || rec.Counts.Documents != 1 {
		e.t.Errorf("Forget(d1-f1) counts: got %+v, want the relation, Zara and the document gone", rec.Counts)
	}
	if st := e.stats("b"); st != (memory.Stats{}) {
		e.t.Errorf("Stats after forgetting everything: got %+v, want all zero", st)
	}
}

// TimeRange: the selector takes the facts whose event time is in
// [From, To).
func testForgetByTime(e *env) {
	e.newBank("b")
	w := NewTestBatch("b", "d1", "one", "two", "three", "four")
	for i, f := range w.Facts {
		f.OccurredStart = hours(float64(-10 * (i + 1)))
	}
	e.writeNew(w)
	got := e.selectFacts("b", memory.ForgetSelector{From: hours(-30), To: hours(-10)})
	checkIDs(e.t, "ForgetSelect(-30h, -10h)", got, []string{TestFactID("d1", 1), TestFactID("d1", 2)})
	checkIDs(e.t, "ForgetSelect(from -20h)", e.selectFacts("b", memory.ForgetSelector{From: hours(-20)}), []string{TestFactID("d1", 0), TestFactID("d1", 1)})
	checkIDs(e.t, "ForgetSelect(to -30h)", e.selectFacts("b", memory.ForgetSelector{To: hours(-30)}), []string{TestFactID("d1", 3)})
	e.forget("b", got...)
	checkIDs(e.t, "facts left", factIDs(e.facts("b", batchIDs(w)...)), []string{TestFactID("d1", 0), TestFactID("d1", 3)})
}

// Observations and supersession: an observation whose last source goes
// is dropped, another loses the source and is marked for consolidation;
// a fact the forgotten one superseded loses the pointer.
func testForgetObservations(e *env) {
	os := e.observations()
	e.newBank("b")
	w := NewTestBatch("b", "d1", "Zara swims on Monday", "Zara swims on Friday", "Zara swims on Sunday")
	w.Facts[0].ConsolidatedAt, w.Facts[1].ConsolidatedAt = testTime, testTime
	e.writeNew(w)
	w2 := NewTestBatch("b", "d2", "Zara swims daily now")
	w2.Supersede = []memory.Supersession{{FactID: TestFactID("d1", 2), SupersededBy: TestFactID("d2", 0), ValidTo: testTime, ExpiredAt: testTime}}
	e.writeNew(w2)
	f := func(i int) string { return TestFactID("d1", i) }
	if err := os.PutObservations(e.ctx, "b", []*memory.Observation{
		testObservation("o1", "Zara swims twice a week", f(0), f(1)),
		testObservation("o2", "Zara swims on Sundays", f(2)),
	}); err != nil {
		e.t.Fatal(err)
	}
	rec := e.forget("b", f(1))
	if rec.Counts.Reconsolidate != 1 || rec.Counts.Observations != 0 {
		e.t.Errorf("Forget(f1) counts: got %+v, want 1 observation to reconsolidate", rec.Counts)
	}
	obs, err := os.Observations(e.ctx, "b", []string{"o1"})
	if err != nil || len(obs) != 1 {
		e.t.Fatalf("Observations(o1): %d, %v", len(obs), err)
	}
	checkIDs(e.t, "o1 sources", obs[0].SourceFactIDs, []string{f(0)})
	if obs[0].EvidenceCount != 1 {
		e.t.Errorf("o1 evidence: got %d, want 1", obs[0].EvidenceCount)
	}
	if got := e.fact("b", f(0)); !got.ConsolidatedAt.IsZero() {
		e.t.Errorf("o1's remaining source: ConsolidatedAt %v, want cleared", got.ConsolidatedAt)
	}
	rec = e.forget("b", TestFactID("d2", 0))
	if got := e.fact("b", f(2)); got.SupersededBy != "" {
		e.t.Errorf("SupersededBy of %s after its successor was forgotten: got %q, want none", f(2), got.SupersededBy)
	}
	rec = e.forget("b", f(2))
	if rec.Counts.Observations != 1 {
		e.t.Errorf("Forget(f2) counts: got %+v, want o2 dropped", rec.Counts)
	}
	if obs, _ := os.Observations(e.ctx, "b", []string{"o2"}); len(obs) != 0 {
		e.t.Errorf("Observations(o2): got %d, want none", len(obs))
	}
	if hits, err := os.SearchObservationsText(e.ctx, "b", []string{"sundays"}, 10); err != nil || len(hits) != 0 {
		e.t.Errorf("SearchObservationsText(sundays): got %v, %v; want none", hits, err)
	}
}

// Audit: each forget leaves a record, newest first, with the selector as
// given and the counts, and nothing of the forgotten text.
func testForgetAudit(e *env) {
	fg := e.forgetter()
	e.newBank("b")
	w := forgetBatch("b", "d1")
	e.writeNew(w)
	first, err := fg.Forget(e.ctx, "b", []string{TestFactID("d1", 0)}, &memory.ForgetRecord{ID: "a1", Actor: "alice", At: hours(1),
		Selector: memory.ForgetAudit{Query: "pets", From: hours(-5), To: hours(-1)}})
	if err != nil {
		e.t.Fatal(err)
	}
	second, err := fg.Forget(e.ctx, "b", []string{TestFactID("d1", 1), TestFactID("d1", 2)}, &memory.ForgetRecord{ID: "a2", Actor: "bob", At: hours(2),
		Selector: memory.ForgetAudit{Entity: "Zara", IDs: 2}})
	if err != nil {
		e.t.Fatal(err)
	}
	log, err := fg.ForgetLog(e.ctx, "b", 0)
	if err != nil {
		e.t.Fatal(err)
	}
	if len(log) != 2 {
		e.t.Fatalf("ForgetLog: got %d records, want 2", len(log))
	}
	checkDiff(e.t, "ForgetLog[0]", log[0], second)
	checkDiff(e.t, "ForgetLog[1]", log[1], first)
	if log[1].Selector.Query != "pets" || log[0].Actor != "bob" || log[0].Counts.Facts != 2 || log[0].BankID != "b" {
		e.t.Errorf("ForgetLog: got %+v / %+v", log[0], log[1])
	}
	raw, _ := json.Marshal(log)
	for _, f := range w.Facts {
		if strings.Contains(string(raw), f.Text) || strings.Contains(string(raw), f.ID) {
			e.t.Errorf("ForgetLog keeps forgotten text or id %q: %s", f.ID, raw)
		}
	}
	if got, _ := fg.ForgetLog(e.ctx, "b", 1); len(got) != 1 || got[0].ID != "a2" {
		e.t.Errorf("ForgetLog(limit 1): got %d records", len(got))
	}
	_, err = fg.Forget(e.ctx, "b", []string{TestFactID("d1", 0)}, &memory.ForgetRecord{ID: "a3"})
	wantCode(e.t, "Forget(forgotten id)", err, memory.ENOTFOUND)
	if got, _ := fg.ForgetLog(e.ctx, "b", 0); len(got) != 2 {
		e.t.Errorf("ForgetLog after a failed forget: got %d records, want 2", len(got))
	}
}

// Errors: unknown bank, unknown or empty ids, empty selector: a clear
// error, nothing removed, nothing logged.
func testForgetErrors(e *env) {
	fg := e.forgetter()
	e.newBank("b")
	w := forgetBatch("b", "d1")
	e.writeNew(w)
	before := e.stats("b")
	_, err := fg.Forget(e.ctx, "nope", []string{"x"}, nil)
	wantCode(e.t, "Forget(unknown bank)", err, memory.ENOTFOUND)
	_, err = fg.Forget(e.ctx, "b", []string{TestFactID("d1", 0), "nope"}, nil)
	wantCode(e.t, "Forget(one unknown id)", err, memory.ENOTFOUND)
	_, err = fg.Forget(e.ctx, "b", nil, nil)
	wantCode(e.t, "Forget(no ids)", err, memory.EINVALID)
	_, err = fg.Forget(e.ctx, "b", []string{""}, nil)
	wantCode(e.t, "Forget(empty id)", err, memory.EINVALID)
	_, err = fg.ForgetSelect(e.ctx, "b", memory.ForgetSelector{})
	wantCode(e.t, "ForgetSelect(empty)", err, memory.EINVALID)
	_, err = fg.ForgetSelect(e.ctx, "b", memory.ForgetSelector{From: hours(1), To: hours(-1)})
	wantCode(e.t, "ForgetSelect(from after to)", err, memory.EINVALID)
	_, err = fg.ForgetSelect(e.ctx, "nope", memory.ForgetSelector{DocumentID: "d1"})
	wantCode(e.t, "ForgetSelect(unknown bank)", err, memory.ENOTFOUND)
	_, err = fg.ForgetLog(e.ctx, "nope", 0)
	wantCode(e.t, "ForgetLog(unknown bank)", err, memory.ENOTFOUND)
	if after := e.stats("b"); after != before {
		e.t.Errorf("Stats after failed forgets: got %+v, want %+v", after, before)
	}
	checkIDs(e.t, "facts after failed forgets", factIDs(e.facts("b", batchIDs(w)...)), batchIDs(w))
	if log, err := fg.ForgetLog(e.ctx, "b", 0); err != nil || len(log) != 0 {
		e.t.Errorf("ForgetLog after failed forgets: got %d, %v; want none", len(log), err)
	}
}

// Isolation: the same ids in two banks; forgetting in a leaves b whole,
// and an id of b is unknown in a.
func testForgetIsolation(e *env) {
	fg := e.forgetter()
	e.newBank("a")
	e.newBank("b")
	wa, wb := forgetBatch("a", "d1"), forgetBatch("b", "d1")
	e.writeNew(wa)
	e.writeNew(wb)
	e.writeNew(NewTestBatch("b", "only-b", "Bob bakes bread"))
	before := e.stats("b")
	e.forget("a", batchIDs(wa)...)
	if after := e.stats("b"); after != before {
		e.t.Errorf("Stats of b after forgetting in a: got %+v, want %+v", after, before)
	}
	checkIDs(e.t, "SearchText(b, quokka)", hitIDs(e.searchText("b", 10, memory.Filter{}, "quokka")), []string{TestFactID("d1", 0)})
	_, err := fg.Forget(e.ctx, "a", []string{TestFactID("only-b", 0)}, nil)
	wantCode(e.t, "Forget(a, an id of b)", err, memory.ENOTFOUND)
	checkIDs(e.t, "ForgetSelect(a, entity Zara)", e.selectFacts("a", memory.ForgetSelector{EntityID: memory.EntityID("Zara")}), nil)
	if log, _ := fg.ForgetLog(e.ctx, "b", 0); len(log) != 0 {
		e.t.Errorf("ForgetLog(b): got %d records, want none", len(log))
	}
	if got := e.entity("b", memory.EntityID("Quentin")); got.MentionCount != 1 {
		e.t.Errorf("b's Quentin: got %d mentions, want 1", got.MentionCount)
	}
}
