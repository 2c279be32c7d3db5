package memory

import "time"

// MaxContentBytes bounds one retained item (all of its text together).
// Larger items are refused with EINVALID rather than truncated.
const MaxContentBytes = 16 << 20

// MaxDocumentBytes bounds one plain-text document that the write path
// retains in segments (a document longer than one segment, off the LLM
// path: retain.DefaultSegmentBytes): extraction, vectors and the graph
// then take memory by the segment, and what grows with the document is
// its text, held a few times over (as read, as stored, as the database
// driver copies it). Larger documents are refused with EINVALID.
const MaxDocumentBytes = 64 << 20

// Message is one turn of a conversation.
type Message struct {
	ID      string    // external id of the turn (e.g. "D1:3"); optional
	Speaker string    // who said it
	Text    string    // what was said
	Time    time.Time // when; zero means the request's At
}

// RetainRequest is one item to remember: either plain Text (split into
// sentences) or a conversation of Messages, never both.
type RetainRequest struct {
	BankID   string
	Source   string // channel; default SourceAPI
	ItemID   string // external id; default: the content hash
	Text     string
	Speaker  string // speaker of Text, if any
	Messages []Message
	// At is the item's own time (when it was said or written); zero means
	// now. Relative dates in the text are resolved against it.
	At       time.Time
	Tags     []string
	Metadata map[string]string
	// ShortTerm makes every fact of the item a short-term memory (seed
	// 002): it gets an ExpiresAt one TTL after it is retained (the bank's
	// BankSettings.ShortTermTTL, else DefaultShortTermTTL), and the
	// expire pass then promotes it to long-term if it was recalled or is
	// important, or prunes it. The same text retained short-term and
	// long-term is two items, not a duplicate.
	ShortTerm bool
}

// TextBytes is the text the request brings: its text and its messages'.
// What an import or a retain pipeline holds grows with it.
func (r *RetainRequest) TextBytes() int {
	n := len(r.Text)
	for i := range r.Messages {
		n += len(r.Messages[i].Text)
	}
	return n
}

// RetainResult reports what a retain did.
type RetainResult struct {
	DocumentID string `json:"document_id"`
	// Duplicate is true when the same item with the same content had been
	// retained before: nothing was written.
	Duplicate bool `json:"duplicate"`
	// Replaced is true when an older version of the item was replaced.
	Replaced bool `json:"replaced,omitempty"`
	Facts    int  `json:"facts"`
	Entities int  `json:"entities"`
	Links    int  `json:"links"`
	// Outcomes says, for each fact extracted from the item in order, what
	// became of it (seed 002's resolve_and_store); none when the whole
	// item was a Duplicate.
	Outcomes []FactOutcome `json:"outcomes,omitempty"`
}

// Outcome actions: what a retain did with one extracted fact.
const (
	// OutcomeStored: the fact is new and was stored.
	OutcomeStored = "stored"
	// OutcomeSkipped: the fact repeats an existing one (FactOutcome.Of),
	// which was reinforced instead; nothing new was stored.
	OutcomeSkipped = "skipped"
	// OutcomeSuperseded: the fact was stored and replaces existing facts
	// (FactOutcome.Of), now superseded by it.
	OutcomeSuperseded = "superseded"
)

// FactOutcome is what a retain did with one extracted fact.
type FactOutcome struct {
	// FactID is the stored fact's id; empty when it was skipped.
	FactID string `json:"fact_id,omitempty"`
	Text   string `json:"text"`
	// Action is OutcomeStored, OutcomeSkipped or OutcomeSuperseded.
	Action string `json:"action"`
	// Of is the existing fact a skipped fact repeats, or the facts a
	// superseding fact replaced.
	Of []string `json:"of,omitempty"`
}
