package console

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
)

// curate is the curation page: the facts the memory firewall held back
// as instructions to a model, to approve or reject; recent facts with
// invalidate / restore; forget with a dry run; and the memory blocks.
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
	held, err := c.eng.Facts(r.Context(), bank, memory.FactQuery{Limit: recentFacts, Statuses: []memory.Status{memory.StatusQuarantined}})
	if err != nil {
		return err
	}
	blocks, err := c.eng.Blocks(r.Context(), bank)
	if err != nil {
		return err
	}
	return c.render(w, r, "curate", map[string]any{"V": c.view(r, bank, "curate"), "Facts": page.Facts, "Held": held.Facts, "Blocks": blocks,
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
	case "restore", "approve": // approving a held-back fact restores it
		_, err = c.eng.Restore(r.Context(), bank, []string{id})
	case "reject": // rejecting one archives it
		_, err = c.eng.Invalidate(r.Context(), bank, []string{id}, "console: rejected")
	default:
		err = memory.Errorf(memory.ENOTFOUND, "no fact action %q: invalidate, restore, approve or reject", r.PathValue("action"))
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
