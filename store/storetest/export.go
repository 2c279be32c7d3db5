package storetest

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// The Export group checks memory.Exporter and memory.Importer, optional
// capabilities: a known bank exports to the golden file byte for byte
// (testdata/export-v4.jsonl, the format's reference: a renamed field
// fails here), and an export imported into a fresh store exports the
// same again and answers as the original did.

// ExportGolden is the export of the bank WriteExportBank builds, as JSON
// lines (mnemo export's encoding): what every store's export must be.
//
//go:embed testdata/export-v4.jsonl
var ExportGolden []byte

// exportStore returns the store as an Exporter and Importer, or skips the
// test.
func (e *env) exportStore() (memory.Exporter, memory.Importer) {
	e.t.Helper()
	x, ok := e.s.(memory.Exporter)
	im, ok2 := e.s.(memory.Importer)
	if !ok || !ok2 {
		e.t.Skip("the store cannot export and import banks (memory.Exporter, memory.Importer)")
	}
	return x, im
}

// WriteExportBank builds the bank "x" of the golden export in s through
// the store's own calls, at fixed times: every record kind, every field
// of a fact, an entity with aliases and a name embedding, a superseded
// and a reinforced fact, accesses, an observation, a watermark, a
// session with buffered messages (imported: the store stamps appended
// messages with its own clock), a default and a custom block, one of
// them read, a directive with scopes and one without, and a pinned
// question answered and one not. s must implement memory.Importer,
// memory.ObservationStore, memory.Directives and memory.StandingAnswers.
func WriteExportBank(ctx context.Context, t testing.TB, s memory.Store) {
	t.Helper()
	fail := func(what string, err error) {
		if err != nil {
			t.Fatalf("WriteExportBank: %s: %v", what, err)
		}
	}
	fail("CreateBank", s.CreateBank(ctx, &memory.Bank{ID: "x", Name: "x", Settings: memory.BankSettings{Empathy: 2, Mission: "remember <kindly> & well"}, CreatedAt: testTime}))
	fail("SetBankEmbedder", s.SetBankEmbedder(ctx, "x", TestEmbedder, TestDimension))

	w := NewTestBatch("x", "d1", "Melanie adopted a puppy named Biscuit.", "Caroline works at Acme with Melanie.")
	w.Document.Source, w.Document.Metadata, w.Document.Tags = memory.SourceChat, map[string]string{"b": "2", "a": "1"}, []string{"family"}
	w.Facts = append(w.Facts, fullFact("x", "d1", "d1-full", "Melanie prefers green tea in the morning.", 2))
	w.Chunks = append(w.Chunks, &memory.Chunk{ID: memory.ChunkID("x", "d1", 2), BankID: "x", DocumentID: "d1", Index: 2, Text: "Melanie prefers green tea in the morning."})
	mel := memory.EntityID("Melanie")
	acme := memory.EntityID("Acme")
	w.Entities = []memory.EntityUpsert{
		{Entity: memory.Entity{ID: mel, Name: "Melanie", Type: memory.EntityPerson, Aliases: []string{"Mel", "Melly"}, FirstSeen: hours(-48), LastSeen: hours(-1)},
			Embedding: TestVector("Melanie", TestDimension), Mentions: 3, Episodes: 1},
		{Entity: memory.Entity{ID: acme, Name: "Acme", Type: memory.EntityOrganization, FirstSeen: hours(-2), LastSeen: hours(-2)}, Mentions: 1, Episodes: 1},
	}
	f0, f1, f2 := w.Facts[0].ID, w.Facts[1].ID, w.Facts[2].ID
	w.Refs = []memory.EntityRef{{FactID: f0, EntityID: mel}, {FactID: f1, EntityID: mel}, {FactID: f1, EntityID: acme}, {FactID: f2, EntityID: mel}}
	w.Cooccurrences = []memory.Cooccurrence{{EntityA: min(mel, acme), EntityB: max(mel, acme), Count: 1}}
	w.Links = []memory.Link{
		{BankID: "x", FromID: f0, ToID: f1, Kind: memory.LinkTemporal, Weight: 1},
		{BankID: "x", FromID: f1, ToID: f2, Kind: memory.LinkEntity, EntityID: mel, Weight: 0.5},
		{BankID: "x", FromID: f2, ToID: f0, Kind: memory.LinkCauses, Weight: 0.25},
	}
	w.Relations = []*memory.Relation{{ID: "r1", BankID: "x", SubjectID: mel, Predicate: "works_at", ObjectID: acme, Confidence: 0.75,
		FactIDs: []string{f1}, ValidFrom: hours(-3), CreatedAt: hours(-2)}}
	w.Watermark = &memory.Watermark{BankID: "x", Source: "folder/chat.jsonl", LastItem: "line-9", LastError: "line 4: bad JSON", UpdatedAt: hours(-1)}
	_, err := s.Write(ctx, w)
	fail("Write d1", err)

	w2 := NewTestBatch("x", "d2", "Melanie now drinks coffee.")
	w2.Supersede = []memory.Supersession{{FactID: f2, SupersededBy: w2.Facts[0].ID, ValidTo: hours(1), ExpiredAt: hours(2)}}
	w2.Reinforce = []string{f0}
	w2.Contradicted = []string{acme}
	_, err = s.Write(ctx, w2)
	fail("Write d2", err)
	fail("RecordAccess", s.RecordAccess(ctx, "x", []string{f0, f1}, hours(3)))

	os, ok := s.(memory.ObservationStore)
	if !ok {
		t.Fatalf("WriteExportBank: the store keeps no observations")
	}
	o := testObservation("o1", "Melanie's drinks change with the seasons", f2, w2.Facts[0].ID)
	o.History = []memory.ObservationChange{{Previous: "Melanie drinks tea", ChangedAt: hours(1), Reason: "coffee now"}}
	o.AccessCount, o.LastAccessed = 1, hours(4)
	fail("PutObservations", os.PutObservations(ctx, "x", []*memory.Observation{o}))

	im, ok := s.(memory.Importer)
	if !ok {
		t.Fatalf("WriteExportBank: the store cannot import")
	}
	fail("Import session", im.Import(ctx, "x", []*memory.ExportRecord{{Kind: memory.RecordSession, Session: &memory.ExportSession{
		Session: "chat-1", NextSeq: 5, Messages: []memory.ExportSessionMessage{
			{Seq: 3, Role: memory.RoleUser, MessageID: "m3", Speaker: "Melanie", Text: "I start a new job on Monday.", At: hours(5), Received: hours(5)},
			{Seq: 4, Role: memory.RoleAssistant, Text: "Congratulations!", Received: hours(5.5)},
		}}}, {Kind: memory.RecordSession, Session: &memory.ExportSession{Session: "chat-0", NextSeq: 7}}}))

	_, err = s.EditBlock(ctx, "x", memory.BlockPersona, memory.BlockEdit{Mode: memory.BlockWrite, Value: "Warm, brief & <precise>.", At: hours(6)})
	fail("EditBlock persona", err)
	_, err = s.EditBlock(ctx, "x", "trip_plan", memory.BlockEdit{Mode: memory.BlockAppend, Value: "Lyon in May.", Label: "The trip", MaxChars: 300, At: hours(6)})
	fail("EditBlock trip_plan", err)
	_, err = s.ReadBlock(ctx, "x", "trip_plan", hours(7))
	fail("ReadBlock trip_plan", err)

	ds, ok := s.(memory.Directives)
	sa, ok2 := s.(memory.StandingAnswers)
	if !ok || !ok2 {
		t.Fatalf("WriteExportBank: the store keeps no directives or standing questions")
	}
	fail("CreateDirective d1", ds.CreateDirective(ctx, &memory.Directive{ID: "dir_1", BankID: "x", Text: "Answer in British English.", CreatedAt: hours(8), UpdatedAt: hours(8)}))
	fail("CreateDirective d2", ds.CreateDirective(ctx, &memory.Directive{ID: "dir_2", BankID: "x", Text: "Never push to main on Fridays.", Scopes: []string{"mnemo", "release"}, CreatedAt: hours(8), UpdatedAt: hours(9)}))
	fail("PinQuestion q1", sa.PinQuestion(ctx, "x", &memory.StandingQuestion{ID: "sq_1", Question: "What does Melanie drink in the morning?", CreatedAt: hours(9)}))
	fail("PinQuestion q2", sa.PinQuestion(ctx, "x", &memory.StandingQuestion{ID: "sq_2", Question: "Where does Caroline work?", CreatedAt: hours(9)}))
	fail("SetStandingAnswer q1", sa.SetStandingAnswer(ctx, "x", "sq_1", "Green tea.", []string{"d1-full"}, hours(10)))
}

// ExportLines exports bank from x as mnemo export writes it: one JSON
// record a line, HTML characters unescaped.
func ExportLines(ctx context.Context, x memory.Exporter, bank string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := memory.ExportWithTrailer(ctx, x, bank, func(rec *memory.ExportRecord) error { return enc.Encode(rec) })
	return b.Bytes(), err
}

// importLines imports the records of an export (but its header) into the
// existing bank, in calls of at most group records.
func (e *env) importLines(s memory.Store, bank string, lines []byte, group int) error {
	e.t.Helper()
	var recs []*memory.ExportRecord
	for i, line := range bytes.Split(bytes.TrimSpace(lines), []byte("\n")) {
		if i == 0 {
			continue
		}
		rec, err := memory.ReadExportRecord(memory.ExportVersion, line)
		if err != nil {
			e.t.Fatalf("line %d: %v", i+1, err)
		}
		if rec.Kind == memory.RecordTrailer {
			continue
		}
		recs = append(recs, rec)
	}
	im := s.(memory.Importer)
	for len(recs) > 0 {
		n := min(group, len(recs))
		if err := im.Import(e.ctx, bank, recs[:n]); err != nil {
			return err
		}
		recs = recs[n:]
	}
	return nil
}

// freshBank creates bank in s as the header of an export describes it,
// as mnemo import does.
func (e *env) freshBank(s memory.Store, bank string, lines []byte) {
	e.t.Helper()
	_, head, err := memory.ReadExportHeader(bytes.SplitN(lines, []byte("\n"), 2)[0])
	if err != nil {
		e.t.Fatalf("ReadExportHeader: %v", err)
	}
	b := head.Bank.Bank()
	b.ID, b.Name = bank, bank
	if err := s.CreateBank(e.ctx, b); err != nil {
		e.t.Fatalf("CreateBank(%q): %v", bank, err)
	}
	if err := s.SetBankEmbedder(e.ctx, bank, b.Embedder, b.Dimension); err != nil {
		e.t.Fatalf("SetBankEmbedder(%q): %v", bank, err)
	}
}

// The golden bank exports to ExportGolden byte for byte.
func testExportGolden(e *env) {
	x, _ := e.exportStore()
	WriteExportBank(e.ctx, e.t, e.s)
	got, err := ExportLines(e.ctx, x, "x")
	if err != nil {
		e.t.Fatalf("Export: %v", err)
	}
	if d := FirstDiff(ExportGolden, got); d != "" {
		e.t.Errorf("export of the golden bank differs from testdata/export-v4.jsonl (a format change bumps memory.ExportVersion; go test ./store/storetest -update rewrites the file): %s", d)
	}
}

// An export imported into a fresh store, in several calls, exports the
// same again, and the bank answers and goes on as the original.
func testExportRoundTrip(e *env) {
	x, _ := e.exportStore()
	WriteExportBank(e.ctx, e.t, e.s)
	want, err := ExportLines(e.ctx, x, "x")
	if err != nil {
		e.t.Fatalf("Export: %v", err)
	}
	fresh := e.open(e.t)
	e.freshBank(fresh, "x", want)
	if err := e.importLines(fresh, "x", want, 5); err != nil {
		e.t.Fatalf("Import: %v", err)
	}
	got, err := ExportLines(e.ctx, fresh.(memory.Exporter), "x")
	if err != nil {
		e.t.Fatalf("Export of the imported bank: %v", err)
	}
	if d := FirstDiff(want, got); d != "" {
		e.t.Fatalf("export of the imported bank differs: %s", d)
	}
	if got, want := mustStats(e, fresh, "x"), mustStats(e, e.s, "x"); got != want {
		e.t.Errorf("Stats of the imported bank: got %+v, want %+v", got, want)
	}
	hits, err := fresh.SearchText(e.ctx, "x", []string{"puppy"}, 5, memory.Filter{})
	if err != nil || len(hits) != 1 || hits[0].ID != TestFactID("d1", 0) {
		e.t.Errorf("SearchText(puppy) in the imported bank: got %v, %v, want %s", hits, err, TestFactID("d1", 0))
	}
	ents, err := fresh.EntitiesByName(e.ctx, "x", []string{"melly"})
	if err != nil || len(ents) != 1 || ents[0].Name != "Melanie" {
		e.t.Errorf("EntitiesByName(melly) in the imported bank: got %v, %v, want Melanie", ents, err)
	}
	// New writes land after the imported ones: the next Seq, the next
	// session message.
	if _, err := fresh.Write(e.ctx, NewTestBatch("x", "d3", "Anna moved to Lyon.")); err != nil {
		e.t.Fatalf("Write after import: %v", err)
	}
	if f := e.factIn(fresh, "x", TestFactID("d3", 0)); f.Seq != 5 {
		e.t.Errorf("Seq of the first fact written after import: got %d, want 5", f.Seq)
	}
	msgs := []memory.SessionMessage{{Role: memory.RoleUser, Message: memory.Message{Text: "and one more"}}}
	if st, err := fresh.AppendSession(e.ctx, "x", "chat-1", msgs); err != nil || st.Messages != 3 || st.LastSeq != 5 {
		e.t.Errorf("AppendSession after import: got %+v, %v, want 3 messages, the last seq 5", st, err)
	}
}

// Importing a record that is already there is ECONFLICT and changes
// nothing; a header, an empty record or a fact without a Seq is
// EINVALID; an unknown bank is ENOTFOUND.
func testExportErrors(e *env) {
	x, im := e.exportStore()
	WriteExportBank(e.ctx, e.t, e.s)
	want, err := ExportLines(e.ctx, x, "x")
	if err != nil {
		e.t.Fatalf("Export: %v", err)
	}
	wantCode(e.t, "Import(records already in the bank)", e.importLines(e.s, "x", want, 1000), memory.ECONFLICT)
	got, _ := ExportLines(e.ctx, x, "x")
	if d := FirstDiff(want, got); d != "" {
		e.t.Errorf("export after a failed import differs: %s", d)
	}
	e.newBank("y")
	for name, rec := range map[string]*memory.ExportRecord{
		"header":                {Kind: memory.RecordHeader, Version: memory.ExportVersion, Bank: &memory.ExportBank{ID: "y", Name: "y"}},
		"empty fact":            {Kind: memory.RecordFact},
		"unknown kind":          {Kind: "dream"},
		"fact, no seq":          {Kind: memory.RecordFact, Fact: &memory.ExportFact{ID: "f", Text: "t"}},
		"wrong dim":             {Kind: memory.RecordFact, Fact: &memory.ExportFact{ID: "f", Seq: 1, Text: "t", Embedding: []float32{1, 0}}},
		"observation, no text":  {Kind: memory.RecordObservation, Observation: &memory.ExportObservation{ID: "o"}},
		"block, past its limit": {Kind: memory.RecordBlock, Block: &memory.ExportBlock{Name: "b", Value: "too long", MaxChars: 3}},
		"block, bad name":       {Kind: memory.RecordBlock, Block: &memory.ExportBlock{Name: "B b", MaxChars: 3}},
	} {
		wantCode(e.t, fmt.Sprintf("Import(%s)", name), im.Import(e.ctx, "y", []*memory.ExportRecord{rec}), memory.EINVALID)
	}
	if st := e.stats("y"); st.Facts != 0 {
		e.t.Errorf("Stats(y) after failed imports: %+v, want nothing", st)
	}
	wantCode(e.t, "Export(unknown bank)", x.Export(e.ctx, "nope", func(*memory.ExportRecord) error { return nil }), memory.ENOTFOUND)
	wantCode(e.t, "Import(unknown bank)", im.Import(e.ctx, "nope", nil), memory.ENOTFOUND)
}

func mustStats(e *env, s memory.Store, bank string) memory.Stats {
	e.t.Helper()
	st, err := s.Stats(e.ctx, bank)
	if err != nil {
		e.t.Fatalf("Stats(%q): %v", bank, err)
	}
	return *st
}

func (e *env) factIn(s memory.Store, bank, id string) *memory.Fact {
	e.t.Helper()
	fs, err := s.Facts(e.ctx, bank, []string{id})
	if err != nil || len(fs) != 1 {
		e.t.Fatalf("Facts(%q, %q): %v, %v", bank, id, fs, err)
	}
	return fs[0]
}

// FirstDiff describes the first line in which two exports differ, or
// returns "" if they are equal.
func FirstDiff(want, got []byte) string {
	lw, lg := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := range max(len(lw), len(lg)) {
		var w, g []byte
		if i < len(lw) {
			w = lw[i]
		}
		if i < len(lg) {
			g = lg[i]
		}
		if !bytes.Equal(w, g) {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, g, w)
		}
	}
	return ""
}
