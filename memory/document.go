package memory

import (
	"strconv"
	"time"
)

// Source channels a document can come from. Any other non-empty string is
// accepted too; these are the ones mnemo's own importers use.
const (
	SourceChat  = "chat"
	SourceNote  = "note"
	SourceEmail = "email"
	SourceVoice = "voice"
	SourceAPI   = "api"
)

// Document is one retained item in its original form: a conversation
// segment, a note, an email. Re-retaining the same (bank, source, item)
// with the same content hash is a no-op.
//
// ⚠️ A field added to Document changes together in: this struct; a new
// numbered migration of each store (store/sqlite/migrations,
// store/postgres/migrations); each store's document insert, its reads
// (DocumentByItem), export and import; the export format
// (memory/export.go and its golden files); store/storetest (the
// round-trip batch must set it, so that a store that drops it fails; the
// reference store in memstore_test.go keeps it); and package wire when
// clients see it.
type Document struct {
	ID          string
	BankID      string
	Source      string // channel: chat, note, email, voice, api, …
	ItemID      string // external id of the item within its source
	ContentHash string // hex SHA-256 of the canonical content
	Content     string
	Metadata    map[string]string
	Tags        []string
	OccurredAt  time.Time // the document's own time (e.g. a session's date)
	CreatedAt   time.Time
}

// Chunk is the raw text a fact came from. Its ID is
// "{bank}_{document}_{index}" (Hindsight).
type Chunk struct {
	ID         string
	BankID     string
	DocumentID string
	Index      int
	Text       string
}

// ChunkID returns the chunk id for the index-th chunk of a document.
func ChunkID(bankID, documentID string, index int) string {
	return bankID + "_" + documentID + "_" + strconv.Itoa(index)
}

// Watermark is the ingest position of one source in a bank: the last item
// taken in and the last error, so a follower can resume after a restart.
type Watermark struct {
	BankID    string
	Source    string
	LastItem  string
	LastError string
	UpdatedAt time.Time
}
