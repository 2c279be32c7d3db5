package console

import (
	"net/http"
	"slices"
	"strings"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
)

// Page sizes of the views.
const (
	recentFacts   = 20  // a bank's page
	timelineFacts = 100 // a timeline page
	listLimit     = 200 // observations, jobs and runs
	dreamsLimit   = 100
	queueScan     = 500  // jobs read to count the queue
	obsCountCap   = 1000 // observations counted, beyond: "1000+"
	entityPage    = 100  // the entity list
)

// routes registers every fragment and edit, each in its view's file
// (banks.go, zone.go, entity.go, timeline.go, graph.go, observations.go,
// recall.go, runs.go, curate.go). The scope each needs is the HTTP API's
// for the same call (docs/http.md).
func (c *Console) routes() {
	c.handle("GET /ui/x/{$}", c.banks)
	c.handle("GET /ui/x/banks/{bank}", c.bankPage)
	c.handle("GET /ui/x/banks/{bank}/counts", c.counts)
	c.handle("POST /ui/x/banks/{bank}/settings", c.saveSettings)
	c.handle("GET /ui/x/banks/{bank}/zone", c.zone)
	c.handle("GET /ui/x/banks/{bank}/entities", c.entities)
	c.handle("GET /ui/x/banks/{bank}/entities/{id}", c.entity)
	c.handle("GET /ui/x/banks/{bank}/timeline", c.timeline)
	c.handle("GET /ui/x/banks/{bank}/graph/{id}", c.graph)
	c.handle("GET /ui/x/banks/{bank}/neighbours/{id}", c.neighbours)
	c.handle("GET /ui/x/banks/{bank}/observations", c.observations)
	c.handle("GET /ui/x/banks/{bank}/recall", c.recallPage)
	c.handle("GET /ui/x/banks/{bank}/runs", c.runs)
	c.handle("POST /ui/x/banks/{bank}/jobs/{id}/retry", c.retryJob)
	c.handle("GET /ui/x/banks/{bank}/curate", c.curate)
	c.handle("POST /ui/x/banks/{bank}/facts/{id}/{action}", c.setFactStatus)
	c.handle("POST /ui/x/banks/{bank}/forget", c.forget)
	c.handle("POST /ui/x/banks/{bank}/blocks/{name}", c.saveBlock)
	notFound := func(w http.ResponseWriter, r *http.Request) error {
		return memory.Errorf(memory.ENOTFOUND, "no console page at %s", strings.TrimPrefix(r.URL.Path, "/ui/x"))
	}
	c.handle("GET /ui/x/{path...}", notFound)
	c.handle("POST /ui/x/{path...}", notFound)
}

// bankView is what every bank view shares: the bank, its URLs and what
// the key may do.
type bankView struct {
	Bank     string
	Page     string // pageURL(bank)
	Frag     string // fragURL(bank)
	Current  string // the view's name, for the navigation
	CanWrite bool
	CanAdmin bool
}

// view is the bankView of bank for the request's key, on the view named
// current.
func (c *Console) view(r *http.Request, bank, current string) bankView {
	return bankView{Bank: bank, Page: pageURL(bank), Frag: fragURL(bank), Current: current,
		CanWrite: c.can(r, bank, httpapi.ScopeWrite), CanAdmin: c.can(r, bank, httpapi.ScopeAdmin)}
}

// sortedKeys returns m's keys in order.
func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
