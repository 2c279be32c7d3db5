package memory

import (
	"encoding/json"
	"time"
)

// Version 1 of the export format, frozen: mnemo wrote it before the
// version-2 format, as the Go field names of the domain types of the
// time. These types keep those names as explicit tags, so that renaming
// a domain field never breaks reading an old export; readExportV1 turns
// a version-1 line into a current record.

// recordBankV1 is version 1's first record, the header's predecessor.
const recordBankV1 = "bank"

type exportRecordV1 struct {
	Type         string          `json:"type"`
	Version      int             `json:"version"`
	Bank         *bankV1         `json:"bank"`
	Document     *documentV1     `json:"document"`
	Chunk        *chunkV1        `json:"chunk"`
	Fact         *factV1         `json:"fact"`
	Entity       *entityV1       `json:"entity"`
	Ref          *refV1          `json:"ref"`
	Cooccurrence *cooccurrenceV1 `json:"cooccurrence"`
	Relation     *relationV1     `json:"relation"`
	Link         *linkV1         `json:"link"`
	Watermark    *watermarkV1    `json:"watermark"`
}

type bankV1 struct {
	ID        string       `json:"ID"`
	Name      string       `json:"Name"`
	Settings  BankSettings `json:"Settings"` // snake_case already in version 1
	Embedder  string       `json:"Embedder"`
	Dimension int          `json:"Dimension"`
	CreatedAt time.Time    `json:"CreatedAt"`
}

type documentV1 struct {
	ID          string            `json:"ID"`
	Source      string            `json:"Source"`
	ItemID      string            `json:"ItemID"`
	ContentHash string            `json:"ContentHash"`
	Content     string            `json:"Content"`
	Metadata    map[string]string `json:"Metadata"`
	Tags        []string          `json:"Tags"`
	OccurredAt  time.Time         `json:"OccurredAt"`
	CreatedAt   time.Time         `json:"CreatedAt"`
}

type chunkV1 struct {
	ID         string `json:"ID"`
	DocumentID string `json:"DocumentID"`
	Index      int    `json:"Index"`
	Text       string `json:"Text"`
}

type factV1 struct {
	ID                 string      `json:"ID"`
	DocumentID         string      `json:"DocumentID"`
	ChunkID            string      `json:"ChunkID"`
	SourceRef          string      `json:"SourceRef"`
	Seq                int64       `json:"Seq"`
	Text               string      `json:"Text"`
	Kind               FactKind    `json:"Kind"`
	Category           Category    `json:"Category"`
	Confidence         float64     `json:"Confidence"`
	Importance         float64     `json:"Importance"`
	Sensitivity        Sensitivity `json:"Sensitivity"`
	Speaker            string      `json:"Speaker"`
	Evidence           string      `json:"Evidence"`
	Tags               []string    `json:"Tags"`
	Embedding          []float32   `json:"Embedding"`
	OccurredStart      time.Time   `json:"OccurredStart"`
	OccurredEnd        time.Time   `json:"OccurredEnd"`
	MentionedAt        time.Time   `json:"MentionedAt"`
	ValidFrom          time.Time   `json:"ValidFrom"`
	ValidTo            time.Time   `json:"ValidTo"`
	CreatedAt          time.Time   `json:"CreatedAt"`
	ExpiredAt          time.Time   `json:"ExpiredAt"`
	AccessCount        int         `json:"AccessCount"`
	LastAccessed       time.Time   `json:"LastAccessed"`
	ReinforcementCount int         `json:"ReinforcementCount"`
	DecayScore         float64     `json:"DecayScore"`
	Status             Status      `json:"Status"`
	SupersededBy       string      `json:"SupersededBy"`
	ConsolidatedAt     time.Time   `json:"ConsolidatedAt"`
	ExpiresAt          time.Time   `json:"ExpiresAt"`
}

type entityV1 struct {
	ID           string     `json:"ID"`
	Name         string     `json:"Name"`
	Type         EntityType `json:"Type"`
	Aliases      []string   `json:"Aliases"`
	FirstSeen    time.Time  `json:"FirstSeen"`
	LastSeen     time.Time  `json:"LastSeen"`
	MentionCount int        `json:"MentionCount"`
	EpisodeCount int        `json:"EpisodeCount"`
	Salience     float64    `json:"Salience"`
	Tier         Tier       `json:"Tier"`
	Contradicted bool       `json:"Contradicted"`
	Embedding    []float32  `json:"Embedding"`
}

type refV1 struct {
	FactID   string `json:"FactID"`
	EntityID string `json:"EntityID"`
	Seq      int64  `json:"Seq"`
}

type cooccurrenceV1 struct {
	EntityA string `json:"EntityA"`
	EntityB string `json:"EntityB"`
	Count   int    `json:"Count"`
}

type relationV1 struct {
	ID         string    `json:"ID"`
	SubjectID  string    `json:"SubjectID"`
	Predicate  string    `json:"Predicate"`
	ObjectID   string    `json:"ObjectID"`
	Confidence float64   `json:"Confidence"`
	FactIDs    []string  `json:"FactIDs"`
	ValidFrom  time.Time `json:"ValidFrom"`
	ValidTo    time.Time `json:"ValidTo"`
	CreatedAt  time.Time `json:"CreatedAt"`
	ExpiredAt  time.Time `json:"ExpiredAt"`
}

type linkV1 struct {
	FromID   string   `json:"FromID"`
	ToID     string   `json:"ToID"`
	Kind     LinkKind `json:"Kind"`
	Weight   float64  `json:"Weight"`
	EntityID string   `json:"EntityID"`
}

type watermarkV1 struct {
	Source    string    `json:"Source"`
	LastItem  string    `json:"LastItem"`
	LastError string    `json:"LastError"`
	UpdatedAt time.Time `json:"UpdatedAt"`
}

// readExportV1 decodes a version-1 line as a current record: the bank
// record becomes the header (Version 1, so a reader can tell), every
// other record its version-2 kind with the same values.
func readExportV1(line []byte) (*ExportRecord, error) {
	var v exportRecordV1
	if err := json.Unmarshal(line, &v); err != nil {
		return nil, Errorf(EINVALID, "%v", err)
	}
	rec := &ExportRecord{Kind: v.Type}
	switch {
	case v.Type == recordBankV1 && v.Bank != nil:
		b := v.Bank
		rec.Kind, rec.Version = RecordHeader, 1
		rec.Bank = &ExportBank{ID: b.ID, Name: b.Name, Settings: b.Settings, Embedder: b.Embedder, Dimension: b.Dimension, CreatedAt: b.CreatedAt}
	case v.Type == RecordDocument && v.Document != nil:
		d := v.Document
		rec.Document = &ExportDocument{ID: d.ID, Source: d.Source, ItemID: d.ItemID, ContentHash: d.ContentHash, Content: d.Content,
			Metadata: nilIfEmptyMap(d.Metadata), Tags: nilIfEmpty(d.Tags), OccurredAt: d.OccurredAt, CreatedAt: d.CreatedAt}
	case v.Type == RecordChunk && v.Chunk != nil:
		c := v.Chunk
		rec.Chunk = &ExportChunk{ID: c.ID, DocumentID: c.DocumentID, Index: c.Index, Text: c.Text}
	case v.Type == RecordFact && v.Fact != nil:
		f := v.Fact
		rec.Fact = &ExportFact{
			ID: f.ID, Seq: f.Seq, DocumentID: f.DocumentID, ChunkID: f.ChunkID, SourceRef: f.SourceRef,
			Text: f.Text, Kind: f.Kind, Category: f.Category, Confidence: f.Confidence, Importance: f.Importance,
			Sensitivity: f.Sensitivity, Speaker: f.Speaker, Evidence: f.Evidence, Tags: nilIfEmpty(f.Tags),
			OccurredStart: f.OccurredStart, OccurredEnd: f.OccurredEnd, MentionedAt: f.MentionedAt,
			ValidFrom: f.ValidFrom, ValidTo: f.ValidTo, CreatedAt: f.CreatedAt, ExpiredAt: f.ExpiredAt,
			AccessCount: f.AccessCount, LastAccessed: f.LastAccessed, ReinforcementCount: f.ReinforcementCount,
			DecayScore: f.DecayScore, Status: f.Status, SupersededBy: f.SupersededBy,
			ConsolidatedAt: f.ConsolidatedAt, ExpiresAt: f.ExpiresAt, Embedding: nilIfEmpty(f.Embedding),
		}
	case v.Type == RecordEntity && v.Entity != nil:
		e := v.Entity
		rec.Entity = &ExportEntity{ID: e.ID, Name: e.Name, Type: e.Type, Aliases: nilIfEmpty(e.Aliases), FirstSeen: e.FirstSeen, LastSeen: e.LastSeen,
			MentionCount: e.MentionCount, EpisodeCount: e.EpisodeCount, Salience: e.Salience, Tier: e.Tier, Contradicted: e.Contradicted,
			Embedding: nilIfEmpty(e.Embedding)}
	case v.Type == RecordRef && v.Ref != nil:
		rec.Ref = &ExportRef{FactID: v.Ref.FactID, EntityID: v.Ref.EntityID, Seq: v.Ref.Seq}
	case v.Type == RecordCooccurrence && v.Cooccurrence != nil:
		c := v.Cooccurrence
		rec.Cooccurrence = &ExportCooccurrence{EntityA: c.EntityA, EntityB: c.EntityB, Count: c.Count}
	case v.Type == RecordRelation && v.Relation != nil:
		r := v.Relation
		rec.Relation = &ExportRelation{ID: r.ID, SubjectID: r.SubjectID, Predicate: r.Predicate, ObjectID: r.ObjectID, Confidence: r.Confidence,
			FactIDs: nilIfEmpty(r.FactIDs), ValidFrom: r.ValidFrom, ValidTo: r.ValidTo, CreatedAt: r.CreatedAt, ExpiredAt: r.ExpiredAt}
	case v.Type == RecordLink && v.Link != nil:
		l := v.Link
		rec.Link = &ExportLink{FromID: l.FromID, ToID: l.ToID, Kind: l.Kind, EntityID: l.EntityID, Weight: l.Weight}
	case v.Type == RecordWatermark && v.Watermark != nil:
		w := v.Watermark
		rec.Watermark = &ExportWatermark{Source: w.Source, LastItem: w.LastItem, LastError: w.LastError, UpdatedAt: w.UpdatedAt}
	default:
		return nil, Errorf(EINVALID, "version-1 record of type %q is unknown (or empty)", v.Type)
	}
	return rec, nil
}
