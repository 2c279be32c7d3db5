package wire

import (
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// StoredObservation is one observation as listed (`mnemo observations
// --json`, GET /v1/banks/{bank}/observations): a pattern consolidation
// synthesised from the facts it names, with its change history.
// LastAccessed is absent when it was never recalled.
type StoredObservation struct {
	ID            string              `json:"id"`
	Text          string              `json:"text"`
	Kind          string              `json:"kind"`
	Status        string              `json:"status"`
	SourceFactIDs []string            `json:"source_fact_ids"`
	EvidenceCount int                 `json:"evidence_count"`
	History       []ObservationChange `json:"history"`
	AccessCount   int                 `json:"access_count"`
	LastAccessed  *time.Time          `json:"last_accessed,omitempty"`
	CreatedAt     time.Time           `json:"created_at"`
	UpdatedAt     time.Time           `json:"updated_at"`
}

// ObservationChange is one entry of an observation's history: what it
// said before, when it changed and why.
type ObservationChange struct {
	Previous  string    `json:"previous"`
	ChangedAt time.Time `json:"changed_at"`
	Reason    string    `json:"reason,omitempty"`
}

// NewStoredObservation is o's wire shape; lists are never null.
func NewStoredObservation(o *memory.Observation) StoredObservation {
	status, kind := o.StatusKind()
	out := StoredObservation{ID: o.ID, Text: o.Text, Kind: string(kind), Status: string(status),
		SourceFactIDs: append([]string{}, o.SourceFactIDs...), EvidenceCount: o.EvidenceCount,
		History: make([]ObservationChange, 0, len(o.History)), AccessCount: o.AccessCount,
		CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
	for _, h := range o.History {
		out.History = append(out.History, ObservationChange{Previous: h.Previous, ChangedAt: h.ChangedAt, Reason: h.Reason})
	}
	if !o.LastAccessed.IsZero() {
		t := o.LastAccessed
		out.LastAccessed = &t
	}
	return out
}

// ObservationList is a bank's observations, newest first (`mnemo
// observations --json`).
type ObservationList struct {
	Observations []StoredObservation `json:"observations"`
}

// NewObservationList is obs's wire shape; never null.
func NewObservationList(obs []*memory.Observation) ObservationList {
	out := ObservationList{Observations: make([]StoredObservation, 0, len(obs))}
	for _, o := range obs {
		out.Observations = append(out.Observations, NewStoredObservation(o))
	}
	return out
}

// Consolidate is the body of POST /v1/banks/{bank}/consolidate: the pass
// to run (empty: the lifecycle pass).
type Consolidate struct {
	Pass string `json:"pass,omitempty"`
}
