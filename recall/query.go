package recall

import (
	"strings"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/memory"
)

// Validate checks a query: a valid bank, non-empty valid UTF-8 text of at
// most memory.MaxQueryBytes, a sane limit and budget, known categories.
func Validate(q *memory.Query) error {
	if err := memory.ValidateBankName(q.BankID); err != nil {
		return err
	}
	if !utf8.ValidString(q.Text) {
		return memory.Errorf(memory.EINVALID, "query is not valid UTF-8")
	}
	if strings.TrimSpace(q.Text) == "" {
		return memory.Errorf(memory.EINVALID, "query is empty")
	}
	if len(q.Text) > memory.MaxQueryBytes {
		return memory.Errorf(memory.EINVALID, "query is %d bytes; the limit is %d", len(q.Text), memory.MaxQueryBytes)
	}
	if q.Limit < 0 || q.Limit > memory.MaxRecallLimit {
		return memory.Errorf(memory.EINVALID, "limit %d is out of range 1-%d", q.Limit, memory.MaxRecallLimit)
	}
	if q.Budget < 0 {
		return memory.Errorf(memory.EINVALID, "token budget %d is negative", q.Budget)
	}
	if err := memory.CheckCategories(q.Filter.Categories); err != nil {
		return err
	}
	switch q.Format {
	case "", memory.FormatText, memory.FormatMarkdown, memory.FormatJSON:
	default:
		return memory.Errorf(memory.EINVALID, "context format %q: want text, markdown or json", q.Format)
	}
	return nil
}

// query validates q (Validate) and fills in its defaults: the limit, the
// token budget and the reference time, which is the as-of time when
// there is one ("last week" and recency are then reckoned from it), else
// the pipeline's now.
func (p *Pipeline) query(q memory.Query) (memory.Query, error) {
	if err := Validate(&q); err != nil {
		return q, err
	}
	if q.Limit == 0 {
		q.Limit = memory.DefaultRecallLimit
	}
	if q.Budget == 0 {
		q.Budget = memory.DefaultTokenBudget
	}
	if q.Now.IsZero() {
		q.Now = q.Filter.AsOf
	}
	if q.Now.IsZero() {
		q.Now = p.Now()
	}
	return q, nil
}
