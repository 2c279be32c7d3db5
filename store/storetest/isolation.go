package storetest

import (
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

// isolated is what one of two banks of the isolation tests holds. Both
// banks hold the same texts (so a leak would match) under the same
// document, item and entity ids, and share the fact id "common"; the
// other fact ids are the bank's own.
type isolated struct {
	bank   string
	batch  *memory.WriteBatch
	own    []string // fact ids only this bank has
	ent    memory.Entity
	alias  string // alias only this bank knows
	stats  memory.Stats
	common string // Evidence of this bank's "common" fact
}

var isolationTexts = []string{"Melanie went hiking in the Alps", "Melanie likes strong coffee", "The meeting moved to Friday"}

func newIsolated(bank string, mentions int, alias string) isolated {
	mel := memory.EntityID("Melanie")
	w := &memory.WriteBatch{BankID: bank, Document: NewTestDocument(bank, "doc", memory.SourceChat, "shared", "same content in both banks")}
	own := []string{bank + "-1", bank + "-2", bank + "-3"}
	for i, text := range isolationTexts {
		c := &memory.Chunk{ID: memory.ChunkID(bank, "doc", i), BankID: bank, DocumentID: "doc", Index: i, Text: text}
		f := NewTestFact(bank, own[i], text)
		f.DocumentID, f.ChunkID = "doc", c.ID
		f.OccurredStart = hours(float64(-i))
		w.Chunks = append(w.Chunks, c)
		w.Facts = append(w.Facts, f)
	}
	common := NewTestFact(bank, "common", "A fact both banks hold under one id")
	common.DocumentID, common.Evidence = "doc", "from "+bank
	w.Facts = append(w.Facts, common)
	w.Entities = []memory.EntityUpsert{{Entity: memory.Entity{ID: mel, Name: "Melanie", Type: memory.EntityPerson, Aliases: []string{alias}}, Mentions: mentions, Episodes: 1}}
	w.Refs = []memory.EntityRef{{FactID: own[0], EntityID: mel}, {FactID: own[1], EntityID: mel}, {FactID: "common", EntityID: mel}}
	w.Links = []memory.Link{
		{BankID: bank, FromID: own[0], ToID: own[1], Kind: memory.LinkTemporal, Weight: 1},
		{BankID: bank, FromID: "common", ToID: own[2], Kind: memory.LinkSemantic, Weight: 0.5},
	}
	w.Relations = []*memory.Relation{{ID: "r1", BankID: bank, SubjectID: mel, Predicate: "likes", ObjectID: mel, Confidence: 1, CreatedAt: testTime}}
	return isolated{
		bank:   bank,
		batch:  w,
		own:    own,
		ent:    memory.Entity{ID: mel, BankID: bank, Name: "Melanie", Type: memory.EntityPerson, Aliases: []string{alias}, MentionCount: mentions, EpisodeCount: 1},
		alias:  alias,
		stats:  memory.Stats{Documents: 1, Chunks: 3, Facts: 4, Active: 4, Entities: 1, Relations: 1, Links: 2},
		common: "from " + bank,
	}
}

// checkSeesOnly checks that every read of b returns b's rows and nothing
// of other's.
func checkSeesOnly(e *env, b, other isolated) {
	e.t.Helper()
	bank := b.bank
	mine := append(slices.Clone(b.own), "common")
	if got := e.facts(bank, other.own...); len(got) != 0 {
		e.t.Errorf("Facts(%s, %s's ids): got %q, want none", bank, other.bank, factIDs(got))
	}
	if got := e.fact(bank, "common"); got.Evidence != b.common || got.BankID != bank {
		e.t.Errorf("Facts(%s, common): got Evidence %q, BankID %q, want %q, %q", bank, got.Evidence, got.BankID, b.common, bank)
	}
	for i, f := range e.facts(bank, mine...) {
		if want := int64(i + 1); f.Seq != want {
			e.t.Errorf("fact %s of %s: got Seq %d, want %d (Seq counts per bank)", f.ID, bank, f.Seq, want)
		}
	}
	everything := memory.Filter{Statuses: allStatuses, Sensitive: true}
	checkIDs(e.t, "SearchText("+bank+", hiking)", hitIDs(e.searchText(bank, 10, everything, "hiking")), b.own[:1])
	checkIDSet(e.t, "SearchText("+bank+", melanie)", hitIDs(e.searchText(bank, 10, everything, "melanie")), b.own[:2])
	for _, text := range isolationTexts {
		hits := e.searchVector(bank, TestVector(text, TestDimension), 10, everything)
		checkIDSet(e.t, "SearchVector("+bank+")", hitIDs(hits), mine)
	}
	checkIDSet(e.t, "every fact that passes the filter, "+bank, e.passing(bank, everything), mine)
	checkLinks(e.t, "Links("+bank+", every id)", e.links(bank, append(slices.Clone(mine), other.own...)), b.batch.Links)
	checkIDSet(e.t, "EntityRefs("+bank+", every id)", refKeys(e.refs(bank, append(slices.Clone(mine), other.own...)...)), refKeys(b.batch.Refs))
	checkEntities(e, "EntitiesByName("+bank+", melanie)", e.entitiesByName(bank, "melanie"), b.ent)
	checkEntities(e, "EntitiesByName("+bank+", own alias)", e.entitiesByName(bank, memory.NormalizeName(b.alias)), b.ent)
	checkEntities(e, "EntitiesByName("+bank+", "+other.bank+"'s alias)", e.entitiesByName(bank, memory.NormalizeName(other.alias)))
	checkEntities(e, "Entities("+bank+")", e.entities(bank, b.ent.ID), b.ent)
	checkIDs(e.t, "FactsByEntity("+bank+")", e.factsByEntity(bank, b.ent.ID, 10), []string{"common", b.own[1], b.own[0]})
	checkDiff(e.t, "DocumentByItem("+bank+")", e.document(bank, memory.SourceChat, "shared"), b.batch.Document)
	if got := e.chunks(bank, "doc"); len(got) != 3 || got[0].BankID != bank {
		e.t.Errorf("Chunks(%s, doc): got %d chunks, want 3 of bank %s", bank, len(got), bank)
	}
	if got := e.stats(bank); got != b.stats {
		e.t.Errorf("Stats(%s): got %+v, want %+v", bank, got, b.stats)
	}
}

// Two banks holding the same content under the same ids see nothing of
// each other; RecordAccess in one leaves the other alone. Seq counts per
// bank and content-hash dedup is per bank.
func testIsolationReads(e *env) {
	e.newBank("a")
	e.newBank("b")
	a := newIsolated("a", 5, "Mel")
	b := newIsolated("b", 1, "Mellie")
	e.writeNew(a.batch)
	e.writeNew(b.batch) // same source, item and hash as a's: not a duplicate
	checkSeesOnly(e, a, b)
	checkSeesOnly(e, b, a)

	if err := e.s.RecordAccess(e.ctx, "a", []string{"common", "b-1"}, hours(1)); err != nil {
		e.t.Fatalf("RecordAccess(a): %v", err)
	}
	if got := e.fact("b", "common"); got.AccessCount != 0 || !got.LastAccessed.IsZero() {
		e.t.Errorf("fact common of b after RecordAccess in a: got AccessCount %d, LastAccessed %v, want 0, zero", got.AccessCount, got.LastAccessed)
	}
	if got := e.fact("b", "b-1"); got.AccessCount != 0 {
		e.t.Errorf("fact b-1 of b after RecordAccess(a, b-1): got AccessCount %d, want 0", got.AccessCount)
	}
	// Lifecycle changes are per bank too.
	w := NewTestBatch("a", "doc2", "Melanie cancelled the meeting")
	w.Reinforce = []string{"common"}
	w.Supersede = []memory.Supersession{{FactID: "a-3", SupersededBy: "doc2-f0", ValidTo: testTime, ExpiredAt: testTime}}
	e.writeNew(w)
	if got := e.fact("b", "common"); got.ReinforcementCount != 0 {
		e.t.Errorf("fact common of b after reinforcing a's: got ReinforcementCount %d, want 0", got.ReinforcementCount)
	}
	checkSeesOnly(e, b, a)
}

// Deleting a bank leaves every other bank intact.
func testIsolationDeleteBank(e *env) {
	e.newBank("a")
	e.newBank("b")
	a := newIsolated("a", 5, "Mel")
	b := newIsolated("b", 1, "Mellie")
	e.writeNew(a.batch)
	e.writeNew(b.batch)
	if err := e.s.DeleteBank(e.ctx, "a"); err != nil {
		e.t.Fatalf("DeleteBank(a): %v", err)
	}
	checkSeesOnly(e, b, a)
	if got := e.bank("b"); got.Embedder != TestEmbedder || got.Dimension != TestDimension {
		e.t.Errorf("Bank(b) after DeleteBank(a): got Embedder %q, Dimension %d, want %q, %d", got.Embedder, got.Dimension, TestEmbedder, TestDimension)
	}
	// b keeps working.
	e.writeNew(NewTestBatch("b", "doc2", "Melanie booked a hut in the Alps"))
	checkIDSet(e.t, "SearchText(b, alps)", hitIDs(e.searchText("b", 10, memory.Filter{}, "alps")), []string{"b-1", "doc2-f0"})
}
