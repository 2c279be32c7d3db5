package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// roundTrip is a batch using every part of memory.WriteBatch, with the
// values a read must return.
type roundTrip struct {
	batch    *memory.WriteBatch
	facts    []*memory.Fact // f1, f2, f3
	entities []memory.Entity
}

func newRoundTrip(bank string) roundTrip {
	const doc = "doc-1"
	f1 := fullFact(bank, doc, "f1", "Melanie moved to Paris in the spring", 0)
	f2 := fullFact(bank, doc, "f2", "Melanie plays the cello on weekends", 1)
	f2.Kind, f2.Category, f2.Sensitivity = memory.KindWorld, memory.CategoryPersonal, memory.SensitivityOpen
	f3 := fullFact(bank, doc, "f3", "The Paris trip is planned for June", 2)
	f3.Tags = nil
	f3.Status = "" // stored as active
	f1.Seq = 999   // Seq is the store's to assign
	mel := memory.Entity{
		ID: memory.EntityID("Melanie Smith"), BankID: bank,
		Name: "Melanie Smith", Type: memory.EntityPerson, Aliases: []string{"Mel"},
		FirstSeen: hours(-48), LastSeen: hours(-24), MentionCount: 2, EpisodeCount: 1,
	}
	paris := memory.Entity{
		ID: memory.EntityID("Paris"), BankID: bank,
		Name: "Paris", Type: memory.EntityPlace,
		FirstSeen: hours(-48), LastSeen: hours(-46), MentionCount: 2, EpisodeCount: 1,
	}
	parisTopic := memory.Entity{ // same name, another id: another entity
		ID: memory.EntityID("Paris") + "_topic", BankID: bank,
		Name: "Paris", Type: memory.EntityTopic, Aliases: []string{"City of Light"},
		FirstSeen: hours(-40), LastSeen: hours(-40), MentionCount: 1, EpisodeCount: 1,
	}
	content := strings.Join([]string{f1.Text, f2.Text, f3.Text}, "\n")
	w := &memory.WriteBatch{
		BankID: bank,
		Document: &memory.Document{
			ID: doc, BankID: bank, Source: memory.SourceChat, ItemID: "session-1",
			ContentHash: contentHash(content), Content: content,
			Metadata:   map[string]string{"lang": "en", "channel": "dm"},
			Tags:       []string{"trip", "family"},
			OccurredAt: hours(-48), CreatedAt: hours(1),
		},
		Facts: []*memory.Fact{f1, f2, f3},
		Entities: []memory.EntityUpsert{
			{Entity: entityInput(mel), Mentions: 2, Episodes: 1},
			{Entity: entityInput(paris), Mentions: 2, Episodes: 1},
			{Entity: entityInput(parisTopic), Mentions: 1, Episodes: 1},
		},
		Refs: []memory.EntityRef{
			{FactID: "f1", EntityID: mel.ID}, {FactID: "f1", EntityID: paris.ID},
			{FactID: "f2", EntityID: mel.ID}, {FactID: "f3", EntityID: parisTopic.ID},
		},
		Cooccurrences: []memory.Cooccurrence{{EntityA: min(mel.ID, paris.ID), EntityB: max(mel.ID, paris.ID), Count: 1}},
		Links: []memory.Link{
			{BankID: bank, FromID: "f1", ToID: "f2", Kind: memory.LinkTemporal, Weight: 1},
			{BankID: bank, FromID: "f2", ToID: "f3", Kind: memory.LinkTemporal, Weight: 1},
			{BankID: bank, FromID: "f1", ToID: "f3", Kind: memory.LinkSemantic, Weight: 0.8125},
			{BankID: bank, FromID: "f1", ToID: "f2", Kind: memory.LinkEntity, Weight: 0.5, EntityID: mel.ID},
			{BankID: bank, FromID: "f3", ToID: "f1", Kind: memory.LinkCauses, Weight: 0.9},
		},
		Relations: []*memory.Relation{{
			ID: "r1", BankID: bank, SubjectID: mel.ID, Predicate: "lives_in", ObjectID: paris.ID,
			Confidence: 0.9, FactIDs: []string{"f1"}, ValidFrom: hours(-48), CreatedAt: testTime,
		}},
		Watermark: &memory.Watermark{BankID: bank, Source: memory.SourceChat, LastItem: "session-1", UpdatedAt: testTime},
	}
	for i, f := range w.Facts {
		w.Chunks = append(w.Chunks, &memory.Chunk{ID: f.ChunkID, BankID: bank, DocumentID: doc, Index: i, Text: f.Text})
	}
	// Chunks in no particular order: Chunks must return them by index.
	w.Chunks[0], w.Chunks[2] = w.Chunks[2], w.Chunks[0]
	facts := make([]*memory.Fact, len(w.Facts))
	for i, f := range w.Facts {
		c := *f
		facts[i] = &c
	}
	return roundTrip{batch: w, facts: facts, entities: []memory.Entity{mel, paris, parisTopic}}
}

// entityInput is what an upsert carries of an entity: the fields
// memory.EntityUpsert documents, counts going in Mentions and Episodes.
func entityInput(x memory.Entity) memory.Entity {
	return memory.Entity{ID: x.ID, Name: x.Name, Type: x.Type, Aliases: slices.Clone(x.Aliases), FirstSeen: x.FirstSeen, LastSeen: x.LastSeen}
}

// checkEntity compares an entity read back with the expected one on the
// fields a write sets. Salience, Tier and Contradicted belong to the
// lifecycle pass and are not compared. Aliases compare as a set with no
// duplicates; the store may list the canonical name among them.
func checkEntity(e *env, what string, got *memory.Entity, want memory.Entity) {
	e.t.Helper()
	what += ": entity " + want.Name + " (" + want.ID + ")"
	checkDiff(e.t, what, got, &want, "Aliases", "Salience", "Tier", "Contradicted")
	var aliases []string
	for _, a := range got.Aliases {
		if memory.NormalizeName(a) != memory.NormalizeName(got.Name) {
			aliases = append(aliases, a)
		}
	}
	sorted := slices.Clone(aliases)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != len(aliases) {
		e.t.Errorf("%s: got aliases %q, want no duplicates", what, got.Aliases)
	}
	if !sameSet(aliases, want.Aliases) {
		e.t.Errorf("%s: got aliases %q, want %q (in any order, the name allowed too)", what, got.Aliases, want.Aliases)
	}
}

func checkEntities(e *env, what string, got []*memory.Entity, want ...memory.Entity) {
	e.t.Helper()
	var wantIDs []string
	for _, x := range want {
		wantIDs = append(wantIDs, x.ID)
	}
	checkIDSet(e.t, what, entityIDs(got), wantIDs)
	for _, g := range got {
		for _, w := range want {
			if g.ID == w.ID {
				checkEntity(e, what, g, w)
			}
		}
	}
}

func linkKey(l memory.Link) string {
	return fmt.Sprintf("%s>%s:%s[%s]=%g@%s", l.FromID, l.ToID, l.Kind, l.EntityID, l.Weight, l.BankID)
}

// checkLinks compares links in any order, on every field.
func checkLinks(t *testing.T, what string, got, want []memory.Link) {
	t.Helper()
	var g, w []string
	for _, l := range got {
		g = append(g, linkKey(l))
	}
	for _, l := range want {
		w = append(w, linkKey(l))
	}
	if !sameSet(g, w) {
		slices.Sort(g)
		slices.Sort(w)
		t.Errorf("%s: got %q, want %q (in any order)", what, g, w)
	}
}

func refKeys(rs []memory.EntityRef) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.FactID+"→"+r.EntityID)
	}
	return out
}

// Everything a batch writes reads back exactly through every read method.
func testWriteRoundTrip(e *env) {
	e.newBank("b")
	rt := newRoundTrip("b")
	w := rt.batch
	f1, f2, f3 := rt.facts[0], rt.facts[1], rt.facts[2]
	mel, paris, parisTopic := rt.entities[0], rt.entities[1], rt.entities[2]

	res := e.write(w)
	if got, want := *res, (memory.WriteResult{DocumentID: "doc-1", Facts: 3}); got != want {
		e.t.Errorf("Write: got %+v, want %+v", got, want)
	}

	got := e.facts("b", "f3", "f1", "missing", "f2")
	checkIDs(e.t, "Facts(f3, f1, missing, f2)", factIDs(got), []string{"f3", "f1", "f2"})
	if len(got) == 3 {
		checkFact(e.t, got[0], f3)
		checkFact(e.t, got[1], f1)
		checkFact(e.t, got[2], f2)
		for i, want := range []int64{3, 1, 2} {
			if got[i].Seq != want {
				e.t.Errorf("fact %s: got Seq %d, want %d (batch order, from 1)", got[i].ID, got[i].Seq, want)
			}
		}
	}
	if got := e.facts("b"); len(got) != 0 {
		e.t.Errorf("Facts(no ids): got %q, want none", factIDs(got))
	}

	checkDiff(e.t, "DocumentByItem(chat, session-1)", e.document("b", memory.SourceChat, "session-1"), w.Document)
	e.noDocument("b", memory.SourceNote, "session-1")
	e.noDocument("b", memory.SourceChat, "session-2")

	cs := e.chunks("b", "doc-1")
	if len(cs) != 3 {
		e.t.Fatalf("Chunks(doc-1): got %d chunks, want 3", len(cs))
	}
	for i, c := range cs {
		want := &memory.Chunk{ID: memory.ChunkID("b", "doc-1", i), BankID: "b", DocumentID: "doc-1", Index: i, Text: rt.facts[i].Text}
		checkDiff(e.t, fmt.Sprintf("Chunks(doc-1)[%d]", i), c, want)
	}
	if got := e.chunks("b", "no-such-doc"); len(got) != 0 {
		e.t.Errorf("Chunks(no-such-doc): got %d chunks, want none", len(got))
	}

	links := w.Links
	checkLinks(e.t, "Links(f1)", e.links("b", []string{"f1"}), []memory.Link{links[0], links[2], links[3]})
	checkLinks(e.t, "Links(f1, f2; temporal)", e.links("b", []string{"f1", "f2"}, memory.LinkTemporal), []memory.Link{links[0], links[1]})
	checkLinks(e.t, "Links(f1; semantic, entity)", e.links("b", []string{"f1"}, memory.LinkSemantic, memory.LinkEntity), []memory.Link{links[2], links[3]})
	checkLinks(e.t, "Links(f1; causes)", e.links("b", []string{"f1"}, memory.LinkCauses), nil)
	checkLinks(e.t, "Links(f3)", e.links("b", []string{"f3"}), []memory.Link{links[4]})
	checkLinks(e.t, "Links(f1, f2, f3)", e.links("b", []string{"f1", "f2", "f3"}), links)
	checkLinks(e.t, "Links(missing)", e.links("b", []string{"missing"}), nil)

	checkIDSet(e.t, "EntityRefs(f1, f2)", refKeys(e.refs("b", "f1", "f2")), refKeys(w.Refs[:3]))
	checkIDSet(e.t, "EntityRefs(f3, missing)", refKeys(e.refs("b", "f3", "missing")), refKeys(w.Refs[3:]))

	checkEntities(e, "Entities(mel, paris topic, missing)", e.entities("b", mel.ID, parisTopic.ID, "ent_missing"), mel, parisTopic)
	checkEntities(e, "Entities(paris place)", e.entities("b", paris.ID), paris)
	checkEntities(e, `EntitiesByName("melanie smith")`, e.entitiesByName("b", "melanie smith"), mel)
	checkEntities(e, `EntitiesByName("mel")`, e.entitiesByName("b", "mel"), mel)
	checkEntities(e, `EntitiesByName("mel", "melanie smith")`, e.entitiesByName("b", "mel", "melanie smith"), mel)
	checkEntities(e, `EntitiesByName("paris")`, e.entitiesByName("b", "paris"), paris, parisTopic)
	checkEntities(e, `EntitiesByName("city of light")`, e.entitiesByName("b", memory.NormalizeName("City of Light")), parisTopic)
	checkEntities(e, `EntitiesByName("melanie", "nobody")`, e.entitiesByName("b", "melanie", "nobody"))

	checkIDs(e.t, "FactsByEntity(mel, 10)", e.factsByEntity("b", mel.ID, 10), []string{"f2", "f1"})
	checkIDs(e.t, "FactsByEntity(mel, 1)", e.factsByEntity("b", mel.ID, 1), []string{"f2"})
	checkIDs(e.t, "FactsByEntity(paris topic, 10)", e.factsByEntity("b", parisTopic.ID, 10), []string{"f3"})
	checkIDs(e.t, "FactsByEntity(missing, 10)", e.factsByEntity("b", "ent_missing", 10), nil)

	want := memory.Stats{Documents: 1, Chunks: 3, Facts: 3, Active: 3, Entities: 3, Relations: 1, Links: 5}
	if got := e.stats("b"); got != want {
		e.t.Errorf("Stats: got %+v, want %+v", got, want)
	}
}

// Zero times mean "unknown" or "open" and read back as zero: the store
// invents no time.
func testWriteZeroTimes(e *env) {
	e.newBank("b")
	w := NewTestBatch("b", "doc", "Melanie has a sister")
	w.Document.OccurredAt, w.Document.CreatedAt = zeroTime, zeroTime
	f := w.Facts[0]
	f.MentionedAt, f.CreatedAt = zeroTime, zeroTime
	ent := memory.Entity{ID: memory.EntityID("Melanie"), BankID: "b", Name: "Melanie", Type: memory.EntityPerson, MentionCount: 1}
	w.Entities = []memory.EntityUpsert{{Entity: entityInput(ent), Mentions: 1}}
	w.Relations = []*memory.Relation{{ID: "r1", BankID: "b", SubjectID: ent.ID, Predicate: "has_sister", ObjectID: ent.ID, Confidence: 1}}
	e.writeNew(w)
	want := *f
	checkFact(e.t, e.fact("b", f.ID), &want)
	checkDiff(e.t, "DocumentByItem", e.document("b", memory.SourceNote, "doc"), w.Document)
	checkEntity(e, "Entities", e.entity("b", ent.ID), ent)

	// A partly known fact keeps exactly what it was given.
	w2 := NewTestBatch("b", "doc2", "Melanie's sister lives in Oslo")
	f2 := w2.Facts[0]
	f2.MentionedAt, f2.CreatedAt = zeroTime, zeroTime
	f2.OccurredEnd, f2.ValidTo, f2.ExpiresAt = hours(5), hours(6), hours(7)
	e.writeNew(w2)
	checkFact(e.t, e.fact("b", f2.ID), f2)
}

// Seq is the bank's ingestion order: 1..n for the first batch, then
// increasing in batch order across batches; what the caller puts in Seq
// is ignored.
func testWriteSeq(e *env) {
	e.newBank("b")
	var last int64
	for d := range 4 {
		w := NewTestBatch("b", fmt.Sprintf("doc%d", d), "one", "two", "three")
		w.Facts[0].Seq, w.Facts[1].Seq = 500, 7
		e.writeNew(w)
		got := e.facts("b", batchIDs(w)...)
		if len(got) != 3 {
			e.t.Fatalf("Facts(doc%d): got %d facts, want 3", d, len(got))
		}
		for i, f := range got {
			if d == 0 && f.Seq != int64(i+1) {
				e.t.Errorf("first batch, fact %s: got Seq %d, want %d", f.ID, f.Seq, i+1)
			}
			if f.Seq <= last {
				e.t.Errorf("batch %d, fact %s: got Seq %d, want above %d (the previous fact's)", d, f.ID, f.Seq, last)
			}
			last = f.Seq
		}
	}
}

// A bank with no embedder recorded takes the dimension of the first
// vectors written to it; from then on other dimensions are refused.
func testWriteRecordsDimension(e *env) {
	if err := e.s.CreateBank(e.ctx, &memory.Bank{ID: "b", Name: "b", CreatedAt: testTime}); err != nil {
		e.t.Fatalf("CreateBank: %v", err)
	}
	mixed := NewTestBatch("b", "mixed", "first text", "second text")
	mixed.Facts[1].Embedding = TestVector("second text", 4)
	_, err := e.s.Write(e.ctx, mixed)
	wantCode(e.t, "Write(embeddings of dimensions 8 and 4)", err, memory.EINVALID, memory.ECONFLICT)
	if b := e.bank("b"); b.Dimension != 0 {
		e.t.Errorf("Bank(b).Dimension after a refused write: got %d, want 0", b.Dimension)
	}

	e.writeNew(NewTestBatch("b", "doc", "first text", "second text"))
	if b := e.bank("b"); b.Dimension != TestDimension || b.Embedder != "" {
		e.t.Errorf("Bank(b) after the first write: got Embedder %q, Dimension %d, want \"\", %d", b.Embedder, b.Dimension, TestDimension)
	}
	other := NewTestBatch("b", "doc4", "third text")
	other.Facts[0].Embedding = TestVector("third text", 4)
	_, err = e.s.Write(e.ctx, other)
	wantCode(e.t, "Write(embedding of dimension 4 to a bank of dimension 8)", err, memory.EINVALID, memory.ECONFLICT)
	wantCode(e.t, "SetBankEmbedder(dimension 4)", e.s.SetBankEmbedder(e.ctx, "b", "hash-v1", 4), memory.ECONFLICT)
	if err := e.s.SetBankEmbedder(e.ctx, "b", "hash-v1", TestDimension); err != nil {
		e.t.Errorf("SetBankEmbedder(the recorded dimension): got %v, want success", err)
	}
	if b := e.bank("b"); b.Dimension != TestDimension || b.Embedder != "hash-v1" {
		e.t.Errorf("Bank(b): got Embedder %q, Dimension %d, want hash-v1, %d", b.Embedder, b.Dimension, TestDimension)
	}
}

// Upserting an entity adds its counts, widens its seen range (a zero
// time widening nothing), merges its aliases and keeps its first name:
// the store agrees with memory.MergeEntity after every upsert.
func testWriteEntityUpsert(e *env) {
	e.newBank("b")
	id := memory.EntityID("Melanie")
	upserts := []memory.EntityUpsert{
		{Entity: memory.Entity{ID: id, Name: "Melanie", Type: memory.EntityPerson, Aliases: []string{"Mel"}, FirstSeen: hours(5), LastSeen: hours(10)}, Mentions: 2, Episodes: 1},
		{Entity: memory.Entity{ID: id, Name: "melanie", Type: memory.EntityPerson, Aliases: []string{"Mel", "Mels", "Melanie S."}, FirstSeen: hours(3), LastSeen: hours(8)}, Mentions: 3, Episodes: 1},
		{Entity: memory.Entity{ID: id, Name: "MELANIE", Type: memory.EntityPerson, FirstSeen: hours(6), LastSeen: hours(12)}, Mentions: 1, Episodes: 1},
		{Entity: memory.Entity{ID: id, Name: "Melanie", Type: memory.EntityPerson, Aliases: []string{"Mels"}}, Mentions: 1},
	}
	want := memory.Entity{ID: id, BankID: "b", Name: "Melanie", Type: memory.EntityPerson}
	wantAliases := map[int][]string{0: {"Mel"}, 1: {"Mel", "Mels", "Melanie S."}}
	for i, u := range upserts {
		w := NewTestBatch("b", fmt.Sprintf("doc%d", i), fmt.Sprintf("Melanie said thing %d", i))
		w.Entities = []memory.EntityUpsert{u}
		w.Refs = []memory.EntityRef{{FactID: w.Facts[0].ID, EntityID: id}}
		e.writeNew(w)

		memory.MergeEntity(&want, u)
		if a, ok := wantAliases[i]; ok && !sameSet(want.Aliases, a) {
			e.t.Fatalf("memory.MergeEntity after upsert %d: aliases %q, want %q", i+1, want.Aliases, a)
		}
		checkEntity(e, fmt.Sprintf("after upsert %d", i+1), e.entity("b", id), want)
	}
	if want.MentionCount != 7 || want.EpisodeCount != 3 || !want.FirstSeen.Equal(hours(3)) || !want.LastSeen.Equal(hours(12)) {
		e.t.Errorf("memory.MergeEntity after 4 upserts: counts %d, %d, seen %v to %v; want 7, 3, 3h to 12h",
			want.MentionCount, want.EpisodeCount, want.FirstSeen, want.LastSeen)
	}
	for _, name := range []string{"melanie", "mel", "mels", "melanie s"} {
		checkIDs(e.t, "EntitiesByName("+name+")", entityIDs(e.entitiesByName("b", name)), []string{id})
	}
	checkIDs(e.t, "FactsByEntity", e.factsByEntity("b", id, 10), []string{"doc3-f0", "doc2-f0", "doc1-f0", "doc0-f0"})

	// Two upserts of one entity in one batch both count.
	w := NewTestBatch("b", "doc-twice", "Melanie and Mel are one person")
	w.Entities = []memory.EntityUpsert{
		{Entity: memory.Entity{ID: id, Name: "Melanie", Type: memory.EntityPerson}, Mentions: 1},
		{Entity: memory.Entity{ID: id, Name: "Mel", Type: memory.EntityPerson, Aliases: []string{"Mellie"}}, Mentions: 1, Episodes: 1},
	}
	e.writeNew(w)
	sum := w.Entities[0]
	sum.Add(w.Entities[1])
	memory.MergeEntity(&want, sum)
	if want.MentionCount != 9 || want.EpisodeCount != 4 || !sameSet(want.Aliases, []string{"Mel", "Mels", "Melanie S.", "Mellie"}) {
		e.t.Errorf("memory.MergeEntity of the sum of two upserts: counts %d, %d, aliases %q; want 9, 4 and Mellie added",
			want.MentionCount, want.EpisodeCount, want.Aliases)
	}
	checkEntity(e, "after two upserts in one batch", e.entity("b", id), want)
	if got := e.stats("b").Entities; got != 1 {
		e.t.Errorf("Stats.Entities: got %d, want 1", got)
	}

	// A thing takes the first type a later upsert knows, and keeps it.
	berlin := memory.EntityID("Berlin")
	types := []memory.EntityType{memory.EntityThing, memory.EntityThing, memory.EntityPlace, memory.EntityPerson, memory.EntityThing}
	bw := memory.Entity{ID: berlin, BankID: "b", Name: "Berlin", Type: types[0]}
	for i, typ := range types {
		w := NewTestBatch("b", fmt.Sprintf("berlin%d", i), "Berlin again")
		u := memory.EntityUpsert{Entity: memory.Entity{ID: berlin, Name: "Berlin", Type: typ}, Mentions: 1, Episodes: 1}
		w.Entities = []memory.EntityUpsert{u}
		e.writeNew(w)
		memory.MergeEntity(&bw, u)
		checkEntity(e, fmt.Sprintf("Berlin after upsert %d (%s)", i+1, typ), e.entity("b", berlin), bw)
	}
	if bw.Type != memory.EntityPlace {
		e.t.Errorf("memory.MergeEntity: Berlin typed thing, thing, place, person, thing is a %s, want a place", bw.Type)
	}
}

// A relation written again under its id is updated, not duplicated: that
// is how a contradiction closes an edge (ValidTo, ExpiredAt).
func testWriteRelationUpsert(e *env) {
	e.newBank("b")
	mel := memory.EntityID("Melanie")
	acme := memory.EntityID("Acme")
	globex := memory.EntityID("Globex")
	r1 := &memory.Relation{ID: "r1", BankID: "b", SubjectID: mel, Predicate: "works_at", ObjectID: acme, Confidence: 0.9, FactIDs: []string{"doc1-f0"}, ValidFrom: hours(-100), CreatedAt: hours(-100)}
	w1 := NewTestBatch("b", "doc1", "Melanie works at Acme")
	w1.Relations = []*memory.Relation{r1}
	e.writeNew(w1)

	closed := *r1
	closed.ValidTo, closed.ExpiredAt = hours(-1), testTime
	r2 := &memory.Relation{ID: "r2", BankID: "b", SubjectID: mel, Predicate: "works_at", ObjectID: globex, Confidence: 0.8, FactIDs: []string{"doc2-f0"}, ValidFrom: hours(-1), CreatedAt: testTime}
	w2 := NewTestBatch("b", "doc2", "Melanie now works at Globex")
	w2.Relations = []*memory.Relation{&closed, r2}
	e.writeNew(w2)
	if got := e.stats("b").Relations; got != 2 {
		e.t.Errorf("Stats.Relations after closing r1 and opening r2: got %d, want 2", got)
	}
}
