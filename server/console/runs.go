package console

import (
	"net/http"

	"github.com/mnemo-ai/mnemo/server/httpapi"
)

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
