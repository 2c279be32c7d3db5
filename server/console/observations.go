package console

import (
	"net/http"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
)

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
