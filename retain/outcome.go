package retain

import "github.com/mnemo-ai/mnemo/memory"

// outcomes says what became of each extracted fact, in extraction order
// (seed 002's resolve_and_store): skipped as a duplicate of an existing
// fact (r.duplicateOf), stored and superseding existing facts (the
// batch's Supersede), or stored. It reads the batch and changes nothing.
// r is nil off the LLM path, where every fact is stored.
func outcomes(extracted []*memory.Fact, b *memory.WriteBatch, r *resolution) []memory.FactOutcome {
	if len(extracted) == 0 {
		return nil
	}
	var replaced map[string][]string
	for _, sp := range b.Supersede {
		if replaced == nil {
			replaced = map[string][]string{}
		}
		replaced[sp.SupersededBy] = append(replaced[sp.SupersededBy], sp.FactID)
	}
	out := make([]memory.FactOutcome, len(extracted))
	for i, f := range extracted {
		o := memory.FactOutcome{FactID: f.ID, Text: f.Text, Action: memory.OutcomeStored}
		if r != nil {
			if of, ok := r.duplicateOf[f.ID]; ok {
				o = memory.FactOutcome{Text: f.Text, Action: memory.OutcomeSkipped, Of: []string{of}}
			}
		}
		if old := replaced[f.ID]; len(old) > 0 {
			o.Action, o.Of = memory.OutcomeSuperseded, old
		}
		out[i] = o
	}
	return out
}
