package wire

import (
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Dream is one dream as listed (`mnemo dreams --json`, GET
// /v1/banks/{bank}/dreams): a cross-domain insight the dream pass found
// between two clusters of the bank's facts — the bridge (the structural
// connection, a few words), the insight (one sentence) and the facts it
// came from. Dreams are never part of recall.
type Dream struct {
	ID            string    `json:"id"`
	Bridge        string    `json:"bridge"`
	Insight       string    `json:"insight"`
	SourceFactIDs []string  `json:"source_fact_ids"`
	CreatedAt     time.Time `json:"created_at"`
}

// NewDream is d's wire shape; its sources are never null.
func NewDream(d *memory.Dream) Dream {
	return Dream{ID: d.ID, Bridge: d.Bridge, Insight: d.Insight, SourceFactIDs: append([]string{}, d.SourceFactIDs...), CreatedAt: d.CreatedAt}
}

// DreamList is a bank's dreams, newest first.
type DreamList struct {
	Dreams []Dream `json:"dreams"`
}

// NewDreamList is ds's wire shape; never null.
func NewDreamList(ds []*memory.Dream) DreamList {
	out := DreamList{Dreams: make([]Dream, 0, len(ds))}
	for _, d := range ds {
		out.Dreams = append(out.Dreams, NewDream(d))
	}
	return out
}

// ObservationIDs names observations to restore (POST
// /v1/banks/{bank}/observations/restore).
type ObservationIDs struct {
	IDs []string `json:"ids" minItems:"1" doc:"observation ids"`
}

// Restored is what `mnemo restore ID...` brought back: the facts and the
// observations whose status changed to active (those already active are
// not listed). Never null.
type Restored struct {
	Facts        []string `json:"facts"`
	Observations []string `json:"observations"`
}

// NewRestored is the wire shape of a restore; never a nil list.
func NewRestored(facts, observations []string) Restored {
	return Restored{Facts: append([]string{}, facts...), Observations: append([]string{}, observations...)}
}
