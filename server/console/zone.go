package console

import (
	"fmt"
	"net/http"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
)

// zone is seed 004's memory zone.
func (c *Console) zone(w http.ResponseWriter, r *http.Request) error {
	bank, err := c.bank(r, httpapi.ScopeRead)
	if err != nil {
		return err
	}
	z, err := c.eng.Zone(r.Context(), bank, 0)
	if err != nil {
		return err
	}
	return c.render(w, r, "zone", map[string]any{"V": c.view(r, bank, "zone"), "Z": z, "Map": zoneMap(bank, z)})
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
