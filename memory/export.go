package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// ExportVersion is the version of the export format this mnemo writes:
// the Version of an export's header, its first record. Readers accept
// every version up to their own (ReadExportRecord upgrades older
// records) and refuse a newer one rather than read it in part.
//
// The version moves with any change to the format: a record kind or a
// field added, renamed or removed, a meaning or unit changed. The field
// names are the json tags of the Export* types below, and a test pins
// them (docs/export.md is the format's description).
const ExportVersion = 4

// Record kinds of an export, in the order Exporter.Export emits them.
// Kinds that later versions add (dreams, runs) take their place
// in this order, each with its own Export* type and ExportRecord field.
const (
	RecordHeader       = "header"
	RecordDocument     = "document"
	RecordChunk        = "chunk"
	RecordFact         = "fact"
	RecordEntity       = "entity"
	RecordRef          = "ref"
	RecordCooccurrence = "cooccurrence"
	RecordRelation     = "relation"
	RecordLink         = "link"
	RecordObservation  = "observation"
	RecordWatermark    = "watermark"
	RecordSession      = "session"
	RecordBlock        = "block"
	// RecordDirective and RecordStanding (version 4 on): the bank's
	// directives by id, its pinned questions with their latest answers
	// by id.
	RecordDirective = "directive"
	RecordStanding  = "standing"
	// RecordTrailer ends an export (version 2 on): the number of records
	// before it, by kind. An import refuses a version-2 file without it,
	// or whose counts differ from what it read: a file cut short.
	RecordTrailer = "trailer"
)

// ExportRecord is one record of a bank's export: Kind names it and the
// one field of that name is set (the header sets Version and Bank). As
// JSON, one record is one line of an export file (mnemo export).
//
// ⚠️ The Export* types are a file format, not the domain types: a field
// of Fact, Entity, Document, … added or renamed changes the conversion
// functions below, and a field of the format changes ExportVersion,
// the pinned tag list (export_test.go) and docs/export.md.
type ExportRecord struct {
	Kind string `json:"kind"`
	// Version is the export format's version, set on the header only.
	Version int `json:"version,omitempty"`
	// Bank is set on the header only.
	Bank         *ExportBank         `json:"bank,omitempty"`
	Document     *ExportDocument     `json:"document,omitempty"`
	Chunk        *ExportChunk        `json:"chunk,omitempty"`
	Fact         *ExportFact         `json:"fact,omitempty"`
	Entity       *ExportEntity       `json:"entity,omitempty"`
	Ref          *ExportRef          `json:"ref,omitempty"`
	Cooccurrence *ExportCooccurrence `json:"cooccurrence,omitempty"`
	Relation     *ExportRelation     `json:"relation,omitempty"`
	Link         *ExportLink         `json:"link,omitempty"`
	Observation  *ExportObservation  `json:"observation,omitempty"`
	Watermark    *ExportWatermark    `json:"watermark,omitempty"`
	Session      *ExportSession      `json:"session,omitempty"`
	Block        *ExportBlock        `json:"block,omitempty"`
	Directive    *ExportDirective    `json:"directive,omitempty"`
	Standing     *ExportStanding     `json:"standing,omitempty"`
	Trailer      *ExportTrailer      `json:"trailer,omitempty"`
}

// ExportTrailer is an export's last record: Records is how many records
// come between the header and it, Counts how many of each kind.
type ExportTrailer struct {
	Records int            `json:"records"`
	Counts  map[string]int `json:"counts"`
}

// ExportWithTrailer calls x.Export and then fn with the trailer counting
// the records it exported: the whole of an export as mnemo export writes
// it (Engine.Export, and the conformance suite's golden file).
func ExportWithTrailer(ctx context.Context, x Exporter, bankID string, fn func(*ExportRecord) error) error {
	t := &ExportTrailer{Counts: map[string]int{}}
	err := x.Export(ctx, bankID, func(rec *ExportRecord) error {
		if rec.Kind != RecordHeader {
			t.Records++
			t.Counts[rec.Kind]++
		}
		return fn(rec)
	})
	if err != nil {
		return err
	}
	return fn(&ExportRecord{Kind: RecordTrailer, Trailer: t})
}

// Check returns EINVALID unless the records an import read (counts by
// kind, header and trailer excluded) are those t counts.
func (t *ExportTrailer) Check(counts map[string]int) error {
	total := 0
	for _, n := range counts {
		total += n
	}
	if total != t.Records {
		return Errorf(EINVALID, "the export holds %d records but its trailer counts %d: the file is damaged", total, t.Records)
	}
	for kind, n := range t.Counts {
		if counts[kind] != n {
			return Errorf(EINVALID, "the export holds %d %s records but its trailer counts %d: the file is damaged", counts[kind], kind, n)
		}
	}
	return nil
}

// ExportBank is a bank as exported: the header's Bank. Records carry no
// bank id of their own: an import may name the bank anew.
type ExportBank struct {
	ID        string       `json:"id"`
	Name      string       `json:"name"`
	Settings  BankSettings `json:"settings"`
	Embedder  string       `json:"embedder,omitempty"`
	Dimension int          `json:"dimension,omitempty"`
	CreatedAt time.Time    `json:"created_at,omitzero"`
}

// ExportDocument is a document as exported.
type ExportDocument struct {
	ID          string            `json:"id"`
	Source      string            `json:"source"`
	ItemID      string            `json:"item_id"`
	ContentHash string            `json:"content_hash"`
	Content     string            `json:"content"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	Tags        []string          `json:"tags,omitempty"`
	OccurredAt  time.Time         `json:"occurred_at,omitzero"`
	CreatedAt   time.Time         `json:"created_at,omitzero"`
}

// ExportChunk is a chunk as exported, after its document.
type ExportChunk struct {
	ID         string `json:"id"`
	DocumentID string `json:"document_id"`
	Index      int    `json:"index"`
	Text       string `json:"text"`
}

// ExportFact is a fact as exported: all of it, Seq and embedding too.
type ExportFact struct {
	ID                 string      `json:"id"`
	Seq                int64       `json:"seq"`
	DocumentID         string      `json:"document_id,omitempty"`
	ChunkID            string      `json:"chunk_id,omitempty"`
	SourceRef          string      `json:"source_ref,omitempty"`
	Text               string      `json:"text"`
	Kind               FactKind    `json:"kind"`
	Category           Category    `json:"category,omitempty"`
	Confidence         float64     `json:"confidence"`
	Importance         float64     `json:"importance"`
	Sensitivity        Sensitivity `json:"sensitivity"`
	Speaker            string      `json:"speaker,omitempty"`
	Evidence           string      `json:"evidence,omitempty"`
	Tags               []string    `json:"tags,omitempty"`
	OccurredStart      time.Time   `json:"occurred_start,omitzero"`
	OccurredEnd        time.Time   `json:"occurred_end,omitzero"`
	MentionedAt        time.Time   `json:"mentioned_at,omitzero"`
	ValidFrom          time.Time   `json:"valid_from,omitzero"`
	ValidTo            time.Time   `json:"valid_to,omitzero"`
	CreatedAt          time.Time   `json:"created_at,omitzero"`
	ExpiredAt          time.Time   `json:"expired_at,omitzero"`
	AccessCount        int         `json:"access_count"`
	LastAccessed       time.Time   `json:"last_accessed,omitzero"`
	ReinforcementCount int         `json:"reinforcement_count"`
	DecayScore         float64     `json:"decay_score"`
	Status             Status      `json:"status"`
	SupersededBy       string      `json:"superseded_by,omitempty"`
	ConsolidatedAt     time.Time   `json:"consolidated_at,omitzero"`
	ExpiresAt          time.Time   `json:"expires_at,omitzero"`
	Embedding          []float32   `json:"embedding,omitempty"`
}

// ExportEntity is an entity as exported: all it holds, its aliases (but
// the canonical name) and its name embedding.
type ExportEntity struct {
	ID           string     `json:"id"`
	Name         string     `json:"name"`
	Type         EntityType `json:"type"`
	Aliases      []string   `json:"aliases,omitempty"`
	FirstSeen    time.Time  `json:"first_seen,omitzero"`
	LastSeen     time.Time  `json:"last_seen,omitzero"`
	MentionCount int        `json:"mention_count"`
	EpisodeCount int        `json:"episode_count"`
	Salience     float64    `json:"salience"`
	Tier         Tier       `json:"tier"`
	Contradicted bool       `json:"contradicted,omitempty"`
	Embedding    []float32  `json:"embedding,omitempty"`
}

// ExportRef is an entity ref with the Seq of its fact, which orders an
// entity's facts.
type ExportRef struct {
	FactID   string `json:"fact_id"`
	EntityID string `json:"entity_id"`
	Seq      int64  `json:"seq"`
}

// ExportCooccurrence is a co-occurrence count as exported.
type ExportCooccurrence struct {
	EntityA string `json:"entity_a"`
	EntityB string `json:"entity_b"`
	Count   int    `json:"count"`
}

// ExportRelation is a relation as exported.
type ExportRelation struct {
	ID         string    `json:"id"`
	SubjectID  string    `json:"subject_id"`
	Predicate  string    `json:"predicate"`
	ObjectID   string    `json:"object_id"`
	Confidence float64   `json:"confidence"`
	FactIDs    []string  `json:"fact_ids,omitempty"`
	ValidFrom  time.Time `json:"valid_from,omitzero"`
	ValidTo    time.Time `json:"valid_to,omitzero"`
	CreatedAt  time.Time `json:"created_at,omitzero"`
	ExpiredAt  time.Time `json:"expired_at,omitzero"`
}

// ExportLink is a link between facts as exported.
type ExportLink struct {
	FromID   string   `json:"from_id"`
	ToID     string   `json:"to_id"`
	Kind     LinkKind `json:"kind"`
	EntityID string   `json:"entity_id,omitempty"`
	Weight   float64  `json:"weight"`
}

// ExportObservation is an observation as exported, embedding included.
type ExportObservation struct {
	ID            string              `json:"id"`
	Text          string              `json:"text"`
	Kind          ObservationKind     `json:"kind"`
	SourceFactIDs []string            `json:"source_fact_ids,omitempty"`
	EvidenceCount int                 `json:"evidence_count"`
	History       []ObservationChange `json:"history,omitempty"`
	Status        Status              `json:"status"`
	AccessCount   int                 `json:"access_count"`
	LastAccessed  time.Time           `json:"last_accessed,omitzero"`
	CreatedAt     time.Time           `json:"created_at,omitzero"`
	UpdatedAt     time.Time           `json:"updated_at,omitzero"`
	Embedding     []float32           `json:"embedding,omitempty"`
}

// ExportWatermark is an ingest watermark as exported.
type ExportWatermark struct {
	Source    string    `json:"source"`
	LastItem  string    `json:"last_item,omitempty"`
	LastError string    `json:"last_error,omitempty"`
	UpdatedAt time.Time `json:"updated_at,omitzero"`
}

// ExportSession is a streaming session as exported: the next Seq its
// buffer hands out (Seqs are never reused, so the documents its drains
// wrote never collide with later ones) and the messages still buffered,
// not yet extracted, in Seq order.
type ExportSession struct {
	Session  string                 `json:"session"`
	NextSeq  int64                  `json:"next_seq"`
	Messages []ExportSessionMessage `json:"messages,omitempty"`
}

// SessionRows gathers a store's session rows into session records for
// Export. A store reads its sessions and their buffered messages as one
// stream ordered by session, then Seq: a session's own row first, as a
// message with Seq 0 (message Seqs start at 1), then its messages. Each
// row goes to Add, which returns the record of the session the row ends,
// if any; Last returns the final one.
type SessionRows struct {
	cur *ExportSession
}

// Add takes the next row: session, its next Seq (read from the session's
// own row) and m, a message or, with Seq 0, the session's own row. It
// returns the record of the previous session when m begins a new one, and
// an error for a message that comes before its session's own row.
func (g *SessionRows) Add(session string, nextSeq int64, m ExportSessionMessage) (*ExportRecord, error) {
	if m.Seq == 0 {
		done := g.Last()
		g.cur = &ExportSession{Session: session, NextSeq: nextSeq}
		return done, nil
	}
	if g.cur == nil || g.cur.Session != session {
		return nil, fmt.Errorf("session %s: buffered messages without a session", session)
	}
	g.cur.Messages = append(g.cur.Messages, m)
	return nil, nil
}

// Last returns the record of the session being gathered, or nil if none
// is, and starts over.
func (g *SessionRows) Last() *ExportRecord {
	if g.cur == nil {
		return nil
	}
	rec := &ExportRecord{Kind: RecordSession, Session: g.cur}
	g.cur = nil
	return rec
}

// ExportSessionMessage is one buffered message of a session.
type ExportSessionMessage struct {
	Seq       int64     `json:"seq"`
	Role      Role      `json:"role"`
	MessageID string    `json:"message_id,omitempty"`
	Speaker   string    `json:"speaker,omitempty"`
	Text      string    `json:"text"`
	At        time.Time `json:"at,omitzero"`
	// Received is when the message reached the buffer: the idle
	// trigger's clock.
	Received time.Time `json:"received,omitzero"`
}

// ExportedBank is b as exported.
func ExportedBank(b *Bank) *ExportBank {
	return &ExportBank{ID: b.ID, Name: b.Name, Settings: b.Settings, Embedder: b.Embedder, Dimension: b.Dimension, CreatedAt: b.CreatedAt}
}

// Bank is the bank x describes.
func (x *ExportBank) Bank() *Bank {
	return &Bank{ID: x.ID, Name: x.Name, Settings: x.Settings, Embedder: x.Embedder, Dimension: x.Dimension, CreatedAt: x.CreatedAt}
}

// ExportedDocument is d as exported.
func ExportedDocument(d *Document) *ExportDocument {
	return &ExportDocument{ID: d.ID, Source: d.Source, ItemID: d.ItemID, ContentHash: d.ContentHash, Content: d.Content,
		Metadata: nilIfEmptyMap(d.Metadata), Tags: nilIfEmpty(d.Tags), OccurredAt: d.OccurredAt, CreatedAt: d.CreatedAt}
}

// Document is the document x describes, in bank.
func (x *ExportDocument) Document(bank string) *Document {
	return &Document{ID: x.ID, BankID: bank, Source: x.Source, ItemID: x.ItemID, ContentHash: x.ContentHash, Content: x.Content,
		Metadata: x.Metadata, Tags: x.Tags, OccurredAt: x.OccurredAt, CreatedAt: x.CreatedAt}
}

// ExportedChunk is c as exported.
func ExportedChunk(c *Chunk) *ExportChunk {
	return &ExportChunk{ID: c.ID, DocumentID: c.DocumentID, Index: c.Index, Text: c.Text}
}

// Chunk is the chunk x describes, in bank.
func (x *ExportChunk) Chunk(bank string) *Chunk {
	return &Chunk{ID: x.ID, BankID: bank, DocumentID: x.DocumentID, Index: x.Index, Text: x.Text}
}

// ExportedFact is f as exported, its Seq and Embedding included.
func ExportedFact(f *Fact) *ExportFact {
	return &ExportFact{
		ID: f.ID, Seq: f.Seq, DocumentID: f.DocumentID, ChunkID: f.ChunkID, SourceRef: f.SourceRef,
		Text: f.Text, Kind: f.Kind, Category: f.Category, Confidence: f.Confidence, Importance: f.Importance,
		Sensitivity: f.Sensitivity, Speaker: f.Speaker, Evidence: f.Evidence, Tags: nilIfEmpty(f.Tags),
		OccurredStart: f.OccurredStart, OccurredEnd: f.OccurredEnd, MentionedAt: f.MentionedAt,
		ValidFrom: f.ValidFrom, ValidTo: f.ValidTo, CreatedAt: f.CreatedAt, ExpiredAt: f.ExpiredAt,
		AccessCount: f.AccessCount, LastAccessed: f.LastAccessed, ReinforcementCount: f.ReinforcementCount,
		DecayScore: f.DecayScore, Status: f.Status, SupersededBy: f.SupersededBy,
		ConsolidatedAt: f.ConsolidatedAt, ExpiresAt: f.ExpiresAt, Embedding: nilIfEmpty(f.Embedding),
	}
}

// Fact is the fact x describes, in bank.
func (x *ExportFact) Fact(bank string) *Fact {
	return &Fact{
		ID: x.ID, BankID: bank, Seq: x.Seq, DocumentID: x.DocumentID, ChunkID: x.ChunkID, SourceRef: x.SourceRef,
		Text: x.Text, Kind: x.Kind, Category: x.Category, Confidence: x.Confidence, Importance: x.Importance,
		Sensitivity: x.Sensitivity, Speaker: x.Speaker, Evidence: x.Evidence, Tags: x.Tags,
		OccurredStart: x.OccurredStart, OccurredEnd: x.OccurredEnd, MentionedAt: x.MentionedAt,
		ValidFrom: x.ValidFrom, ValidTo: x.ValidTo, CreatedAt: x.CreatedAt, ExpiredAt: x.ExpiredAt,
		AccessCount: x.AccessCount, LastAccessed: x.LastAccessed, ReinforcementCount: x.ReinforcementCount,
		DecayScore: x.DecayScore, Status: x.Status, SupersededBy: x.SupersededBy,
		ConsolidatedAt: x.ConsolidatedAt, ExpiresAt: x.ExpiresAt, Embedding: x.Embedding,
	}
}

// ExportedEntity is e as exported, with its name embedding (nil if it
// has none). e.Aliases should not hold the canonical name.
func ExportedEntity(e *Entity, embedding []float32) *ExportEntity {
	return &ExportEntity{ID: e.ID, Name: e.Name, Type: e.Type, Aliases: nilIfEmpty(e.Aliases), FirstSeen: e.FirstSeen, LastSeen: e.LastSeen,
		MentionCount: e.MentionCount, EpisodeCount: e.EpisodeCount, Salience: e.Salience, Tier: e.Tier, Contradicted: e.Contradicted,
		Embedding: nilIfEmpty(embedding)}
}

// Entity is the entity x describes, in bank (its name embedding is
// x.Embedding).
func (x *ExportEntity) Entity(bank string) *Entity {
	return &Entity{ID: x.ID, BankID: bank, Name: x.Name, Type: x.Type, Aliases: x.Aliases, FirstSeen: x.FirstSeen, LastSeen: x.LastSeen,
		MentionCount: x.MentionCount, EpisodeCount: x.EpisodeCount, Salience: x.Salience, Tier: x.Tier, Contradicted: x.Contradicted}
}

// ExportedRelation is r as exported.
func ExportedRelation(r *Relation) *ExportRelation {
	return &ExportRelation{ID: r.ID, SubjectID: r.SubjectID, Predicate: r.Predicate, ObjectID: r.ObjectID, Confidence: r.Confidence,
		FactIDs: nilIfEmpty(r.FactIDs), ValidFrom: r.ValidFrom, ValidTo: r.ValidTo, CreatedAt: r.CreatedAt, ExpiredAt: r.ExpiredAt}
}

// Relation is the relation x describes, in bank.
func (x *ExportRelation) Relation(bank string) *Relation {
	return &Relation{ID: x.ID, BankID: bank, SubjectID: x.SubjectID, Predicate: x.Predicate, ObjectID: x.ObjectID, Confidence: x.Confidence,
		FactIDs: x.FactIDs, ValidFrom: x.ValidFrom, ValidTo: x.ValidTo, CreatedAt: x.CreatedAt, ExpiredAt: x.ExpiredAt}
}

// ExportedLink is l as exported.
func ExportedLink(l *Link) *ExportLink {
	return &ExportLink{FromID: l.FromID, ToID: l.ToID, Kind: l.Kind, EntityID: l.EntityID, Weight: l.Weight}
}

// Link is the link x describes, in bank.
func (x *ExportLink) Link(bank string) Link {
	return Link{BankID: bank, FromID: x.FromID, ToID: x.ToID, Kind: x.Kind, EntityID: x.EntityID, Weight: x.Weight}
}

// ExportedObservation is o as exported, its embedding included.
func ExportedObservation(o *Observation) *ExportObservation {
	return &ExportObservation{ID: o.ID, Text: o.Text, Kind: o.Kind, SourceFactIDs: nilIfEmpty(o.SourceFactIDs), EvidenceCount: o.EvidenceCount,
		History: nilIfEmpty(o.History), Status: o.Status, AccessCount: o.AccessCount, LastAccessed: o.LastAccessed,
		CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt, Embedding: nilIfEmpty(o.Embedding)}
}

// Observation is the observation x describes, in bank.
func (x *ExportObservation) Observation(bank string) *Observation {
	return &Observation{ID: x.ID, BankID: bank, Text: x.Text, Kind: x.Kind, SourceFactIDs: x.SourceFactIDs, EvidenceCount: x.EvidenceCount,
		History: x.History, Status: x.Status, AccessCount: x.AccessCount, LastAccessed: x.LastAccessed,
		CreatedAt: x.CreatedAt, UpdatedAt: x.UpdatedAt, Embedding: x.Embedding}
}

// ExportedWatermark is w as exported.
func ExportedWatermark(w *Watermark) *ExportWatermark {
	return &ExportWatermark{Source: w.Source, LastItem: w.LastItem, LastError: w.LastError, UpdatedAt: w.UpdatedAt}
}

// Watermark is the watermark x describes, in bank.
func (x *ExportWatermark) Watermark(bank string) *Watermark {
	return &Watermark{BankID: bank, Source: x.Source, LastItem: x.LastItem, LastError: x.LastError, UpdatedAt: x.UpdatedAt}
}

// ReadExportRecord decodes one line of an export of the given format
// version (the header's) as a record of the current version. A version-1
// line (mnemo before the v2 format: Go field names, a "bank" first
// record) is upgraded; a newer version than ExportVersion is EINVALID.
// Decoding a header line, whatever its version, is ReadExportHeader.
func ReadExportRecord(version int, line []byte) (*ExportRecord, error) {
	switch {
	case version == 1:
		return readExportV1(line)
	case version < 1 || version > ExportVersion:
		return nil, Errorf(EINVALID, "export format version %d: this mnemo reads versions 1 to %d", version, ExportVersion)
	}
	rec := &ExportRecord{}
	if err := json.Unmarshal(line, rec); err != nil {
		return nil, Errorf(EINVALID, "%v", err)
	}
	return rec, nil
}

// ReadExportHeader decodes the first line of an export, of any version
// this mnemo reads, and returns the format version and the header as a
// record of the current version. A line that begins no export, or an
// export of a newer version, is EINVALID.
func ReadExportHeader(line []byte) (int, *ExportRecord, error) {
	var head struct {
		Kind    string `json:"kind"`
		Type    string `json:"type"` // version 1
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return 0, nil, Errorf(EINVALID, "not a bank export: %v", err)
	}
	v := head.Version
	v1 := head.Kind == "" && head.Type == recordBankV1 && v == 1
	if !v1 && (head.Kind != RecordHeader || v < 2) {
		return 0, nil, Errorf(EINVALID, "not a bank export (it starts with a header record)")
	}
	if v > ExportVersion {
		return 0, nil, Errorf(EINVALID, "export format version %d is newer than this mnemo's (%d)", v, ExportVersion)
	}
	rec, err := ReadExportRecord(v, line)
	if err != nil {
		return 0, nil, err
	}
	if rec.Kind != RecordHeader || rec.Bank == nil {
		return 0, nil, Errorf(EINVALID, "not a bank export: the header names no bank")
	}
	return v, rec, nil
}

func nilIfEmpty[S ~[]E, E any](s S) S {
	if len(s) == 0 {
		return nil
	}
	return slices.Clip(s)
}

func nilIfEmptyMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// Exporter is implemented by stores that can read a bank whole. Callers
// detect it by type assertion (mnemo's Engine.Export).
type Exporter interface {
	// Export calls fn with every record of the bank, from one consistent
	// snapshot, in this order: the header (Version ExportVersion, the
	// bank); each document followed by its chunks (documents by id,
	// chunks by index); facts by Seq, with their embeddings; entities by
	// id, with aliases and name embeddings; refs by fact then entity;
	// co-occurrences; relations by id; links; observations by id;
	// watermarks by source; sessions by name, with their buffered
	// messages; stored blocks by name; directives by id; pinned
	// questions by id, with their latest answers. Queued jobs are not
	// bank state and are not exported.
	// Empty lists and maps are nil. ENOTFOUND if the bank does not
	// exist; an error from fn stops the export and is returned.
	Export(ctx context.Context, bankID string, fn func(*ExportRecord) error) error
}

// Importer is implemented by stores that can load an export as it was:
// facts keep their Seq and lifecycle, entities their counts, salience,
// tier and embedding, refs their Seq, sessions their next Seq. Callers
// detect it by type assertion (mnemo's Engine.ImportBank).
type Importer interface {
	// Import stores records (any kind but RecordHeader, which is
	// refused) into the existing bank bankID, whatever bank the export
	// named, in one transaction: all of them or none. Records may come
	// in several calls, each in export order (a chunk after its
	// document, a ref or a link after its fact). A record that is
	// already in the bank fails the call with ECONFLICT; one of a kind
	// the store does not know, or empty, with EINVALID.
	Import(ctx context.Context, bankID string, recs []*ExportRecord) error
}
