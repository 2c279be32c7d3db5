package memory_test

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// exportTags lists every field of the export format as Type.Field and its
// json tag, reached from memory.ExportRecord through the types of package
// memory (time.Time and the like are leaves).
func exportTags(t *testing.T) []string {
	var out []string
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || typ.PkgPath() != reflect.TypeFor[memory.ExportRecord]().PkgPath() || seen[typ] {
			return
		}
		seen[typ] = true
		for f := range typ.Fields() {
			if !f.IsExported() {
				continue
			}
			out = append(out, typ.Name()+"."+f.Name+" "+f.Tag.Get("json"))
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[memory.ExportRecord]())
	return out
}

// The export format's field names are pinned: every field has an
// explicit snake_case json tag, and a tag added, renamed or removed fails
// here. Such a change is a new format version (memory.ExportVersion,
// docs/export.md, the golden file of store/storetest).
func TestExportRecord_Tags(t *testing.T) {
	snake := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*(,omitempty|,omitzero)?$`)
	got := exportTags(t)
	for _, line := range got {
		field, tag, _ := strings.Cut(line, " ")
		if !snake.MatchString(tag) {
			t.Errorf("%s: json tag %q is not an explicit snake_case name", field, tag)
		}
	}
	want := strings.Split(strings.TrimSpace(pinnedExportTags), "\n")
	for i := range want {
		want[i] = strings.TrimSpace(want[i])
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the export format's fields changed (bump memory.ExportVersion and update docs/export.md):\ngot\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if memory.ExportVersion != 4 {
		t.Errorf("ExportVersion = %d: update the pinned tags of the new version here", memory.ExportVersion)
	}
}

const pinnedExportTags = `
	ExportRecord.Kind kind
	ExportRecord.Version version,omitempty
	ExportRecord.Bank bank,omitempty
	ExportBank.ID id
	ExportBank.Name name
	ExportBank.Settings settings
	BankSettings.Skepticism skepticism,omitempty
	BankSettings.Literalism literalism,omitempty
	BankSettings.Empathy empathy,omitempty
	BankSettings.Mission mission,omitempty
	BankSettings.Background background,omitempty
	BankSettings.ShortTermTTL short_term_ttl,omitempty
	BankSettings.ConsolidateInterval consolidate_interval,omitempty
	BankSettings.Consolidation consolidation,omitempty
	BankSettings.SecretAllow secret_allow,omitempty
	BankSettings.Restoring restoring,omitempty
	ExportBank.Embedder embedder,omitempty
	ExportBank.Dimension dimension,omitempty
	ExportBank.CreatedAt created_at,omitzero
	ExportRecord.Document document,omitempty
	ExportDocument.ID id
	ExportDocument.Source source
	ExportDocument.ItemID item_id
	ExportDocument.ContentHash content_hash
	ExportDocument.Content content
	ExportDocument.Metadata metadata,omitempty
	ExportDocument.Tags tags,omitempty
	ExportDocument.OccurredAt occurred_at,omitzero
	ExportDocument.CreatedAt created_at,omitzero
	ExportRecord.Chunk chunk,omitempty
	ExportChunk.ID id
	ExportChunk.DocumentID document_id
	ExportChunk.Index index
	ExportChunk.Text text
	ExportRecord.Fact fact,omitempty
	ExportFact.ID id
	ExportFact.Seq seq
	ExportFact.DocumentID document_id,omitempty
	ExportFact.ChunkID chunk_id,omitempty
	ExportFact.SourceRef source_ref,omitempty
	ExportFact.Text text
	ExportFact.Kind kind
	ExportFact.Category category,omitempty
	ExportFact.Confidence confidence
	ExportFact.Importance importance
	ExportFact.Sensitivity sensitivity
	ExportFact.Speaker speaker,omitempty
	ExportFact.Evidence evidence,omitempty
	ExportFact.Tags tags,omitempty
	ExportFact.OccurredStart occurred_start,omitzero
	ExportFact.OccurredEnd occurred_end,omitzero
	ExportFact.MentionedAt mentioned_at,omitzero
	ExportFact.ValidFrom valid_from,omitzero
	ExportFact.ValidTo valid_to,omitzero
	ExportFact.CreatedAt created_at,omitzero
	ExportFact.ExpiredAt expired_at,omitzero
	ExportFact.AccessCount access_count
	ExportFact.LastAccessed last_accessed,omitzero
	ExportFact.ReinforcementCount reinforcement_count
	ExportFact.DecayScore decay_score
	ExportFact.Status status
	ExportFact.SupersededBy superseded_by,omitempty
	ExportFact.ConsolidatedAt consolidated_at,omitzero
	ExportFact.ExpiresAt expires_at,omitzero
	ExportFact.Embedding embedding,omitempty
	ExportRecord.Entity entity,omitempty
	ExportEntity.ID id
	ExportEntity.Name name
	ExportEntity.Type type
	ExportEntity.Aliases aliases,omitempty
	ExportEntity.FirstSeen first_seen,omitzero
	ExportEntity.LastSeen last_seen,omitzero
	ExportEntity.MentionCount mention_count
	ExportEntity.EpisodeCount episode_count
	ExportEntity.Salience salience
	ExportEntity.Tier tier
	ExportEntity.Contradicted contradicted,omitempty
	ExportEntity.Embedding embedding,omitempty
	ExportRecord.Ref ref,omitempty
	ExportRef.FactID fact_id
	ExportRef.EntityID entity_id
	ExportRef.Seq seq
	ExportRecord.Cooccurrence cooccurrence,omitempty
	ExportCooccurrence.EntityA entity_a
	ExportCooccurrence.EntityB entity_b
	ExportCooccurrence.Count count
	ExportRecord.Relation relation,omitempty
	ExportRelation.ID id
	ExportRelation.SubjectID subject_id
	ExportRelation.Predicate predicate
	ExportRelation.ObjectID object_id
	ExportRelation.Confidence confidence
	ExportRelation.FactIDs fact_ids,omitempty
	ExportRelation.ValidFrom valid_from,omitzero
	ExportRelation.ValidTo valid_to,omitzero
	ExportRelation.CreatedAt created_at,omitzero
	ExportRelation.ExpiredAt expired_at,omitzero
	ExportRecord.Link link,omitempty
	ExportLink.FromID from_id
	ExportLink.ToID to_id
	ExportLink.Kind kind
	ExportLink.EntityID entity_id,omitempty
	ExportLink.Weight weight
	ExportRecord.Observation observation,omitempty
	ExportObservation.ID id
	ExportObservation.Text text
	ExportObservation.Kind kind
	ExportObservation.SourceFactIDs source_fact_ids,omitempty
	ExportObservation.EvidenceCount evidence_count
	ExportObservation.History history,omitempty
	ObservationChange.Previous previous
	ObservationChange.ChangedAt changed_at
	ObservationChange.Reason reason,omitempty
	ExportObservation.Status status
	ExportObservation.AccessCount access_count
	ExportObservation.LastAccessed last_accessed,omitzero
	ExportObservation.CreatedAt created_at,omitzero
	ExportObservation.UpdatedAt updated_at,omitzero
	ExportObservation.Embedding embedding,omitempty
	ExportRecord.Watermark watermark,omitempty
	ExportWatermark.Source source
	ExportWatermark.LastItem last_item,omitempty
	ExportWatermark.LastError last_error,omitempty
	ExportWatermark.UpdatedAt updated_at,omitzero
	ExportRecord.Session session,omitempty
	ExportSession.Session session
	ExportSession.NextSeq next_seq
	ExportSession.Messages messages,omitempty
	ExportSessionMessage.Seq seq
	ExportSessionMessage.Role role
	ExportSessionMessage.MessageID message_id,omitempty
	ExportSessionMessage.Speaker speaker,omitempty
	ExportSessionMessage.Text text
	ExportSessionMessage.At at,omitzero
	ExportSessionMessage.Received received,omitzero
	ExportRecord.Block block,omitempty
	ExportBlock.Name name
	ExportBlock.Label label,omitempty
	ExportBlock.Value value
	ExportBlock.MaxChars max_chars
	ExportBlock.Reads reads
	ExportBlock.Writes writes
	ExportBlock.LastReadAt last_read_at,omitzero
	ExportBlock.CreatedAt created_at,omitzero
	ExportBlock.UpdatedAt updated_at,omitzero
	ExportRecord.Directive directive,omitempty
	ExportDirective.ID id
	ExportDirective.Text text
	ExportDirective.Scopes scopes,omitempty
	ExportDirective.CreatedAt created_at,omitzero
	ExportDirective.UpdatedAt updated_at,omitzero
	ExportRecord.Standing standing,omitempty
	ExportStanding.ID id
	ExportStanding.Question question
	ExportStanding.CreatedAt created_at,omitzero
	ExportStanding.Answer answer,omitempty
	ExportStanding.MemoryIDs memory_ids,omitempty
	ExportStanding.AnsweredAt answered_at,omitzero
	ExportRecord.Trailer trailer,omitempty
	ExportTrailer.Records records
	ExportTrailer.Counts counts
`

func TestReadExportHeader(t *testing.T) {
	for _, tt := range []struct {
		name, line string
		version    int
		bank       string
		code       string
	}{
		{"V2", `{"kind":"header","version":2,"bank":{"id":"a","name":"a","settings":{},"dimension":8}}`, 2, "a", ""},
		{"V1", `{"type":"bank","version":1,"bank":{"ID":"b","Name":"b","Settings":{},"Dimension":8}}`, 1, "b", ""},
		{"Newer", `{"kind":"header","version":5,"bank":{"id":"a","name":"a"}}`, 0, "", memory.EINVALID},
		{"NoBank", `{"kind":"header","version":2}`, 0, "", memory.EINVALID},
		{"NotHeader", `{"kind":"fact","fact":{"id":"f"}}`, 0, "", memory.EINVALID},
		{"V1Unversioned", `{"type":"bank","bank":{"ID":"b"}}`, 0, "", memory.EINVALID},
		{"Chat", `{"speaker":"Mel","text":"hi"}`, 0, "", memory.EINVALID},
		{"NotJSON", `hello`, 0, "", memory.EINVALID},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, rec, err := memory.ReadExportHeader([]byte(tt.line))
			if tt.code != "" {
				if memory.ErrorCode(err) != tt.code {
					t.Fatalf("got %v, want %s", err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v != tt.version || rec.Kind != memory.RecordHeader || rec.Bank.ID != tt.bank || rec.Bank.Dimension != 8 {
				t.Errorf("got version %d, %+v (bank %+v), want version %d, bank %s", v, rec, rec.Bank, tt.version, tt.bank)
			}
		})
	}
}

// A version-1 line (Go field names) reads as the same values in the
// current format.
func TestReadExportRecord_V1(t *testing.T) {
	at := time.Date(2024, 3, 4, 10, 30, 0, 123000, time.UTC)
	for _, tt := range []struct {
		name, line string
		want       memory.ExportRecord
	}{
		{"Fact", `{"type":"fact","fact":{"ID":"f1","BankID":"a","DocumentID":"d","ChunkID":"c","SourceRef":"D1:3","Seq":7,"Text":"t","Kind":"world","Category":"event",
			"Confidence":0.5,"Importance":0.25,"Sensitivity":"private","Speaker":"Mel","Evidence":"e","Tags":["x"],"Embedding":[0.5,-1],
			"OccurredStart":"2024-03-04T10:30:00.000123Z","OccurredEnd":"0001-01-01T00:00:00Z","MentionedAt":"2024-03-04T10:30:00.000123Z",
			"ValidFrom":"0001-01-01T00:00:00Z","ValidTo":"0001-01-01T00:00:00Z","CreatedAt":"2024-03-04T10:30:00.000123Z","ExpiredAt":"0001-01-01T00:00:00Z",
			"AccessCount":2,"LastAccessed":"2024-03-04T10:30:00.000123Z","ReinforcementCount":1,"DecayScore":0.75,"Status":"superseded","SupersededBy":"f2",
			"ConsolidatedAt":"0001-01-01T00:00:00Z","ExpiresAt":"0001-01-01T00:00:00Z"}}`,
			memory.ExportRecord{Kind: memory.RecordFact, Fact: &memory.ExportFact{ID: "f1", Seq: 7, DocumentID: "d", ChunkID: "c", SourceRef: "D1:3", Text: "t",
				Kind: memory.KindWorld, Category: memory.CategoryEvent, Confidence: 0.5, Importance: 0.25, Sensitivity: memory.SensitivityPrivate,
				Speaker: "Mel", Evidence: "e", Tags: []string{"x"}, OccurredStart: at, MentionedAt: at, CreatedAt: at, AccessCount: 2, LastAccessed: at,
				ReinforcementCount: 1, DecayScore: 0.75, Status: memory.StatusSuperseded, SupersededBy: "f2", Embedding: []float32{0.5, -1}}}},
		{"Entity", `{"type":"entity","entity":{"ID":"e1","BankID":"a","Name":"Melanie","Type":"person","Aliases":["Mel"],"FirstSeen":"2024-03-04T10:30:00.000123Z",
			"LastSeen":"0001-01-01T00:00:00Z","MentionCount":3,"EpisodeCount":2,"Salience":0.5,"Tier":"L1","Contradicted":true,"Embedding":[1]}}`,
			memory.ExportRecord{Kind: memory.RecordEntity, Entity: &memory.ExportEntity{ID: "e1", Name: "Melanie", Type: memory.EntityPerson, Aliases: []string{"Mel"},
				FirstSeen: at, MentionCount: 3, EpisodeCount: 2, Salience: 0.5, Tier: memory.TierSemantic, Contradicted: true, Embedding: []float32{1}}}},
		{"Ref", `{"type":"ref","ref":{"FactID":"f1","EntityID":"e1","Seq":7}}`,
			memory.ExportRecord{Kind: memory.RecordRef, Ref: &memory.ExportRef{FactID: "f1", EntityID: "e1", Seq: 7}}},
		{"Link", `{"type":"link","link":{"BankID":"a","FromID":"f1","ToID":"f2","Kind":"entity","Weight":0.5,"EntityID":"e1"}}`,
			memory.ExportRecord{Kind: memory.RecordLink, Link: &memory.ExportLink{FromID: "f1", ToID: "f2", Kind: memory.LinkEntity, EntityID: "e1", Weight: 0.5}}},
		{"Watermark", `{"type":"watermark","watermark":{"BankID":"a","Source":"s","LastItem":"i","LastError":"","UpdatedAt":"2024-03-04T10:30:00.000123Z"}}`,
			memory.ExportRecord{Kind: memory.RecordWatermark, Watermark: &memory.ExportWatermark{Source: "s", LastItem: "i", UpdatedAt: at}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := memory.ReadExportRecord(1, []byte(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", deref(got), deref(&tt.want))
			}
		})
	}
	if _, err := memory.ReadExportRecord(1, []byte(`{"type":"dream","dream":{}}`)); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("an unknown version-1 record: got %v, want EINVALID", err)
	}
	if _, err := memory.ReadExportRecord(memory.ExportVersion+1, []byte(`{"kind":"fact"}`)); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("a newer version: got %v, want EINVALID", err)
	}
}

// deref shows the one set field of a record.
func deref(r *memory.ExportRecord) any {
	v := reflect.ValueOf(*r)
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			return f.Elem().Interface()
		}
	}
	return r
}

func TestSessionRows(t *testing.T) {
	var g memory.SessionRows
	var got []*memory.ExportRecord
	add := func(session string, next, seq int64) {
		t.Helper()
		rec, err := g.Add(session, next, memory.ExportSessionMessage{Seq: seq, Text: session + strconv.FormatInt(seq, 10)})
		if err != nil {
			t.Fatalf("Add(%s, %d): %v", session, seq, err)
		}
		if rec != nil {
			got = append(got, rec)
		}
	}
	add("a", 3, 0)
	add("a", 0, 1)
	add("a", 0, 2)
	add("b", 1, 0)
	add("c", 5, 0)
	add("c", 0, 4)
	if rec := g.Last(); rec != nil {
		got = append(got, rec)
	}
	if g.Last() != nil {
		t.Error("Last after Last: want nil")
	}
	want := []memory.ExportSession{
		{Session: "a", NextSeq: 3, Messages: []memory.ExportSessionMessage{{Seq: 1, Text: "a1"}, {Seq: 2, Text: "a2"}}},
		{Session: "b", NextSeq: 1},
		{Session: "c", NextSeq: 5, Messages: []memory.ExportSessionMessage{{Seq: 4, Text: "c4"}}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d records, want %d", len(got), len(want))
	}
	for i, rec := range got {
		if rec.Kind != memory.RecordSession || !reflect.DeepEqual(*rec.Session, want[i]) {
			t.Errorf("record %d = %s %+v, want session %+v", i, rec.Kind, rec.Session, want[i])
		}
	}
	// A message before its session's own row is an error.
	var h memory.SessionRows
	if _, err := h.Add("x", 0, memory.ExportSessionMessage{Seq: 1}); err == nil {
		t.Error("Add of a message with no session row: no error")
	}
	h.Add("x", 2, memory.ExportSessionMessage{})
	if _, err := h.Add("y", 0, memory.ExportSessionMessage{Seq: 1}); err == nil {
		t.Error("Add of another session's message: no error")
	}
}
