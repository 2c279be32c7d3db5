package wire

import "github.com/mnemo-ai/mnemo/memory"

// FactOutcome is what a retain did with one extracted fact: action
// "stored", "skipped" (a duplicate of the fact in of, reinforced instead)
// or "superseded" (stored, replacing the facts in of).
type FactOutcome struct {
	FactID string   `json:"fact_id,omitempty"`
	Text   string   `json:"text"`
	Action string   `json:"action"`
	Of     []string `json:"of,omitempty"`
}

// NewFactOutcomes is the wire shape of each of os; nil for none.
func NewFactOutcomes(os []memory.FactOutcome) []FactOutcome {
	if len(os) == 0 {
		return nil
	}
	out := make([]FactOutcome, len(os))
	for i, o := range os {
		out[i] = FactOutcome{FactID: o.FactID, Text: o.Text, Action: o.Action, Of: o.Of}
	}
	return out
}
