package wire

import (
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// The shapes below are what clients send to the HTTP API (and, where the
// same call exists, to the MCP server). Optional fields carry omitempty:
// the API's schema marks every other field required.

// CreateBank asks for a new bank.
type CreateBank struct {
	Name string `json:"name" doc:"bank name: 1-128 letters, digits, '.', '_', ':' or '-'"`
}

// BankSettings are a bank's disposition (each 1-5, 0 unset) and the
// mission and background text given to reflection.
type BankSettings struct {
	Skepticism int    `json:"skepticism"`
	Literalism int    `json:"literalism"`
	Empathy    int    `json:"empathy"`
	Mission    string `json:"mission"`
	Background string `json:"background"`
	// Consolidation holds the bank's overrides of consolidation numbers
	// and triggers, by name (GET /v1/banks/{bank}/consolidation lists
	// every name with its value).
	Consolidation map[string]string `json:"consolidation,omitempty"`
	// SecretAllow lists the secrets retain keeps instead of masking.
	SecretAllow []string `json:"secret_allow,omitempty"`
}

// NewBankSettings is s's wire shape.
func NewBankSettings(s memory.BankSettings) BankSettings {
	return BankSettings{Skepticism: s.Skepticism, Literalism: s.Literalism, Empathy: s.Empathy, Mission: s.Mission, Background: s.Background, Consolidation: s.Consolidation, SecretAllow: s.SecretAllow}
}

// UpdateBank changes some of a bank's settings: a field left out (null)
// keeps its value.
type UpdateBank struct {
	Skepticism *int    `json:"skepticism,omitempty" minimum:"0" maximum:"5"`
	Literalism *int    `json:"literalism,omitempty" minimum:"0" maximum:"5"`
	Empathy    *int    `json:"empathy,omitempty" minimum:"0" maximum:"5"`
	Mission    *string `json:"mission,omitempty"`
	Background *string `json:"background,omitempty"`
	// Consolidation sets consolidation overrides by name; an empty value
	// removes the override (back to the default). Names left out keep
	// their value.
	Consolidation map[string]string `json:"consolidation,omitempty" doc:"consolidation settings to override, by name (\"salience_half_life\": \"45d\"); an empty value goes back to the default"`
	// SecretAllow replaces the bank's allow-list of secrets retain keeps
	// as they are ([] empties it).
	SecretAllow *[]string `json:"secret_allow,omitempty" doc:"secrets retain keeps instead of masking them as [REDACTED:kind] (a public demo key); replaces the list"`
}

// ConsolidationSetting is one consolidation number or trigger of a bank
// and its value (the default, or the bank's override).
type ConsolidationSetting struct {
	Name       string `json:"name"`
	Value      string `json:"value"`
	Kind       string `json:"kind" doc:"how the value is spelled: duration (72h, 30d, off, 03:00), number, integer, switch (on/off), list (a,b), timezone"`
	Overridden bool   `json:"overridden" doc:"the bank overrides the default"`
}

// ConsolidationSettings lists a bank's consolidation settings by name.
type ConsolidationSettings struct {
	Settings []ConsolidationSetting `json:"settings"`
}

// Retain is one item to remember. OccurredAt is RFC 3339 or
// YYYY-MM-DD[ HH:MM] (ParseTime); Async queues it and answers with a job;
// ShortTerm makes it short-term memory (memory.RetainRequest.ShortTerm).
type Retain struct {
	Text       string   `json:"text" doc:"what to remember"`
	Speaker    string   `json:"speaker,omitempty"`
	OccurredAt string   `json:"occurred_at,omitempty" doc:"when it was said: RFC 3339 or YYYY-MM-DD[ HH:MM]; default now"`
	Source     string   `json:"source,omitempty" doc:"source channel (chat, note, email, …); default api"`
	ItemID     string   `json:"item_id,omitempty" doc:"external item id; default the content hash"`
	Tags       []string `json:"tags,omitempty"`
	Async      bool     `json:"async,omitempty" doc:"queue the retain and answer 202 with the job"`
	ShortTerm  bool     `json:"short_term,omitempty" doc:"remember it as short-term memory: it expires after the bank's TTL (default 48 h) unless it was recalled or is important, in which case it becomes long-term"`
}

// RecallRequest is one recall: the query and every option of
// memory.Query. Times are RFC 3339 or YYYY-MM-DD[ HH:MM] (ParseTime).
type RecallRequest struct {
	Query  string   `json:"query"`
	Limit  int      `json:"limit,omitempty" minimum:"0" doc:"number of results; default 10"`
	Budget int      `json:"budget,omitempty" minimum:"0" doc:"token budget of the context; default 2048"`
	Format string   `json:"format,omitempty" enum:"text,markdown,json" doc:"format of the context string"`
	Kinds  []string `json:"kinds,omitempty" doc:"fact kinds to keep: world, experience"`
	Tags   []string `json:"tags,omitempty" doc:"keep facts with any of these tags"`
	// Categories keeps facts of any of these categories.
	Categories []string `json:"categories,omitempty" doc:"fact categories to keep (any of): personal, project, decision, preference, event, contact, technical"`
	From       string   `json:"from,omitempty" doc:"event time lower bound"`
	To         string   `json:"to,omitempty" doc:"event time upper bound"`
	AsOf       string   `json:"as_of,omitempty" doc:"answer from what was known at this time"`
	History    bool     `json:"history,omitempty" doc:"include superseded facts"`
	Archived   bool     `json:"archived,omitempty" doc:"include archived facts"`
	Sensitive  bool     `json:"sensitive,omitempty" doc:"include facts classified sensitive"`
	Explain    bool     `json:"explain,omitempty" doc:"each result's rank and score per strategy"`
}

// Document is a retained item as it was given, with the chunks its
// facts came from.
type Document struct {
	ID          string            `json:"id"`
	Bank        string            `json:"bank"`
	Source      string            `json:"source"`
	ItemID      string            `json:"item_id"`
	ContentHash string            `json:"content_hash"`
	Content     string            `json:"content"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	Tags        []string          `json:"tags,omitempty"`
	OccurredAt  *time.Time        `json:"occurred_at,omitempty"`
	CreatedAt   time.Time         `json:"created_at"`
	Chunks      []Chunk           `json:"chunks"`
}

// Chunk is one piece of a document's raw text.
type Chunk struct {
	ID    string `json:"id"`
	Index int    `json:"index"`
	Text  string `json:"text"`
}

// NewDocument is the wire shape of d with its chunks. Chunks is never
// null.
func NewDocument(d *memory.Document, chunks []*memory.Chunk) Document {
	out := Document{
		ID: d.ID, Bank: d.BankID, Source: d.Source, ItemID: d.ItemID, ContentHash: d.ContentHash, Content: d.Content,
		Metadata: d.Metadata, Tags: d.Tags, CreatedAt: d.CreatedAt, Chunks: make([]Chunk, 0, len(chunks)),
	}
	if !d.OccurredAt.IsZero() {
		out.OccurredAt = &d.OccurredAt
	}
	for _, c := range chunks {
		out.Chunks = append(out.Chunks, Chunk{ID: c.ID, Index: c.Index, Text: c.Text})
	}
	return out
}

// JobList is a bank's jobs, newest first.
type JobList struct {
	Jobs []Job `json:"jobs"`
}

// Health is a liveness or readiness answer.
type Health struct {
	Status string `json:"status"`
}

// Error is every error the HTTP API answers: a memory error code
// (invalid, not_found, conflict, unauthorized, forbidden, unavailable,
// internal) and a message safe to show.
type Error struct {
	Error ErrorBody `json:"error"`
}

// ErrorBody is an error's code and message.
type ErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// MemoryRequest is the memory.RetainRequest r asks for in bank. A time that
// does not parse is EINVALID; the rest is checked by the retain itself.
func (r Retain) MemoryRequest(bank string) (memory.RetainRequest, error) {
	req := memory.RetainRequest{BankID: bank, Text: r.Text, Speaker: r.Speaker, Source: r.Source, ItemID: r.ItemID, Tags: r.Tags, ShortTerm: r.ShortTerm}
	if r.OccurredAt != "" {
		t, err := ParseTime(r.OccurredAt)
		if err != nil {
			return req, err
		}
		req.At = t
	}
	return req, nil
}

// MemoryQuery is the memory.Query r asks of bank. History includes superseded
// facts and Archived archived ones, beside the active; a kind or a time
// that is not known is EINVALID.
func (r RecallRequest) MemoryQuery(bank string) (memory.Query, error) {
	q := memory.Query{BankID: bank, Text: r.Query, Limit: r.Limit, Budget: r.Budget, Format: r.Format, Explain: r.Explain}
	q.Filter.Tags = r.Tags
	q.Filter.Sensitive = r.Sensitive
	for _, c := range r.Categories {
		q.Filter.Categories = append(q.Filter.Categories, memory.Category(c))
	}
	if err := memory.CheckCategories(q.Filter.Categories); err != nil {
		return q, err
	}
	for _, k := range r.Kinds {
		switch kind := memory.FactKind(k); kind {
		case memory.KindWorld, memory.KindExperience:
			q.Filter.Kinds = append(q.Filter.Kinds, kind)
		default:
			return q, memory.Errorf(memory.EINVALID, "unknown fact kind %q: use %s or %s", k, memory.KindWorld, memory.KindExperience)
		}
	}
	if r.History || r.Archived {
		q.Filter.Statuses = []memory.Status{memory.StatusActive}
		if r.History {
			q.Filter.Statuses = append(q.Filter.Statuses, memory.StatusSuperseded)
		}
		if r.Archived {
			q.Filter.Statuses = append(q.Filter.Statuses, memory.StatusArchived)
		}
	}
	for _, t := range []struct {
		name string
		in   string
		out  *time.Time
	}{{"from", r.From, &q.Filter.From}, {"to", r.To, &q.Filter.To}, {"as_of", r.AsOf, &q.Filter.AsOf}} {
		if t.in == "" {
			continue
		}
		v, err := ParseTime(t.in)
		if err != nil {
			return q, memory.Errorf(memory.EINVALID, "%s: %s", t.name, memory.ErrorMessage(err))
		}
		*t.out = v
	}
	if !q.Filter.From.IsZero() && !q.Filter.To.IsZero() && q.Filter.To.Before(q.Filter.From) {
		return q, memory.Errorf(memory.EINVALID, "to is before from")
	}
	return q, nil
}

// ForgetRequest asks to forget facts for good (POST …/forget): ids, or a
// query (at most limit of what it recalls), an entity (name or alias), a
// document id, an event-time range [from, to), ANDed when several are
// set. DryRun lists what would go and changes nothing.
type ForgetRequest struct {
	IDs      []string `json:"ids,omitempty" doc:"fact ids"`
	Query    string   `json:"query,omitempty" doc:"forget what a recall of this query returns"`
	Limit    int      `json:"limit,omitempty" minimum:"0" doc:"facts a query selects; default 10"`
	Entity   string   `json:"entity,omitempty" doc:"the facts that mention this entity (name or alias)"`
	Document string   `json:"document,omitempty" doc:"the facts of this document id"`
	From     string   `json:"from,omitempty" doc:"event time lower bound (inclusive)"`
	To       string   `json:"to,omitempty" doc:"event time upper bound (exclusive)"`
	DryRun   bool     `json:"dry_run,omitempty" doc:"list what would be forgotten, change nothing"`
}

// ForgetLog is a bank's forget audit records, newest first.
type ForgetLog struct {
	Records []ForgetRecord `json:"records"`
}

// FactIDs names facts to restore.
type FactIDs struct {
	IDs []string `json:"ids" minItems:"1" doc:"fact ids"`
}

// InvalidateFacts names facts to take out of recall, reversibly, and why.
type InvalidateFacts struct {
	IDs    []string `json:"ids" minItems:"1" doc:"fact ids"`
	Reason string   `json:"reason,omitempty" doc:"why, as the caller says it"`
}

// UpsertEntity adds an entity by hand, or a mention to the entity of
// that name.
type UpsertEntity struct {
	Name    string   `json:"name"`
	Type    string   `json:"type,omitempty" doc:"person, place, organization, …; default thing"`
	Aliases []string `json:"aliases,omitempty"`
}

// AddRelation adds a relation by hand between two existing entities
// (each by id, name or alias). ValidFrom is RFC 3339 or YYYY-MM-DD[ HH:MM];
// default now.
type AddRelation struct {
	Subject    string   `json:"subject"`
	Predicate  string   `json:"predicate" doc:"e.g. works_at"`
	Object     string   `json:"object"`
	Confidence float64  `json:"confidence,omitempty" minimum:"0" maximum:"1" doc:"default 1"`
	ValidFrom  string   `json:"valid_from,omitempty" doc:"when it began to hold; default now"`
	FactIDs    []string `json:"fact_ids,omitempty" doc:"facts that support it"`
}

// RelationList is a list of relations.
type RelationList struct {
	Relations []Relation `json:"relations"`
}

// WriteBlock replaces a memory block's value; MaxChars and Label, when
// set, change its limit and label first.
type WriteBlock struct {
	Value    string `json:"value"`
	MaxChars int    `json:"max_chars,omitempty" minimum:"0" doc:"the block's limit in characters; default unchanged"`
	Label    string `json:"label,omitempty" doc:"what the block is for; default unchanged"`
}

// AppendBlock appends text to a memory block.
type AppendBlock struct {
	Text string `json:"text"`
}

// ReplaceBlock replaces the one occurrence of Old in a memory block by New.
type ReplaceBlock struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// CreateKey asks for a new API key: for one bank or "*" (every bank), at
// a scope. ExpiresAt is RFC 3339 or YYYY-MM-DD[ HH:MM]; default never.
type CreateKey struct {
	Bank      string `json:"bank" doc:"a bank name, or * for every bank"`
	Scope     string `json:"scope" enum:"read,write,admin"`
	Name      string `json:"name,omitempty" doc:"a label for people"`
	ExpiresAt string `json:"expires_at,omitempty" doc:"when the key stops working; default never"`
}
