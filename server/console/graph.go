package console

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
)

// graph is an entity's neighbourhood page: the graph (drawn by the
// script from the neighbours fragment's data) and the list.
func (c *Console) graph(w http.ResponseWriter, r *http.Request) error {
	bank, err := c.bank(r, httpapi.ScopeRead)
	if err != nil {
		return err
	}
	n, err := c.eng.Neighbourhood(r.Context(), bank, r.PathValue("id"), topN(r))
	if err != nil {
		return err
	}
	return c.render(w, r, "graph", map[string]any{"V": c.view(r, bank, "entities"), "N": n, "Data": graphData(bank, n)})
}

// neighbours is an entity's neighbourhood as JSON, for the graph's
// expansion.
func (c *Console) neighbours(w http.ResponseWriter, r *http.Request) error {
	bank, err := c.bank(r, httpapi.ScopeRead)
	if err != nil {
		return err
	}
	n, err := c.eng.Neighbourhood(r.Context(), bank, r.PathValue("id"), topN(r))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, err = w.Write([]byte(graphData(bank, n)))
	return err
}

// topN is the request's top (neighbours), 0 when absent or bad.
func topN(r *http.Request) int {
	n, _ := strconv.Atoi(r.URL.Query().Get("top"))
	return min(max(n, 0), 200)
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
		d := data{"id": e.ID, "label": e.Name, "type": string(e.Type), "tier": string(e.Tier),
			"href": pageURL(bank, "graph", e.ID), "expand": fragURL(bank, "neighbours", e.ID)}
		if c := n.Communities[e.ID]; c != nil {
			d["community"], d["community_name"], d["colour"] = c.ID, c.Name, communityColour(c.ID)
		}
		return el{d}
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

// communityPalette colours communities: distinct hues, readable on white.
var communityPalette = []string{"#e03131", "#1971c2", "#2f9e44", "#f08c00", "#9c36b5", "#0c8599", "#d6336c", "#5c940d", "#364fc7", "#e8590c"}

// communityColour is the colour of community id: the same on every page
// and after every expansion.
func communityColour(id string) string {
	h := fnv.New32a()
	h.Write([]byte(id))
	return communityPalette[h.Sum32()%uint32(len(communityPalette))]
}
