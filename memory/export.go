package memory

import "context"

// ExportVersion is the version of the export format: the Version of an
// export's first record.
const ExportVersion = 1

// Record types of an export, in the order Exporter.Export emits them.
const (
	RecordBank         = "bank"
	RecordDocument     = "document"
	RecordChunk        = "chunk"
	RecordFact         = "fact"
	RecordEntity       = "entity"
	RecordRef          = "ref"
	RecordCooccurrence = "cooccurrence"
	RecordRelation     = "relation"
	RecordLink         = "link"
	RecordWatermark    = "watermark"
)

// ExportRecord is one item of a bank's export: Type names it and the one
// field of that name is set. As JSON, one record is one line of an export
// file (mnemo export).
type ExportRecord struct {
	Type string `json:"type"`
	// Version is set on the bank record, the first of an export.
	Version      int           `json:"version,omitempty"`
	Bank         *Bank         `json:"bank,omitempty"`
	Document     *Document     `json:"document,omitempty"`
	Chunk        *Chunk        `json:"chunk,omitempty"`
	Fact         *Fact         `json:"fact,omitempty"` // with Seq and Embedding
	Entity       *ExportEntity `json:"entity,omitempty"`
	Ref          *ExportRef    `json:"ref,omitempty"`
	Cooccurrence *Cooccurrence `json:"cooccurrence,omitempty"`
	Relation     *Relation     `json:"relation,omitempty"`
	Link         *Link         `json:"link,omitempty"`
	Watermark    *Watermark    `json:"watermark,omitempty"`
}

// ExportEntity is an entity as exported: all it holds, its aliases (but
// the canonical name) and its name embedding.
type ExportEntity struct {
	Entity
	Embedding []float32 `json:",omitempty"`
}

// ExportRef is an entity ref with the Seq of its fact, which orders an
// entity's facts.
type ExportRef struct {
	EntityRef
	Seq int64
}

// Exporter is implemented by stores that can read a bank whole. Callers
// detect it by type assertion (mnemo's Engine.Export).
type Exporter interface {
	// Export calls fn with every record of the bank, from one consistent
	// snapshot, in this order: the bank; each document followed by its
	// chunks (documents by id, chunks by index); facts by Seq, with their
	// embeddings; entities by id, with aliases and name embeddings; refs;
	// co-occurrences; relations; links; watermarks. Empty lists and maps
	// are nil. ENOTFOUND if the bank does not exist; an error from fn
	// stops the export and is returned.
	Export(ctx context.Context, bankID string, fn func(*ExportRecord) error) error
}

// Importer is implemented by stores that can load an export as it was:
// facts keep their Seq and lifecycle, entities their counts, salience,
// tier and embedding, refs their Seq. Callers detect it by type
// assertion (mnemo's Engine.ImportBank).
type Importer interface {
	// Import stores records (any type but RecordBank, which is refused)
	// into the existing bank bankID, whatever bank the records name, in
	// one transaction: all of them or none. Records may come in several
	// calls, each in export order (a chunk after its document, a ref or
	// a link after its fact). A record that is already in the bank fails
	// the call with ECONFLICT.
	Import(ctx context.Context, bankID string, recs []*ExportRecord) error
}
