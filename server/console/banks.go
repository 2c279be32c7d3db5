package console

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
)

// bankRow is one line of the banks view.
type bankRow struct {
	Bank       *memory.Bank
	Page, Frag string
	Stats      *memory.Stats
	// Observations counts the bank's observations up to obsCountCap;
	// ObservationsMore says there are more.
	Observations     int
	ObservationsMore bool
	Blocks           int
	LastRetain       time.Time
	Queued           int
}

// bankRow counts what bank b holds.
func (c *Console) bankRow(r *http.Request, b *memory.Bank) (bankRow, error) {
	ctx := r.Context()
	row := bankRow{Bank: b, Page: pageURL(b.Name), Frag: fragURL(b.Name)}
	var err error
	if row.Stats, err = c.eng.Stats(ctx, b.Name); err != nil {
		return row, err
	}
	obs, err := c.eng.Observations(ctx, b.Name, obsCountCap+1)
	if err != nil && memory.ErrorCode(err) != memory.EUNAVAILABLE {
		return row, err
	}
	row.Observations, row.ObservationsMore = min(len(obs), obsCountCap), len(obs) > obsCountCap
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
