package wire

import (
	"github.com/mnemo-ai/mnemo/consolidate"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Run is the record of one consolidation pass (`mnemo consolidate
// --json`, and each of `mnemo runs --json`). FinishedAt is absent while
// the pass runs; Reason says why a pass was skipped.
type Run struct {
	ID         string           `json:"id"`
	Bank       string           `json:"bank"`
	Pass       string           `json:"pass"`
	Status     memory.RunStatus `json:"status"`
	Reason     string           `json:"reason,omitempty"`
	StartedAt  time.Time        `json:"started_at"`
	FinishedAt *time.Time       `json:"finished_at,omitempty"`
	Counts     map[string]int   `json:"counts"`
	LLMCalls   int              `json:"llm_calls"`
	Tokens     int              `json:"tokens"`
	Error      string           `json:"error,omitempty"`
}

// NewRun is r's wire shape; counts are never null.
func NewRun(r *memory.Run) Run {
	out := Run{ID: r.ID, Bank: r.BankID, Pass: r.Pass, Status: r.Status, Reason: r.Reason, StartedAt: r.StartedAt,
		Counts: r.Counts, LLMCalls: r.LLMCalls, Tokens: r.Tokens, Error: r.Error}
	if !r.FinishedAt.IsZero() {
		t := r.FinishedAt
		out.FinishedAt = &t
	}
	if out.Counts == nil {
		out.Counts = map[string]int{}
	}
	return out
}

// RunList is a bank's consolidation runs, newest first (`mnemo runs
// --json`).
type RunList struct {
	Runs []Run `json:"runs"`
}

// NewRunList is rs's wire shape; never null.
func NewRunList(rs []*memory.Run) RunList {
	out := RunList{Runs: make([]Run, 0, len(rs))}
	for _, r := range rs {
		out.Runs = append(out.Runs, NewRun(r))
	}
	return out
}

// Tiers is a bank's tier stats (`mnemo tiers --json`): seed 004's
// {"L0", "L1", "L2", "low_salience"}, with the L0 entities eligible for
// early promotion.
type Tiers struct {
	L0             int `json:"L0"`
	L1             int `json:"L1"`
	L2             int `json:"L2"`
	LowSalience    int `json:"low_salience"`
	EarlyPromotion int `json:"early_promotion"`
}

// NewTiers is s's wire shape.
func NewTiers(s *memory.TierStats) Tiers {
	return Tiers{L0: s.L0, L1: s.L1, L2: s.L2, LowSalience: s.LowSalience, EarlyPromotion: s.EarlyPromotion}
}

// NewConsolidationSettings is knobs' wire shape.
func NewConsolidationSettings(knobs []consolidate.Knob) ConsolidationSettings {
	out := ConsolidationSettings{Settings: make([]ConsolidationSetting, 0, len(knobs))}
	for _, k := range knobs {
		out.Settings = append(out.Settings, ConsolidationSetting{Name: k.Name, Value: k.Value, Kind: k.Kind, Overridden: k.Overridden})
	}
	return out
}
