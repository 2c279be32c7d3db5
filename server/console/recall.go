package console

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/reflection"
	"github.com/mnemo-ai/mnemo/server/httpapi"
)

// recallPage is the recall playground: a question, the results with
// explain, and the packed context as an agent receives it; with a model
// configured, reflect's answer to the question with its trace.
func (c *Console) recallPage(w http.ResponseWriter, r *http.Request) error {
	bank, err := c.bank(r, httpapi.ScopeRead)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	data := map[string]any{"V": c.view(r, bank, "recall"), "Q": q.Get("q"), "Budget": q.Get("budget"), "CanReflect": c.eng.CanReflect()}
	if text := strings.TrimSpace(q.Get("q")); text != "" && q.Get("mode") == "reflect" {
		res, err := c.eng.Reflect(r.Context(), bank, reflection.Request{Question: text})
		if err != nil {
			return err
		}
		data["Reflect"] = &res
		return c.render(w, r, "recall", data)
	}
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
