package wire

import (
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Forget is the result of a forget (mnemo forget --json, the forget
// endpoint and tool): the facts selected (their text only in a dry run),
// and, when not a dry run, the counts and the audit record's id.
type Forget struct {
	Bank   string       `json:"bank"`
	DryRun bool         `json:"dry_run"`
	Facts  []ForgetFact `json:"facts"`
	Counts ForgetCounts `json:"counts"`
	Record string       `json:"record,omitempty"`
}

// NewForget is res's wire shape; Facts is never null.
func NewForget(res *memory.ForgetResult) Forget {
	out := Forget{Bank: res.Bank, DryRun: res.DryRun, Facts: make([]ForgetFact, len(res.Facts)), Counts: NewForgetCounts(res.Counts), Record: res.Record}
	for i, f := range res.Facts {
		out.Facts[i] = ForgetFact{ID: f.ID, Text: f.Text}
	}
	return out
}

// ForgetFact is one selected fact.
type ForgetFact struct {
	ID   string `json:"id"`
	Text string `json:"text,omitempty"`
}

// ForgetCounts is memory.ForgetCounts: what a forget removed or changed.
type ForgetCounts struct {
	Facts           int `json:"facts"`
	Links           int `json:"links"`
	Refs            int `json:"refs"`
	Entities        int `json:"entities"`
	Relations       int `json:"relations"`
	RelationsShrunk int `json:"relations_shrunk"`
	Observations    int `json:"observations"`
	Reconsolidate   int `json:"reconsolidate"`
	Chunks          int `json:"chunks"`
	Documents       int `json:"documents"`
	Dreams          int `json:"dreams"`
}

// NewForgetCounts shapes counts.
func NewForgetCounts(c memory.ForgetCounts) ForgetCounts { return ForgetCounts(c) }

// ForgetSelector is a forget's selector as the caller gave it
// (memory.ForgetAudit): ids is how many ids were named.
type ForgetSelector struct {
	IDs      int        `json:"ids,omitempty"`
	Query    string     `json:"query,omitempty"`
	Entity   string     `json:"entity,omitempty"`
	Document string     `json:"document,omitempty"`
	From     *time.Time `json:"from,omitempty"`
	To       *time.Time `json:"to,omitempty"`
}

// ForgetRecord is one audit record of a forget: never the forgotten text.
type ForgetRecord struct {
	ID       string         `json:"id"`
	At       time.Time      `json:"at"`
	Actor    string         `json:"actor"`
	Selector ForgetSelector `json:"selector"`
	Counts   ForgetCounts   `json:"counts"`
}

// NewForgetRecords shapes audit records.
func NewForgetRecords(rs []*memory.ForgetRecord) []ForgetRecord {
	out := make([]ForgetRecord, 0, len(rs))
	for _, r := range rs {
		s := r.Selector
		sel := ForgetSelector{IDs: s.IDs, Query: s.Query, Entity: s.Entity, Document: s.Document}
		if !s.From.IsZero() {
			sel.From = &s.From
		}
		if !s.To.IsZero() {
			sel.To = &s.To
		}
		out = append(out, ForgetRecord{ID: r.ID, At: r.At, Actor: r.Actor, Selector: sel, Counts: NewForgetCounts(r.Counts)})
	}
	return out
}
