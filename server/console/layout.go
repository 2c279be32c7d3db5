package console

import (
	"encoding/json"
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
)

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04")
	},
	"iso": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339)
	},
	"page":  pageURL,
	"frag":  fragURL,
	"f2":    func(f float64) string { return fmt.Sprintf("%.2f", f) },
	"join":  strings.Join,
	"tiers": func() []memory.Tier { return zoneTiers },
	"explain": func(r memory.Result, strategy string) string {
		s, ok := r.Explain[strategy]
		if !ok {
			return "—"
		}
		return fmt.Sprintf("#%d · %.3f", s.Rank, s.Score)
	},
	"tierOf": func(c map[memory.Tier]int, t memory.Tier) int { return c[t] },
}

// zoneTiers are the memory zone's depth bands, surface first.
var zoneTiers = []memory.Tier{memory.TierEpisodic, memory.TierSemantic, memory.TierPattern}

// The memory zone's geometry (SVG user units).
const (
	zoneLabelW = 64  // the bands' labels, left
	zoneLaneW  = 184 // one entity type's lane
	zoneHeadH  = 28  // the lanes' labels, top
	zoneBandH  = 150 // one tier's band
	zoneCols   = 8   // dots per row in a cell
	zoneStep   = 21  // between dots
)

// zoneView is the memory zone laid out: lanes (entity types) across,
// bands (tiers) down, a dot per shown entity and a trail segment per tier
// change of a shown entity.
type zoneView struct {
	Width, Height int
	Lanes         []zoneLane
	Bands         []zoneBand
	Dots          []zoneDot
	Trail         []zoneTrail
	Cells         []zoneCell
	// Names names the shown entities by id (the tier log has ids).
	Names map[string]string
}

type zoneLane struct {
	Type  memory.EntityType
	X, CX int
}

type zoneBand struct {
	Tier  memory.Tier
	Y, CY int
}

type zoneDot struct {
	Entity   *memory.Entity
	Tier     memory.Tier
	Href     string
	X, Y     int
	R        float64
	Low      bool
	Salience string
}

type zoneTrail struct {
	EntityID, Name string
	From, To       memory.Tier
	Promotion      bool
	X, Y1, Y2      int
	Reason         string
	At             time.Time
}

type zoneCell struct {
	Type        memory.EntityType
	Tier        memory.Tier
	Count, More int
	X, Y        int
}

// zoneMap lays z out.
func zoneMap(bank string, z *mnemo.Zone) zoneView {
	types := sortedKeys(z.Counts)
	v := zoneView{Width: zoneLabelW + max(len(types), 1)*zoneLaneW, Height: zoneHeadH + len(zoneTiers)*zoneBandH, Names: map[string]string{}}
	laneX := map[memory.EntityType]int{}
	for i, t := range types {
		x := zoneLabelW + i*zoneLaneW
		laneX[t] = x
		v.Lanes = append(v.Lanes, zoneLane{Type: t, X: x, CX: x + zoneLaneW/2})
	}
	bandY := map[memory.Tier]int{}
	for i, t := range zoneTiers {
		y := zoneHeadH + i*zoneBandH
		bandY[t] = y
		v.Bands = append(v.Bands, zoneBand{Tier: t, Y: y, CY: y + zoneBandH/2})
	}
	shown := map[string]zoneDot{}
	seen := map[[2]string]int{}
	for _, e := range z.Entities {
		tier := e.Tier
		if tier == "" {
			tier = memory.TierEpisodic
		}
		k := [2]string{string(e.Type), string(tier)}
		i := seen[k]
		seen[k]++
		d := zoneDot{Entity: e, Tier: tier, Href: pageURL(bank, "entities", e.ID),
			X: laneX[e.Type] + 16 + (i%zoneCols)*zoneStep, Y: bandY[tier] + 16 + (i/zoneCols)*zoneStep,
			R: 3 + 6*min(max(e.Salience, 0), 1), Low: e.Salience < z.LowSalience, Salience: fmt.Sprintf("%.3f", e.Salience)}
		v.Dots = append(v.Dots, d)
		shown[e.ID] = d
		v.Names[e.ID] = e.Name
	}
	for _, t := range types {
		for _, tier := range zoneTiers {
			n := z.Counts[t][tier]
			shownHere := seen[[2]string{string(t), string(tier)}]
			v.Cells = append(v.Cells, zoneCell{Type: t, Tier: tier, Count: n, More: n - shownHere,
				X: laneX[t] + zoneLaneW - 8, Y: bandY[tier] + zoneBandH - 8})
		}
	}
	for _, c := range z.Trail {
		d, ok := shown[c.EntityID]
		if !ok {
			continue
		}
		from, okF := bandY[c.From]
		to, okT := bandY[c.To]
		if !okF || !okT {
			continue
		}
		v.Trail = append(v.Trail, zoneTrail{EntityID: c.EntityID, Name: d.Entity.Name, From: c.From, To: c.To,
			Promotion: memory.TierRank(c.To) > memory.TierRank(c.From), X: d.X,
			Y1: from + zoneBandH/2, Y2: to + zoneBandH/2, Reason: c.Reason, At: c.At})
	}
	return v
}

// The entity page's bi-temporal strip (SVG user units).
const stripW = 320

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

// graphData is an entity's neighbourhood as cytoscape elements, JSON.
func graphData(bank string, n *mnemo.Neighbourhood) string {
	type data map[string]any
	type el struct {
		Data data `json:"data"`
	}
	out := struct {
		Centre string `json:"centre"`
		More   int    `json:"more"`
		Nodes  []el   `json:"nodes"`
		Edges  []el   `json:"edges"`
	}{Centre: n.Entity.ID, More: n.More}
	node := func(e *memory.Entity) el {
		return el{data{"id": e.ID, "label": e.Name, "type": string(e.Type), "tier": string(e.Tier),
			"href": pageURL(bank, "graph", e.ID), "expand": fragURL(bank, "neighbours", e.ID)}}
	}
	out.Nodes = append(out.Nodes, node(n.Entity))
	for _, nb := range n.Neighbours {
		out.Nodes = append(out.Nodes, node(nb.Entity))
		label := fmt.Sprintf("%d together", nb.Cooccurrences)
		if len(nb.Relations) > 0 {
			var preds []string
			for _, r := range nb.Relations {
				preds = append(preds, r.Predicate)
			}
			label = strings.Join(preds, ", ")
		}
		out.Edges = append(out.Edges, el{data{"id": n.Entity.ID + "→" + nb.Entity.ID, "source": n.Entity.ID,
			"target": nb.Entity.ID, "label": label, "weight": nb.Weight()}})
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "{}" // maps of strings and ints always marshal
	}
	return string(b)
}
