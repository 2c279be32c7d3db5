package console

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
	"github.com/mnemo-ai/mnemo/wire"
)

// Page sizes of the views.
const (
	recentFacts   = 20  // a bank's page
	timelineFacts = 100 // a timeline page
	listLimit     = 200 // observations, jobs and runs
	dreamsLimit   = 100
	queueScan     = 500 // jobs read to count the queue
	entityPage    = 100 // the entity list
)

// routes registers every fragment and edit. The scope each needs is the
// HTTP API's for the same call (docs/http.md).
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

func (c *Console) view(r *http.Request, bank, current string) bankView {
	return bankView{Bank: bank, Page: pageURL(bank), Frag: fragURL(bank), Current: current,
		CanWrite: c.can(r, bank, httpapi.ScopeWrite), CanAdmin: c.can(r, bank, httpapi.ScopeAdmin)}
}

// bankRow is one line of the banks view.
type bankRow struct {
	Bank         *memory.Bank
	Page, Frag   string
	Stats        *memory.Stats
	Observations int
	Blocks       int
	LastRetain   time.Time
	Queued       int
}

// banks lists the banks the key may read; each row then asks for its
// counts (counts), so that the page costs one bank's counts per request
// however many banks there are.
func (c *Console) banks(w http.ResponseWriter, r *http.Request) error {
	all, err := c.eng.Banks(r.Context())
	if err != nil {
		return err
	}
	var rows []bankRow
	for _, b := range all {
		if c.can(r, b.Name, httpapi.ScopeRead) {
			rows = append(rows, bankRow{Bank: b, Page: pageURL(b.Name), Frag: fragURL(b.Name)})
		}
	}
	return c.render(w, r, "banks", map[string]any{"Banks": rows})
}

// counts is a bank's counts: a row of the banks view (as=row) or the
// bank page's block.
func (c *Console) counts(w http.ResponseWriter, r *http.Request) error {
	bank, err := c.bank(r, httpapi.ScopeRead)
	if err != nil {
		return err
	}
	b, err := c.eng.Bank(r.Context(), bank)
	if err != nil {
		return err
	}
	row, err := c.bankRow(r, b)
	if err != nil {
		return err
	}
	name := "counts"
	if r.URL.Query().Get("as") == "row" {
		name = "bank-row"
	}
	return c.render(w, r, name, row)
}

// bankRow counts what bank b holds.
func (c *Console) bankRow(r *http.Request, b *memory.Bank) (bankRow, error) {
	ctx := r.Context()
	row := bankRow{Bank: b, Page: pageURL(b.Name), Frag: fragURL(b.Name)}
	var err error
	if row.Stats, err = c.eng.Stats(ctx, b.Name); err != nil {
		return row, err
	}
	obs, err := c.eng.Observations(ctx, b.Name, 0)
	if err != nil && memory.ErrorCode(err) != memory.EUNAVAILABLE {
		return row, err
	}
	row.Observations = len(obs)
	blocks, err := c.eng.Blocks(ctx, b.Name)
	if err != nil {
		return row, err
	}
	row.Blocks = len(blocks)
	page, err := c.eng.Facts(ctx, b.Name, memory.FactQuery{Limit: 1})
	if err != nil {
		return row, err
	}
	if len(page.Facts) > 0 {
		row.LastRetain = page.Facts[0].CreatedAt
	}
	jobs, err := c.eng.Jobs(ctx, b.Name, queueScan)
	if err != nil {
		return row, err
	}
	for _, j := range jobs {
		if j.Status == memory.JobQueued || j.Status == memory.JobRunning {
			row.Queued++
		}
	}
	return row, nil
}

// bankPage is a bank's counts, settings and most recent facts.
func (c *Console) bankPage(w http.ResponseWriter, r *http.Request) error {
	bank, err := c.bank(r, httpapi.ScopeRead)
	if err != nil {
		return err
	}
	return c.renderBank(w, r, bank, "")
}

func (c *Console) renderBank(w http.ResponseWriter, r *http.Request, bank, saved string) error {
	b, err := c.eng.Bank(r.Context(), bank)
	if err != nil {
		return err
	}
	page, err := c.eng.Facts(r.Context(), bank, memory.FactQuery{Limit: recentFacts})
	if err != nil {
		return err
	}
	return c.render(w, r, "bank", map[string]any{"V": c.view(r, bank, "bank"), "Facts": page.Facts, "Settings": b.Settings, "Saved": saved})
}

// saveSettings changes a bank's disposition, mission and background (the
// API's PATCH /v1/banks/{bank}: admin).
func (c *Console) saveSettings(w http.ResponseWriter, r *http.Request) error {
	bank, err := c.bank(r, httpapi.ScopeAdmin)
	if err != nil {
		return err
	}
	if err := r.ParseForm(); err != nil {
		return invalid("form", err)
	}
	var set memory.BankSettings
	for _, f := range []struct {
		name string
		to   *int
	}{{"skepticism", &set.Skepticism}, {"literalism", &set.Literalism}, {"empathy", &set.Empathy}} {
		if v := strings.TrimSpace(r.PostForm.Get(f.name)); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return invalid(f.name, err)
			}
			*f.to = n
		}
	}
	set.Mission = r.PostForm.Get("mission")
	set.Background = r.PostForm.Get("background")
	if _, err := c.eng.ChangeBank(r.Context(), bank, func(s *memory.BankSettings) {
		s.Skepticism, s.Literalism, s.Empathy = set.Skepticism, set.Literalism, set.Empathy
		s.Mission, s.Background = set.Mission, set.Background
	}); err != nil {
		return err
	}
	return c.renderBank(w, r, bank, "Settings saved.")
}

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

// timeline is a bank's facts over time with filters and the as-of
// slider.
func (c *Console) timeline(w http.ResponseWriter, r *http.Request) error {
	bank, err := c.bank(r, httpapi.ScopeRead)
	if err != nil {
		return err
	}
	f, err := parseTimeline(r)
	if err != nil {
		return err
	}
	tl, err := c.eng.Timeline(r.Context(), bank, f.query())
	if err != nil {
		return err
	}
	return c.render(w, r, "timeline", map[string]any{"V": c.view(r, bank, "timeline"), "T": tl, "F": f, "Slider": slider(tl),
		"Kinds": []memory.FactKind{memory.KindWorld, memory.KindExperience}, "Categories": categories})
}

// categories are the fact categories the timeline filters by.
var categories = []memory.Category{memory.CategoryPersonal, memory.CategoryProject, memory.CategoryDecision,
	memory.CategoryPreference, memory.CategoryEvent, memory.CategoryContact, memory.CategoryTechnical}

// timelineForm is the timeline's filters as the form sends them.
type timelineForm struct {
	Kind, Category, Tag, Speaker string
	AsOf                         time.Time // zero: now
}

// parseTimeline reads the timeline's filters: asof is Unix seconds (the
// slider) or a time wire.ParseTime reads.
func parseTimeline(r *http.Request) (timelineForm, error) {
	q := r.URL.Query()
	f := timelineForm{Kind: q.Get("kind"), Category: q.Get("category"), Tag: strings.TrimSpace(q.Get("tag")), Speaker: strings.TrimSpace(q.Get("speaker"))}
	if v := strings.TrimSpace(q.Get("asof")); v != "" && v != "now" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			f.AsOf = time.Unix(n, 0).UTC()
		} else if f.AsOf, err = wire.ParseTime(v); err != nil {
			return f, invalid("asof", err)
		}
	}
	return f, nil
}

func (f timelineForm) query() mnemo.TimelineQuery {
	q := mnemo.TimelineQuery{AsOf: f.AsOf, Facts: memory.FactQuery{Limit: timelineFacts, Speaker: f.Speaker}}
	if f.Kind != "" {
		q.Facts.Kinds = []memory.FactKind{memory.FactKind(f.Kind)}
	}
	if f.Category != "" {
		q.Facts.Categories = []memory.Category{memory.Category(f.Category)}
	}
	if f.Tag != "" {
		q.Facts.Tags = []string{f.Tag}
	}
	return q
}

// sliderView is the as-of slider: Unix seconds.
type sliderView struct {
	Min, Max, Value int64
	Enabled         bool
}

func slider(tl *mnemo.Timeline) sliderView {
	if tl.Oldest.IsZero() {
		return sliderView{}
	}
	s := sliderView{Min: tl.Oldest.Unix(), Max: tl.Newest.Unix() + 1, Enabled: true}
	s.Value = s.Max
	if !tl.AsOf.IsZero() {
		s.Value = min(max(tl.AsOf.Unix(), s.Min), s.Max)
	}
	return s
}

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

// observations lists observations (with sources, evidence and history)
// and dreams, marked as such.
func (c *Console) observations(w http.ResponseWriter, r *http.Request) error {
	bank, err := c.bank(r, httpapi.ScopeRead)
	if err != nil {
		return err
	}
	obs, err := c.eng.Observations(r.Context(), bank, listLimit)
	if err != nil && memory.ErrorCode(err) != memory.EUNAVAILABLE {
		return err
	}
	dreams, err := c.eng.Dreams(r.Context(), bank, dreamsLimit)
	if err != nil && memory.ErrorCode(err) != memory.EUNAVAILABLE {
		return err
	}
	return c.render(w, r, "observations", map[string]any{"V": c.view(r, bank, "observations"), "Observations": obs, "Dreams": dreams})
}

// recallPage is the recall playground: a question, the results with
// explain, and the packed context as an agent receives it.
func (c *Console) recallPage(w http.ResponseWriter, r *http.Request) error {
	bank, err := c.bank(r, httpapi.ScopeRead)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	data := map[string]any{"V": c.view(r, bank, "recall"), "Q": q.Get("q"), "Budget": q.Get("budget")}
	if text := strings.TrimSpace(q.Get("q")); text != "" {
		query := memory.Query{BankID: bank, Text: text, Explain: true}
		if b := q.Get("budget"); b != "" {
			if query.Budget, err = strconv.Atoi(b); err != nil {
				return invalid("budget", err)
			}
		}
		rec, err := c.eng.Recall(r.Context(), query)
		if err != nil {
			return err
		}
		data["Rec"], data["Strategies"] = rec, strategiesOf(rec)
	}
	return c.render(w, r, "recall", data)
}

// strategies are the recall strategies explain reports, in the order the
// playground shows them; others (context, coverage, rerank…) follow by
// name.
var strategies = []string{memory.StrategySemantic, memory.StrategyKeyword, memory.StrategyGraph, memory.StrategyTemporal}

// strategiesOf lists the strategies that explain any of rec's results,
// known ones first (strategies), then the others by name.
func strategiesOf(rec *memory.Recollection) []string {
	seen := map[string]bool{}
	for _, r := range rec.Results {
		for k := range r.Explain {
			seen[k] = true
		}
	}
	var out []string
	for _, k := range strategies {
		if seen[k] {
			out = append(out, k)
			delete(seen, k)
		}
	}
	return append(out, sortedKeys(seen)...)
}

// runs lists consolidation runs and jobs.
func (c *Console) runs(w http.ResponseWriter, r *http.Request) error {
	bank, err := c.bank(r, httpapi.ScopeRead)
	if err != nil {
		return err
	}
	return c.renderRuns(w, r, bank, "")
}

func (c *Console) renderRuns(w http.ResponseWriter, r *http.Request, bank, note string) error {
	runs, err := c.eng.Runs(r.Context(), bank, listLimit)
	if err != nil {
		return err
	}
	jobs, err := c.eng.Jobs(r.Context(), bank, listLimit)
	if err != nil {
		return err
	}
	return c.render(w, r, "runs", map[string]any{"V": c.view(r, bank, "runs"), "Runs": runs, "Jobs": jobs, "Note": note})
}

// retryJob queues a failed job again (write, as a retain).
func (c *Console) retryJob(w http.ResponseWriter, r *http.Request) error {
	bank, err := c.bank(r, httpapi.ScopeWrite)
	if err != nil {
		return err
	}
	j, err := c.eng.RetryJob(r.Context(), bank, r.PathValue("id"))
	if err != nil {
		return err
	}
	return c.renderRuns(w, r, bank, "Queued again as job "+j.ID+".")
}

// curate is the curation page: recent facts with invalidate / restore,
// forget with a dry run, and the memory blocks.
func (c *Console) curate(w http.ResponseWriter, r *http.Request) error {
	bank, err := c.bank(r, httpapi.ScopeRead)
	if err != nil {
		return err
	}
	return c.renderCurate(w, r, bank, nil, "")
}

func (c *Console) renderCurate(w http.ResponseWriter, r *http.Request, bank string, forgot *forgetView, note string) error {
	page, err := c.eng.Facts(r.Context(), bank, memory.FactQuery{Limit: recentFacts, Statuses: []memory.Status{memory.StatusActive, memory.StatusArchived}})
	if err != nil {
		return err
	}
	blocks, err := c.eng.Blocks(r.Context(), bank)
	if err != nil {
		return err
	}
	return c.render(w, r, "curate", map[string]any{"V": c.view(r, bank, "curate"), "Facts": page.Facts, "Blocks": blocks,
		"Forget": forgot, "Note": note, "MaxBlockChars": memory.MaxBlockChars})
}

// setFactStatus invalidates or restores one fact (write).
func (c *Console) setFactStatus(w http.ResponseWriter, r *http.Request) error {
	bank, err := c.bank(r, httpapi.ScopeWrite)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	switch r.PathValue("action") {
	case "invalidate":
		_, err = c.eng.Invalidate(r.Context(), bank, []string{id}, "console")
	case "restore":
		_, err = c.eng.Restore(r.Context(), bank, []string{id})
	default:
		err = memory.Errorf(memory.ENOTFOUND, "no fact action %q: invalidate or restore", r.PathValue("action"))
	}
	if err != nil {
		return err
	}
	return c.renderCurate(w, r, bank, nil, "Fact "+id+": "+r.PathValue("action")+"d.")
}

// forgetView is a forget's form and, after it, what went or would go.
type forgetView struct {
	Query, Entity, IDs string
	Result             *memory.ForgetResult
}

// forget forgets for good (write), or with dry_run lists what would go.
func (c *Console) forget(w http.ResponseWriter, r *http.Request) error {
	bank, err := c.bank(r, httpapi.ScopeWrite)
	if err != nil {
		return err
	}
	if err := r.ParseForm(); err != nil {
		return invalid("form", err)
	}
	v := &forgetView{Query: strings.TrimSpace(r.PostForm.Get("query")), Entity: strings.TrimSpace(r.PostForm.Get("entity")), IDs: strings.TrimSpace(r.PostForm.Get("ids"))}
	sel := mnemo.ForgetSelector{Query: v.Query, Entity: v.Entity, IDs: strings.Fields(strings.ReplaceAll(v.IDs, ",", " ")),
		DryRun: r.PostForm.Get("mode") != "forget", Actor: "console"}
	if v.Result, err = c.eng.Forget(r.Context(), bank, sel); err != nil {
		return err
	}
	return c.renderCurate(w, r, bank, v, "")
}

// saveBlock writes a memory block's value and limit (write).
func (c *Console) saveBlock(w http.ResponseWriter, r *http.Request) error {
	bank, err := c.bank(r, httpapi.ScopeWrite)
	if err != nil {
		return err
	}
	if err := r.ParseForm(); err != nil {
		return invalid("form", err)
	}
	opts := mnemo.BlockOptions{}
	if v := strings.TrimSpace(r.PostForm.Get("max_chars")); v != "" {
		if opts.MaxChars, err = strconv.Atoi(v); err != nil {
			return invalid("max_chars", err)
		}
	}
	name := r.PathValue("name")
	if _, err := c.eng.WriteBlock(r.Context(), bank, name, r.PostForm.Get("value"), opts); err != nil {
		return err
	}
	return c.renderCurate(w, r, bank, nil, "Block "+name+" saved.")
}

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

// sortedKeys returns m's keys in order.
func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
