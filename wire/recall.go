package wire

import (
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Recall is a recall's answer: the observations of its first phase, the
// ranked facts and the packed context string.
type Recall struct {
	// Standing is the bank's fresh standing answer when the query is a
	// question it pinned: first, and absent otherwise.
	Standing     *Standing      `json:"standing,omitempty"`
	Observations []Observation  `json:"observations,omitempty"`
	Results      []RecallResult `json:"results"`
	Context      string         `json:"context"`
}

// Observation is one observation of recall's first phase with the ids of
// the facts bundled with it.
type Observation struct {
	ID    string   `json:"id"`
	Text  string   `json:"text"`
	Kind  string   `json:"kind"`
	Score float64  `json:"score"`
	Facts []string `json:"facts"`
}

// RecallResult is one ranked fact. OccurredAt is its event time (null
// when unknown); Status is set only for a fact that is not active (a
// superseded fact asked for with its history); Previously lists the
// facts it superseded, newest first; Tier is the tier it was recalled
// from, "short_term" or "long_term" (seed 002: results "tagged with
// tier").
type RecallResult struct {
	ID         string                   `json:"id"`
	Text       string                   `json:"text"`
	Score      float64                  `json:"score"`
	OccurredAt *time.Time               `json:"occurred_at"`
	Speaker    string                   `json:"speaker"`
	Explain    map[string]StrategyScore `json:"explain,omitempty"`
	Status     memory.Status            `json:"status,omitempty"`
	Previously []Previous               `json:"previously,omitempty"`
	Tier       memory.FactTier          `json:"tier"`
}

// StrategyScore is a result's rank (1-based) and score in one recall
// strategy (explain mode).
type StrategyScore struct {
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
}

// Previous is a fact a result superseded.
type Previous struct {
	ID      string     `json:"id"`
	Text    string     `json:"text"`
	Speaker string     `json:"speaker,omitempty"`
	ValidTo *time.Time `json:"valid_to,omitempty"`
}

// NewRecall is rec's wire shape. Results is never null.
func NewRecall(rec *memory.Recollection) Recall {
	out := Recall{Results: make([]RecallResult, 0, len(rec.Results)), Context: rec.Context}
	if rec.Standing != nil {
		s := NewStanding(rec.Standing)
		out.Standing = &s
	}
	for _, o := range rec.Observations {
		oj := Observation{ID: o.Observation.ID, Text: o.Observation.Text, Kind: string(o.Observation.Kind), Score: o.Score, Facts: []string{}}
		for _, f := range o.Facts {
			oj.Facts = append(oj.Facts, f.ID)
		}
		out.Observations = append(out.Observations, oj)
	}
	for _, r := range rec.Results {
		j := RecallResult{ID: r.Fact.ID, Text: r.Fact.Text, Score: r.Score, Speaker: r.Fact.Speaker, Tier: r.Tier}
		if j.Tier == "" {
			j.Tier = r.Fact.Tier() // a result recall did not make
		}
		if r.Explain != nil {
			j.Explain = make(map[string]StrategyScore, len(r.Explain))
			for k, x := range r.Explain {
				j.Explain[k] = StrategyScore{Rank: x.Rank, Score: x.Score}
			}
		}
		if r.Fact.Status != memory.StatusActive {
			j.Status = r.Fact.Status
		}
		for _, p := range r.Previously {
			pj := Previous{ID: p.ID, Text: p.Text, Speaker: p.Speaker}
			if !p.ValidTo.IsZero() {
				pj.ValidTo = &p.ValidTo
			}
			j.Previously = append(j.Previously, pj)
		}
		if t := r.Fact.EventTime(); !t.IsZero() {
			j.OccurredAt = &t
		}
		out.Results = append(out.Results, j)
	}
	return out
}
