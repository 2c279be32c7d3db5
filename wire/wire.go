// Package wire holds the JSON shapes mnemo speaks to the outside: what
// `mnemo … --json` prints, and what the HTTP API and the MCP server will
// serve. Each shape is defined once, with explicit json tags, and built
// from memory's types by one New… function, so every adapter prints the
// same bytes for the same thing and a renamed Go field never renames a
// key. Scripts rely on these keys: adding a key is fine, renaming or
// removing one is a breaking change (wire_test.go pins them).
//
// Only shapes live here, and how a caller spells a time (ParseTime), no
// other logic: adapters import mnemo, memory and wire, and nothing
// imports an adapter. The export file format is not a wire shape: it
// lives with the stores' contract in memory (export).
package wire

import (
	"encoding/json"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Bank is a memory bank.
type Bank struct {
	Name      string       `json:"name"`
	Embedder  string       `json:"embedder,omitempty"`
	Dimension int          `json:"dimension,omitempty"`
	CreatedAt time.Time    `json:"created_at"`
	Settings  BankSettings `json:"settings,omitzero"` // wire/http.go; absent when all unset
}

// NewBank is b's wire shape.
func NewBank(b *memory.Bank) Bank {
	return Bank{Name: b.Name, Embedder: b.Embedder, Dimension: b.Dimension, CreatedAt: b.CreatedAt, Settings: NewBankSettings(b.Settings)}
}

// Stats counts what a bank holds. Its keys are in alphabetical order.
type Stats struct {
	Active    int    `json:"active"`
	Archived  int    `json:"archived"`
	Bank      string `json:"bank"`
	Chunks    int    `json:"chunks"`
	Documents int    `json:"documents"`
	Entities  int    `json:"entities"`
	Facts     int    `json:"facts"`
	Links     int    `json:"links"`
	// Quarantined facts read as instructions to a model and wait for a
	// person's approval; Redacted facts had a secret masked.
	Quarantined int `json:"quarantined"`
	Redacted    int `json:"redacted"`
	Relations   int `json:"relations"`
	Superseded  int `json:"superseded"`
}

// NewStats is the wire shape of bank's counts.
func NewStats(bank string, s *memory.Stats) Stats {
	return Stats{
		Active: s.Active, Archived: s.Archived, Bank: bank, Chunks: s.Chunks, Documents: s.Documents,
		Entities: s.Entities, Facts: s.Facts, Links: s.Links, Quarantined: s.Quarantined, Redacted: s.Redacted,
		Relations: s.Relations, Superseded: s.Superseded,
	}
}

// RetainResult is what one retain did.
type RetainResult struct {
	DocumentID string `json:"document_id"`
	// Duplicate: the same item with the same content had been retained
	// before; nothing was written.
	Duplicate bool `json:"duplicate"`
	// Replaced: an older version of the item was replaced.
	Replaced bool `json:"replaced,omitempty"`
	Facts    int  `json:"facts"`
	Entities int  `json:"entities"`
	Links    int  `json:"links"`
	// Outcomes: what became of each extracted fact (outcome.go).
	Outcomes []FactOutcome `json:"outcomes,omitempty"`
}

// NewRetainResult is r's wire shape; nil for nil.
func NewRetainResult(r *memory.RetainResult) *RetainResult {
	if r == nil {
		return nil
	}
	return &RetainResult{DocumentID: r.DocumentID, Duplicate: r.Duplicate, Replaced: r.Replaced, Facts: r.Facts, Entities: r.Entities, Links: r.Links, Outcomes: NewFactOutcomes(r.Outcomes)}
}

// NewRetainResults is the wire shape of each of rs.
func NewRetainResults(rs []*memory.RetainResult) []*RetainResult {
	if rs == nil {
		return nil
	}
	out := make([]*RetainResult, len(rs))
	for i, r := range rs {
		out[i] = NewRetainResult(r)
	}
	return out
}

// Job is a unit of queued work (retain --async). Result is the job's
// JSON result when done (a RetainResult for a retain).
type Job struct {
	ID        string           `json:"id"`
	Bank      string           `json:"bank"`
	Kind      string           `json:"kind"`
	Status    memory.JobStatus `json:"status"`
	Attempts  int              `json:"attempts"`
	Error     string           `json:"error,omitempty"`
	Result    json.RawMessage  `json:"result,omitempty"`
	CreatedAt time.Time        `json:"created_at"`
	UpdatedAt time.Time        `json:"updated_at"`
}

// NewJob is j's wire shape. A result that is not valid JSON is left out.
func NewJob(j *memory.Job) Job {
	out := Job{ID: j.ID, Bank: j.BankID, Kind: j.Kind, Status: j.Status, Attempts: j.Attempts, Error: j.Error, CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt}
	if json.Valid(j.Result) {
		out.Result = j.Result
	}
	return out
}

// JobsRun is what one run of the due work did: the jobs run and the idle
// sessions extracted.
type JobsRun struct {
	Jobs     int `json:"jobs"`
	Sessions int `json:"sessions"`
}

// Session is a streaming session's buffer after an append or a flush,
// with what an extraction it triggered retained.
type Session struct {
	Session      string          `json:"session"`
	Messages     int             `json:"messages"`
	UserMessages int             `json:"user_messages"`
	FirstSeq     int64           `json:"first_seq,omitempty"`
	LastSeq      int64           `json:"last_seq,omitempty"`
	LastAt       *time.Time      `json:"last_at,omitempty"`
	Retained     []*RetainResult `json:"retained,omitempty"`
	Dropped      int             `json:"dropped,omitempty"`
	ExtractError string          `json:"extract_error,omitempty"`
}

// NewSession is the wire shape of a session's state st and of what its
// extraction did: the documents retained, the messages dropped (nothing
// in them to remember) and, when it failed, why.
func NewSession(st memory.SessionState, retained []*memory.RetainResult, dropped int, extractError string) Session {
	out := Session{
		Session: st.Session, Messages: st.Messages, UserMessages: st.UserMessages, FirstSeq: st.FirstSeq, LastSeq: st.LastSeq,
		Retained: NewRetainResults(retained), Dropped: dropped, ExtractError: extractError,
	}
	if !st.LastAt.IsZero() {
		out.LastAt = &st.LastAt
	}
	return out
}

// FollowLine is one line a followed folder's file gave (import --watch):
// what retaining it did, or why it was skipped.
type FollowLine struct {
	File   string        `json:"file"`
	Offset int64         `json:"offset"`
	Result *RetainResult `json:"result,omitempty"`
	Error  string        `json:"error,omitempty"`
}

// NewFollowLine is the wire shape of the line of file at offset: its
// result, or err (shown as memory.ErrorMessage) when it was skipped.
func NewFollowLine(file string, offset int64, res *memory.RetainResult, err error) FollowLine {
	out := FollowLine{File: file, Offset: offset, Result: NewRetainResult(res)}
	if err != nil {
		out.Error = memory.ErrorMessage(err)
	}
	return out
}

// BankList is the banks there are.
type BankList struct {
	Banks []Bank `json:"banks"`
}

// Deleted names what a delete removed.
type Deleted struct {
	Deleted string `json:"deleted"`
}
