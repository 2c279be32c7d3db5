package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits of the recall tool. A tool result lands whole in the model's
// context, so it is small by default and bounded always: the complaint
// about the reference MCP memory server is its 50k-token dumps.
const (
	DefaultRecallLimit  = 10   // results per page
	MaxRecallLimit      = 50   // results per page at most
	DefaultRecallBudget = 1500 // tokens per page, text and structured content together
	MinRecallBudget     = 200
	MaxRecallBudget     = 8000
)

// RecallInput are the arguments of the recall tool.
type RecallInput struct {
	Query   string   `json:"query" jsonschema:"what you want to know, as a question or keywords naming people, things and times, e.g. 'Where does Alice live?', 'user food preferences', 'decisions about project X last month'"`
	Bank    string   `json:"bank,omitempty" jsonschema:"memory bank to search; omit to use the server's default bank"`
	Limit   int      `json:"limit,omitempty" jsonschema:"results per page, 1-50; default 10"`
	Budget  int      `json:"budget,omitempty" jsonschema:"most tokens this page may take (text and structured result together), 200-8000; default 1500. Results that do not fit move to the next page"`
	Offset  int      `json:"offset,omitempty" jsonschema:"results to skip: pass the next_offset of the previous page to read on; default 0"`
	AsOf    string   `json:"as_of,omitempty" jsonschema:"answer from what was known at this time (RFC 3339 or YYYY-MM-DD); omit for now"`
	History bool     `json:"history,omitempty" jsonschema:"also return facts that were superseded by newer ones (what used to be true)"`
	Tags    []string `json:"tags,omitempty" jsonschema:"only facts retained with any of these tags"`
	// Categories are fact categories, any of.
	Categories []string `json:"categories,omitempty" jsonschema:"only facts of any of these categories: personal, project, decision, preference, event, contact, technical"`
}

// recallSchema is the recall tool's input schema: RecallInput's, with
// the defaults of its numbers for the model to see. Their ranges are in
// the descriptions and checked by recall, not by the schema, whose
// validation errors read worse ("500/1 is greater than 50.000000").
func recallSchema() *jsonschema.Schema {
	s, err := jsonschema.For[RecallInput](nil)
	if err != nil {
		panic(fmt.Sprintf("recall input schema: %v", err)) // a bug in RecallInput's tags
	}
	for name, def := range map[string]int{"limit": DefaultRecallLimit, "budget": DefaultRecallBudget, "offset": 0} {
		s.Properties[name].Default = json.RawMessage(strconv.Itoa(def))
	}
	return s
}

// recallDescription is the recall tool's description.
const recallDescription = `Search long-term memory for what is relevant to a question.

Use it before answering anything that may depend on earlier conversations: the user's preferences, people, places, projects, past decisions, dates. Ask specific questions or keywords ("When did Alice move to Lisbon?", "user's coffee order"); names and time words ("last week", "in 2023") sharpen the search.

Returns the best facts first, each with its date and speaker and what it replaced, as a context text and as structured results (id, text, score). The page is token-budgeted; when more results exist, the result gives next_offset: call again with offset=next_offset to read on, only if you need more.`

// addRecall registers the recall tool.
func (s *Server) addRecall() {
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        "recall",
		Title:       "Recall",
		Description: recallDescription,
		Annotations: &mcp.ToolAnnotations{Title: "Recall", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
		InputSchema: recallSchema(),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in RecallInput) (*mcp.CallToolResult, *wire.RecallPage, error) {
		page, lines, err := s.recall(ctx, req, in)
		if err != nil {
			return nil, nil, s.toolError("recall", err)
		}
		return textResult(recallText(page, lines)), page, nil
	})
}

// recall answers one page of a recall through Engine.Recall: it asks the
// engine for every result up to the page's end (and one more, to know
// whether another page exists) and keeps the page's results, best first,
// while they fit the budget. It returns the page and its context text.
func (s *Server) recall(ctx context.Context, req *mcp.CallToolRequest, in RecallInput) (*wire.RecallPage, string, error) {
	bank, err := s.bank(ctx, req, in.Bank)
	if err != nil {
		return nil, "", err
	}
	if strings.TrimSpace(in.Query) == "" {
		return nil, "", memory.Errorf(memory.EINVALID, "query is empty: say what you want to know")
	}
	limit, budget := in.Limit, in.Budget
	if limit == 0 {
		limit = DefaultRecallLimit
	}
	if budget == 0 {
		budget = DefaultRecallBudget
	}
	switch {
	case limit < 1 || limit > MaxRecallLimit:
		return nil, "", memory.Errorf(memory.EINVALID, "limit %d: use 1 to %d results per page", limit, MaxRecallLimit)
	case budget < MinRecallBudget || budget > MaxRecallBudget:
		return nil, "", memory.Errorf(memory.EINVALID, "budget %d: use %d to %d tokens", budget, MinRecallBudget, MaxRecallBudget)
	case in.Offset < 0:
		return nil, "", memory.Errorf(memory.EINVALID, "offset %d: must be 0 or more", in.Offset)
	case in.Offset+limit > memory.MaxRecallLimit:
		return nil, "", memory.Errorf(memory.EINVALID, "offset %d: recall reads at most the best %d results", in.Offset, memory.MaxRecallLimit)
	}
	q := memory.Query{BankID: bank, Text: in.Query, Limit: min(in.Offset+limit+1, memory.MaxRecallLimit), Budget: budget}
	q.Filter.Tags = in.Tags
	for _, c := range in.Categories {
		q.Filter.Categories = append(q.Filter.Categories, memory.Category(c))
	}
	if in.History {
		q.Filter.Statuses = []memory.Status{memory.StatusActive, memory.StatusSuperseded}
	}
	if in.AsOf != "" {
		t, err := wire.ParseTime(in.AsOf)
		if err != nil {
			return nil, "", err
		}
		q.Filter.AsOf = t
	}
	rec, err := s.eng.Recall(ctx, q)
	if memory.ErrorCode(err) == memory.ENOTFOUND && bank == memory.DefaultBank {
		// The default bank is made by the first retain: before it, an
		// agent's first recall simply finds nothing.
		rec, err = &memory.Recollection{}, nil
	}
	if err != nil {
		return nil, "", err
	}
	page, lines := paginate(bank, rec, in.Offset, limit, budget)
	return page, lines, nil
}

// paginate is the page of rec from offset and its context text: at most
// limit results, taken best first while the page's tokens (its
// structured content and its text together) stay within budget, with the
// first page's observations ahead of them. The first result of a page is
// always taken, clipped to the budget if it alone exceeds it, so a page
// never comes back empty while results remain.
func paginate(bank string, rec *memory.Recollection, offset, limit, budget int) (*wire.RecallPage, string) {
	all := wire.NewRecall(rec)
	page := &wire.RecallPage{Bank: bank, Results: []wire.RecallResult{}, Offset: offset}
	// What every page costs besides its items: the structured page's keys
	// and the text's header and paging line, at their longest.
	envelope := wire.RecallPage{Bank: bank, Tokens: budget, Offset: offset, NextOffset: memory.MaxRecallLimit}
	page.Tokens = jsonTokens(envelope) + countTokens(recallText(&envelope, " "))
	var text strings.Builder
	if offset == 0 {
		// Observations take at most half of what is left: the facts
		// always get room.
		obsBudget := page.Tokens + (budget-page.Tokens)/2
		for i, o := range all.Observations {
			line := observationLine(rec.Observations[i])
			cost := countTokens(line) + jsonTokens(o)
			if len(page.Observations) == 0 {
				cost += countTokens(`"observations":[],`)
			}
			if page.Tokens+cost > obsBudget {
				continue
			}
			page.Observations = append(page.Observations, o)
			text.WriteString(line)
			page.Tokens += cost
		}
	}
	next := offset
	for i := offset; i < len(all.Results) && i < offset+limit; i++ {
		r, block := all.Results[i], resultBlock(rec.Results[i])
		cost := countTokens(block) + jsonTokens(r)
		if page.Tokens+cost > budget {
			if len(page.Results) > 0 {
				break
			}
			r, block = clip(rec.Results[i], r, budget-page.Tokens)
			cost = countTokens(block) + jsonTokens(r)
		}
		page.Results = append(page.Results, r)
		text.WriteString(block)
		page.Tokens += cost
		next = i + 1
	}
	if next < len(all.Results) {
		page.NextOffset = next
	}
	return page, text.String()
}

// recallText is the text content of a page: its context lines and, when
// there is more, how to read on.
func recallText(p *wire.RecallPage, lines string) string {
	var b strings.Builder
	if lines == "" {
		b.WriteString("Nothing relevant remembered.\n")
	} else {
		fmt.Fprintf(&b, "Memories from bank %q, best first:\n", p.Bank)
		b.WriteString(lines)
	}
	if p.NextOffset > 0 {
		fmt.Fprintf(&b, "(More results: call recall again with offset=%d.)\n", p.NextOffset)
	}
	return b.String()
}

// observationLine is the text line of a recalled observation.
func observationLine(o memory.ObservationResult) string {
	return fmt.Sprintf("* (%s) %s\n", o.Observation.Kind, oneLine(o.Observation.Text))
}

// resultBlock is the text of a recalled fact: its line, then what it
// superseded.
func resultBlock(r memory.Result) string {
	var b strings.Builder
	b.WriteString(memory.FormatFact(r.Fact))
	b.WriteByte('\n')
	for _, p := range r.Previously {
		b.WriteString("  " + memory.FormatPrevious(p) + "\n")
	}
	return b.String()
}

// clip shortens a result whose text alone exceeds the tokens left so
// that the result and its text line fit: both keep the first part of the
// fact's text, ending in "…", and its history is left out.
func clip(r memory.Result, w wire.RecallResult, tokens int) (wire.RecallResult, string) {
	f := *r.Fact
	f.Text = ""
	w.Text, w.Previously = "", nil
	// The text appears twice, in the line and in the JSON, where escaping
	// may grow it: give each a little less than half the room.
	room := (tokens - countTokens(memory.FormatFact(&f)+"\n") - jsonTokens(w)) * 4 * 4 / 10
	f.Text = truncate(r.Fact.Text, max(room, 16))
	w.Text = f.Text
	return w, memory.FormatFact(&f) + "\n"
}

// truncate cuts s to at most n bytes at a rune boundary, ending in "…".
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:max(n, 0)] + "…"
}

// countTokens estimates the tokens of s by the rule recall packs its
// context with (recall.CountTokens): a token per four bytes, rounded up.
func countTokens(s string) int { return (len(s) + 3) / 4 }

// jsonTokens estimates the tokens v takes in the structured content.
func jsonTokens(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return countTokens(string(b))
}

// oneLine folds whitespace runs to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
