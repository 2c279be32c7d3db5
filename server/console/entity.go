package console

import (
	"net/http"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
)

// entities lists a bank's entities, a page at a time.
func (c *Console) entities(w http.ResponseWriter, r *http.Request) error {
	bank, err := c.bank(r, httpapi.ScopeRead)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	page, err := c.eng.Entities(r.Context(), bank, memory.EntityQuery{Type: memory.EntityType(q.Get("type")), Limit: entityPage, Cursor: q.Get("cursor")})
	if err != nil {
		return err
	}
	return c.render(w, r, "entities", map[string]any{"V": c.view(r, bank, "entities"), "Page": page, "Type": q.Get("type")})
}

// entity is an entity's page: about, its facts on a bi-temporal
// timeline with their history, relations and citing observations.
func (c *Console) entity(w http.ResponseWriter, r *http.Request) error {
	bank, err := c.bank(r, httpapi.ScopeRead)
	if err != nil {
		return err
	}
	h, err := c.eng.EntityHistory(r.Context(), bank, r.PathValue("id"), 0)
	if err != nil {
		return err
	}
	return c.render(w, r, "entity", map[string]any{"V": c.view(r, bank, "entities"), "H": h, "Rows": biTemporal(h)})
}

// factRow is one fact of an entity page: its two times as bars on one
// scale (when it was true in the world; when mnemo knew it), and, for a
// superseded fact, the fact that replaced it.
type factRow struct {
	Fact       *memory.Fact
	Superseded bool
	ReplacedBy *memory.Fact
	// ValidX/ValidW and KnownX/KnownW place the bars.
	ValidX, ValidW, KnownX, KnownW int
	ValidTo                        time.Time
}

// biTemporal lists an entity's facts, each followed by the versions it
// replaced, placed on one time scale.
func biTemporal(h *mnemo.EntityHistory) []factRow {
	byID := map[string]*memory.Fact{}
	var rows []factRow
	for _, f := range h.Facts {
		byID[f.ID] = f
		rows = append(rows, factRow{Fact: f})
		for _, p := range h.Replaced[f.ID] {
			byID[p.ID] = p
			rows = append(rows, factRow{Fact: p, Superseded: true})
		}
	}
	var lo, hi time.Time
	widen := func(t time.Time) {
		if t.IsZero() {
			return
		}
		if lo.IsZero() || t.Before(lo) {
			lo = t
		}
		if t.After(hi) {
			hi = t
		}
	}
	for _, r := range rows {
		f := r.Fact
		widen(f.EventTime())
		widen(f.ValidTo)
		widen(f.CreatedAt)
		widen(f.ExpiredAt)
	}
	span := hi.Sub(lo)
	x := func(t time.Time) int {
		if t.IsZero() || span <= 0 {
			return stripW
		}
		return int(float64(t.Sub(lo)) / float64(span) * float64(stripW-4))
	}
	for i := range rows {
		r := &rows[i]
		f := r.Fact
		if r.Superseded {
			r.ReplacedBy = byID[f.SupersededBy]
		}
		validEnd := f.ValidTo
		if validEnd.IsZero() {
			validEnd = f.OccurredEnd
		}
		r.ValidTo = validEnd
		r.ValidX = x(f.EventTime())
		r.ValidW = max(x(validEnd)-r.ValidX, 4)
		r.KnownX = x(f.CreatedAt)
		r.KnownW = max(x(f.ExpiredAt)-r.KnownX, 4)
	}
	return rows
}

// The entity page's bi-temporal strip (SVG user units).
const stripW = 320
