package storetest

import (
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// renameDocument gives a batch made by NewTestBatch another document id,
// renaming its chunks and facts to match; the item stays.
func renameDocument(w *memory.WriteBatch, docID string) {
	w.Document.ID = docID
	for i, c := range w.Chunks {
		c.ID, c.DocumentID = memory.ChunkID(w.BankID, docID, i), docID
	}
	for i, f := range w.Facts {
		f.ID, f.DocumentID, f.ChunkID = TestFactID(docID, i), docID, memory.ChunkID(w.BankID, docID, i)
	}
}

// maxSeq returns the highest Seq among facts.
func maxSeq(fs []*memory.Fact) int64 {
	var m int64
	for _, f := range fs {
		m = max(m, f.Seq)
	}
	return m
}

// The same (bank, source, item) with the same content hash stores nothing
// at all — no facts, entities, links, reinforcements or supersessions —
// and reports the stored document.
func testIdempotencyDuplicate(e *env) {
	e.newBank("b")
	mel := memory.EntityID("Melanie")
	build := func() *memory.WriteBatch {
		w := NewTestBatch("b", "doc", "Melanie adopted a kitten", "The kitten is called Miso")
		w.Entities = []memory.EntityUpsert{{Entity: memory.Entity{ID: mel, Name: "Melanie", Type: memory.EntityPerson}, Mentions: 1, Episodes: 1}}
		w.Refs = []memory.EntityRef{{FactID: w.Facts[0].ID, EntityID: mel}}
		w.Links = []memory.Link{{BankID: "b", FromID: w.Facts[0].ID, ToID: w.Facts[1].ID, Kind: memory.LinkTemporal, Weight: 1}}
		return w
	}
	first := build()
	if got, want := *e.write(first), (memory.WriteResult{DocumentID: "doc", Facts: 2}); got != want {
		e.t.Errorf("first Write: got %+v, want %+v", got, want)
	}
	before := e.stats("b")
	facts := e.facts("b", batchIDs(first)...)
	entity := memory.Entity{ID: mel, BankID: "b", Name: "Melanie", Type: memory.EntityPerson, MentionCount: 1, EpisodeCount: 1}

	if got, want := *e.write(build()), (memory.WriteResult{Duplicate: true, DocumentID: "doc"}); got != want {
		e.t.Errorf("Write of the same batch again: got %+v, want %+v", got, want)
	}
	if got := e.stats("b"); got != before {
		e.t.Errorf("Stats after a duplicate: got %+v, want %+v", got, before)
	}

	// The same item and content under new ids, carrying more changes.
	w := build()
	renameDocument(w, "doc-again")
	w.Refs[0].FactID = w.Facts[0].ID
	w.Links[0].FromID, w.Links[0].ToID = w.Facts[0].ID, w.Facts[1].ID
	w.Entities = append(w.Entities, memory.EntityUpsert{Entity: memory.Entity{ID: memory.EntityID("Miso"), Name: "Miso", Type: memory.EntityThing}, Mentions: 1})
	w.Reinforce = []string{"doc-f0"}
	w.Supersede = []memory.Supersession{{FactID: "doc-f1", SupersededBy: "doc-again-f1", ValidTo: testTime, ExpiredAt: testTime}}
	if got, want := *e.write(w), (memory.WriteResult{Duplicate: true, DocumentID: "doc"}); got != want {
		e.t.Errorf("Write of the same item and content under new ids: got %+v, want %+v", got, want)
	}
	if got := e.stats("b"); got != before {
		e.t.Errorf("Stats after a duplicate: got %+v, want %+v", got, before)
	}
	if got := e.facts("b", batchIDs(w)...); len(got) != 0 {
		e.t.Errorf("Facts of a duplicate's new ids: got %q, want none", factIDs(got))
	}
	for i, f := range e.facts("b", batchIDs(first)...) {
		checkFact(e.t, f, facts[i])
		if f.Seq != facts[i].Seq {
			e.t.Errorf("fact %s after a duplicate: got Seq %d, want %d", f.ID, f.Seq, facts[i].Seq)
		}
	}
	checkEntity(e, "after a duplicate", e.entity("b", mel), entity)
	if got := e.entitiesByName("b", "miso"); len(got) != 0 {
		e.t.Errorf("EntitiesByName(miso) after a duplicate: got %q, want none", entityIDs(got))
	}
	checkIDs(e.t, "FactsByEntity(melanie) after a duplicate", e.factsByEntity("b", mel, 10), []string{"doc-f0"})
	checkDiff(e.t, "DocumentByItem after a duplicate", e.document("b", memory.SourceNote, "doc"), first.Document)
}

// The same item with another content hash replaces the old document: its
// chunks go; its facts stay with their refs and links, superseded (found
// by history and as-of reads, not by active ones); the new ones take
// their place.
func testIdempotencyReplace(e *env) {
	e.newBank("b")
	mel := memory.EntityID("Melanie")
	upsert := []memory.EntityUpsert{{Entity: memory.Entity{ID: mel, Name: "Melanie", Type: memory.EntityPerson}, Mentions: 1, Episodes: 1}}
	build1 := func() *memory.WriteBatch {
		w := NewTestBatch("b", "d1", "Melanie keeps an alpaca", "The alpaca is named Pablo")
		w.Document.ItemID = "item"
		w.Entities = upsert
		w.Refs = []memory.EntityRef{{FactID: "d1-f0", EntityID: mel}}
		w.Links = []memory.Link{{BankID: "b", FromID: "d1-f0", ToID: "d1-f1", Kind: memory.LinkTemporal, Weight: 1}}
		return w
	}
	v1 := build1()
	e.writeNew(v1)
	other := NewTestBatch("b", "other", "Melanie visits the farm weekly")
	other.Entities = upsert
	other.Refs = []memory.EntityRef{{FactID: "other-f0", EntityID: mel}}
	other.Links = []memory.Link{
		{BankID: "b", FromID: "other-f0", ToID: "d1-f0", Kind: memory.LinkEntity, Weight: 0.5, EntityID: mel},
		{BankID: "b", FromID: "other-f0", ToID: "d1-f1", Kind: memory.LinkSemantic, Weight: 0.75},
	}
	e.writeNew(other)
	seqBefore := maxSeq(e.facts("b", "d1-f0", "d1-f1", "other-f0"))

	v2 := NewTestBatch("b", "d2", "Melanie keeps a bison", "The bison is named Otto", "Otto eats hay")
	v2.Document.ItemID = "item"
	v2.Entities = upsert
	v2.Refs = []memory.EntityRef{{FactID: "d2-f0", EntityID: mel}}
	v2.Links = []memory.Link{{BankID: "b", FromID: "d2-f0", ToID: "d2-f1", Kind: memory.LinkTemporal, Weight: 1}}
	v2.Document.CreatedAt = testTime.Add(time.Hour)
	if got, want := *e.write(v2), (memory.WriteResult{Replaced: true, DocumentID: "d2", Facts: 3}); got != want {
		e.t.Errorf("Write of the item with new content: got %+v, want %+v", got, want)
	}

	checkDiff(e.t, "DocumentByItem(item)", e.document("b", memory.SourceNote, "item"), v2.Document)
	if got := e.chunks("b", "d1"); len(got) != 0 {
		e.t.Errorf("Chunks(d1) after its replacement: got %d chunks, want none", len(got))
	}
	if got := e.chunks("b", "d2"); len(got) != 3 {
		e.t.Errorf("Chunks(d2): got %d chunks, want 3", len(got))
	}
	// The old version's facts stay, superseded when the new one came
	// (bi-temporal: readable as of before it), with their refs and links.
	old := batchIDs(v1)
	kept := e.facts("b", old...)
	checkIDs(e.t, "Facts of the replaced document", factIDs(kept), old)
	for i, f := range kept {
		want := *v1.Facts[i]
		want.Status, want.ExpiredAt, want.ChunkID = memory.StatusSuperseded, v2.Document.CreatedAt, ""
		checkFact(e.t, f, &want)
	}
	got := e.facts("b", batchIDs(v2)...)
	checkIDs(e.t, "Facts of the new version", factIDs(got), batchIDs(v2))
	for i, f := range got {
		checkFact(e.t, f, v2.Facts[i])
		if f.Seq <= seqBefore {
			e.t.Errorf("fact %s of the new version: got Seq %d, want above %d", f.ID, f.Seq, seqBefore)
		}
	}
	everything := memory.Filter{Statuses: allStatuses, Sensitive: true}
	if got := e.searchText("b", 10, memory.Filter{}, "alpaca", "pablo"); len(got) != 0 {
		e.t.Errorf("SearchText(alpaca, pablo) of active facts after replacement: got %q, want none", hitIDs(got))
	}
	checkIDSet(e.t, "SearchText(alpaca, pablo) of every status", hitIDs(e.searchText("b", 10, everything, "alpaca", "pablo")), old)
	asOf := memory.Filter{AsOf: v2.Document.CreatedAt.Add(-time.Second)}
	checkIDSet(e.t, "SearchText(alpaca, pablo) as of before the replacement", hitIDs(e.searchText("b", 10, asOf, "alpaca", "pablo")), old)
	checkIDSet(e.t, "SearchText(otto)", hitIDs(e.searchText("b", 10, memory.Filter{}, "otto")), []string{"d2-f1", "d2-f2"})
	for _, id := range e.passing("b", memory.Filter{}) {
		if slices.Contains(old, id) {
			e.t.Errorf("SearchVector(k 1000) of active facts after replacement: got replaced fact %s", id)
		}
	}
	checkIDSet(e.t, "EntityRefs of replaced facts", refKeys(e.refs("b", old...)), refKeys(v1.Refs))
	checkIDs(e.t, "FactsByEntity(melanie)", e.factsByEntity("b", mel, 10), []string{"d2-f0", "other-f0"})
	checkLinks(e.t, "Links from replaced facts", e.links("b", old), v1.Links)
	checkLinks(e.t, "Links(d2-f0)", e.links("b", []string{"d2-f0"}), v2.Links)
	want := memory.Stats{Documents: 2, Chunks: 4, Facts: 6, Active: 4, Superseded: 2, Entities: 1, Links: 4}
	if got := e.stats("b"); got != want {
		e.t.Errorf("Stats after replacement: got %+v, want %+v", got, want)
	}

	if got, want := *e.write(v2), (memory.WriteResult{Duplicate: true, DocumentID: "d2"}); got != want {
		e.t.Errorf("Write of the new version again: got %+v, want %+v", got, want)
	}
	// Back to the first version: it replaces the second in turn.
	if got, want := *e.write(build1()), (memory.WriteResult{Replaced: true, DocumentID: "d1", Facts: 2}); got != want {
		e.t.Errorf("Write of the first version again: got %+v, want %+v", got, want)
	}
	checkIDSet(e.t, "SearchText(alpaca) after switching back", hitIDs(e.searchText("b", 10, memory.Filter{}, "alpaca")), []string{"d1-f0", "d1-f1"})
	if got := e.searchText("b", 10, memory.Filter{}, "bison", "otto"); len(got) != 0 {
		e.t.Errorf("SearchText(bison, otto) of active facts after switching back: got %q, want none", hitIDs(got))
	}
	checkIDSet(e.t, "SearchText(bison, otto) of every status after switching back", hitIDs(e.searchText("b", 10, everything, "bison", "otto")), batchIDs(v2))
	for _, f := range e.facts("b", batchIDs(build1())...) {
		if f.Status != memory.StatusActive {
			e.t.Errorf("fact %s of the first version retained again: status %s, want active", f.ID, f.Status)
		}
	}
}

// A new version of an item may reuse the document id and the fact ids of
// the old one (ids derived from the item): the old rows go first.
func testIdempotencyReplaceSameIDs(e *env) {
	e.newBank("b")
	v1 := NewTestBatch("b", "doc", "Melanie drinks green tea", "She buys it in Kyoto")
	e.writeNew(v1)
	seqBefore := maxSeq(e.facts("b", batchIDs(v1)...))

	v2 := NewTestBatch("b", "doc", "Melanie drinks black coffee", "She buys it in Lima", "Every morning at seven")
	if got, want := *e.write(v2), (memory.WriteResult{Replaced: true, DocumentID: "doc", Facts: 3}); got != want {
		e.t.Errorf("Write of the new version: got %+v, want %+v", got, want)
	}
	got := e.facts("b", batchIDs(v2)...)
	checkIDs(e.t, "Facts of the new version", factIDs(got), batchIDs(v2))
	for i, f := range got {
		checkFact(e.t, f, v2.Facts[i])
		if f.Seq <= seqBefore {
			e.t.Errorf("fact %s of the new version: got Seq %d, want above %d", f.ID, f.Seq, seqBefore)
		}
	}
	cs := e.chunks("b", "doc")
	if len(cs) != 3 {
		e.t.Fatalf("Chunks(doc): got %d chunks, want 3", len(cs))
	}
	for i, c := range cs {
		checkDiff(e.t, "Chunks(doc)", c, v2.Chunks[i])
	}
	checkDiff(e.t, "DocumentByItem", e.document("b", memory.SourceNote, "doc"), v2.Document)
	if got := e.searchText("b", 10, memory.Filter{}, "tea", "kyoto"); len(got) != 0 {
		e.t.Errorf("SearchText(tea, kyoto) after replacement: got %q, want none", hitIDs(got))
	}
	checkIDs(e.t, "SearchText(coffee)", hitIDs(e.searchText("b", 10, memory.Filter{}, "coffee")), []string{"doc-f0"})
	want := memory.Stats{Documents: 1, Chunks: 3, Facts: 3, Active: 3}
	if got := e.stats("b"); got != want {
		e.t.Errorf("Stats after replacement: got %+v, want %+v", got, want)
	}
}

// allStatuses lists every fact status, for filters that want them all.
var allStatuses = []memory.Status{memory.StatusActive, memory.StatusSuperseded, memory.StatusArchived}
