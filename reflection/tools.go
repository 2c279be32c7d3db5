package reflection

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Tool names, as the model calls them and the trace records them.
const (
	ToolRecall       = "recall"
	ToolObservations = "search_observations"
	ToolAbout        = "about"
	ToolExpand       = "expand"
	ToolStanding     = "standing_answers"
	ToolAnswer       = "answer"
)

// Tool bounds.
const (
	// DefaultRecallLimit is how many memories a recall tool call returns
	// when the model does not say; MaxRecallLimit the most it may ask.
	DefaultRecallLimit = 10
	MaxRecallLimit     = 30
	// AboutFacts is how many of an entity's facts the about tool shows.
	AboutFacts = 20
	// ExpandBytes bounds the document text the expand tool shows around
	// the fact's chunk.
	ExpandBytes = 4000
)

var (
	recallTool = memory.Tool{Name: ToolRecall,
		Description: "Search the memory bank for facts (and the observations that summarise them) relevant to a query. Returns each memory as [id] text. Optional filters narrow the search.",
		Parameters: json.RawMessage(`{"type":"object","properties":{
"query":{"type":"string","description":"what to look for, in words"},
"kinds":{"type":"array","items":{"type":"string","enum":["world","experience"]},"description":"keep only facts of these kinds"},
"categories":{"type":"array","items":{"type":"string"},"description":"keep only facts of these categories (personal, project, decision, preference, event, contact, technical)"},
"tags":{"type":"array","items":{"type":"string"},"description":"keep only facts with any of these tags"},
"from":{"type":"string","description":"keep facts whose event time is at or after this date (YYYY-MM-DD or RFC 3339)"},
"to":{"type":"string","description":"keep facts whose event time is before this date"},
"as_of":{"type":"string","description":"answer from what the bank knew at this moment (YYYY-MM-DD or RFC 3339)"},
"limit":{"type":"integer","minimum":1,"maximum":30}
},"required":["query"],"additionalProperties":false}`)}
	observationsTool = memory.Tool{Name: ToolObservations,
		Description: "Search only the observations: patterns, trends and transitions consolidated from many facts. Returns each as [id] (kind) text with the ids of its source facts.",
		Parameters: json.RawMessage(`{"type":"object","properties":{
"query":{"type":"string"},
"limit":{"type":"integer","minimum":1,"maximum":30}
},"required":["query"],"additionalProperties":false}`)}
	aboutTool = memory.Tool{Name: ToolAbout,
		Description: "Everything the bank knows about one entity (a person, place, project…) by name or alias: its facts, newest first, and its relations to other entities.",
		Parameters: json.RawMessage(`{"type":"object","properties":{
"name":{"type":"string"}
},"required":["name"],"additionalProperties":false}`)}
	expandTool = memory.Tool{Name: ToolExpand,
		Description: "Show the raw source text a fact was extracted from: its chunk and the document around it. Use it when a fact is too terse to answer from.",
		Parameters: json.RawMessage(`{"type":"object","properties":{
"id":{"type":"string","description":"a fact id, as shown in brackets"}
},"required":["id"],"additionalProperties":false}`)}
	standingTool = memory.Tool{Name: ToolStanding,
		Description: "The bank's standing answers: questions it keeps answered (mental models, such as what the user prefers), each with its current answer and the ids of the memories it rests on. Only answers whose evidence still stands are listed.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)}
	answerTool = memory.Tool{Name: ToolAnswer,
		Description: "Give the final answer, with the ids of the memories it rests on. Call it once, when you are done.",
		Parameters: json.RawMessage(`{"type":"object","properties":{
"answer":{"type":"string"},
"memory_ids":{"type":"array","items":{"type":"string"}}
},"required":["answer","memory_ids"],"additionalProperties":false}`)}

	// tools are offered at every step but the last.
	tools = []memory.Tool{recallTool, observationsTool, aboutTool, expandTool, standingTool, answerTool}
)

// Tools returns the tools the loop offers the model, answer last.
func Tools() []memory.Tool { return append([]memory.Tool(nil), tools...) }

// recallArgs are the recall tool's arguments.
type recallArgs struct {
	Query      string   `json:"query"`
	Kinds      []string `json:"kinds"`
	Categories []string `json:"categories"`
	Tags       []string `json:"tags"`
	From       string   `json:"from"`
	To         string   `json:"to"`
	AsOf       string   `json:"as_of"`
	Limit      int      `json:"limit"`
}

// exec runs one tool; it returns the text for the model and the memory
// ids it showed.
func (r *run) exec(ctx context.Context, c memory.ToolCall) (string, []string, error) {
	args := c.Arguments
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	switch c.Name {
	case ToolRecall:
		var a recallArgs
		if err := strictJSON(args, &a); err != nil {
			return "", nil, err
		}
		q, err := r.query(a)
		if err != nil {
			return "", nil, err
		}
		rec, err := r.loop.Memory.Recall(ctx, q)
		if err != nil {
			return "", nil, err
		}
		return formatRecall(rec, true)
	case ToolObservations:
		var a struct {
			Query string `json:"query"`
			Limit int    `json:"limit"`
		}
		if err := strictJSON(args, &a); err != nil {
			return "", nil, err
		}
		q, err := r.query(recallArgs{Query: a.Query, Limit: a.Limit})
		if err != nil {
			return "", nil, err
		}
		rec, err := r.loop.Memory.Recall(ctx, q)
		if err != nil {
			return "", nil, err
		}
		return formatRecall(rec, false)
	case ToolAbout:
		var a struct {
			Name string `json:"name"`
		}
		if err := strictJSON(args, &a); err != nil {
			return "", nil, err
		}
		if strings.TrimSpace(a.Name) == "" {
			return "", nil, memory.Errorf(memory.EINVALID, "about needs a name")
		}
		ab, err := r.loop.Memory.About(ctx, r.bank, a.Name, AboutFacts)
		if err != nil {
			return "", nil, err
		}
		return formatAbout(ab, r.req.AsOf)
	case ToolExpand:
		var a struct {
			ID string `json:"id"`
		}
		if err := strictJSON(args, &a); err != nil {
			return "", nil, err
		}
		if a.ID == "" {
			return "", nil, memory.Errorf(memory.EINVALID, "expand needs the id of a fact")
		}
		f, chunks, err := r.loop.Memory.FactSource(ctx, r.bank, a.ID)
		if err != nil {
			return "", nil, err
		}
		if !r.req.AsOf.IsZero() && f.CreatedAt.After(r.req.AsOf) {
			return "", nil, memory.Errorf(memory.ENOTFOUND, "no fact %s as of %s", a.ID, r.req.AsOf.Format(time.RFC3339))
		}
		return formatExpand(f, chunks), []string{f.ID}, nil
	case ToolStanding:
		if err := strictJSON(args, &struct{}{}); err != nil {
			return "", nil, err
		}
		if !r.req.AsOf.IsZero() {
			return "", nil, memory.Errorf(memory.EINVALID, "standing answers are today's: they cannot answer as of %s", r.req.AsOf.Format(time.RFC3339))
		}
		qs, err := r.loop.Memory.StandingAnswers(ctx, r.bank)
		if err != nil {
			return "", nil, err
		}
		return formatStanding(qs)
	case ToolAnswer:
		return "", nil, memory.Errorf(memory.EINVALID, "answer needs a non-empty answer")
	}
	return "", nil, memory.Errorf(memory.EINVALID, "no tool %q (the tools are %s, %s, %s, %s, %s and %s)", c.Name, ToolRecall, ToolObservations, ToolAbout, ToolExpand, ToolStanding, ToolAnswer)
}

// strictJSON decodes a tool's arguments, refusing unknown fields.
func strictJSON(raw json.RawMessage, v any) error {
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return memory.Errorf(memory.EINVALID, "arguments: %v", err)
	}
	return nil
}

// query is the recall query of a tool call: the run's as-of bounds the
// one the model asks for (it can look further back, never past what the
// question allows).
func (r *run) query(a recallArgs) (memory.Query, error) {
	q := memory.Query{BankID: r.bank, Text: strings.TrimSpace(a.Query), Limit: a.Limit}
	if q.Text == "" {
		return q, memory.Errorf(memory.EINVALID, "query is empty")
	}
	switch {
	case q.Limit < 0 || q.Limit > MaxRecallLimit:
		return q, memory.Errorf(memory.EINVALID, "limit %d: want 1 to %d", q.Limit, MaxRecallLimit)
	case q.Limit == 0:
		q.Limit = DefaultRecallLimit
	}
	for _, k := range a.Kinds {
		switch memory.FactKind(k) {
		case memory.KindWorld, memory.KindExperience:
			q.Filter.Kinds = append(q.Filter.Kinds, memory.FactKind(k))
		default:
			return q, memory.Errorf(memory.EINVALID, "kind %q: want world or experience", k)
		}
	}
	for _, c := range a.Categories {
		q.Filter.Categories = append(q.Filter.Categories, memory.Category(c))
	}
	if err := memory.CheckCategories(q.Filter.Categories); err != nil {
		return q, err
	}
	q.Filter.Tags = a.Tags
	var err error
	if q.Filter.From, err = parseTime("from", a.From); err != nil {
		return q, err
	}
	if q.Filter.To, err = parseTime("to", a.To); err != nil {
		return q, err
	}
	if q.Filter.AsOf, err = parseTime("as_of", a.AsOf); err != nil {
		return q, err
	}
	if asOf := r.req.AsOf; !asOf.IsZero() && (q.Filter.AsOf.IsZero() || q.Filter.AsOf.After(asOf)) {
		q.Filter.AsOf = asOf
	}
	if !q.Filter.AsOf.IsZero() {
		q.Now = q.Filter.AsOf
	}
	return q, nil
}

// parseTime reads a tool's time argument: "" is zero.
func parseTime(name, s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	for _, l := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, memory.Errorf(memory.EINVALID, "%s %q: use YYYY-MM-DD or RFC 3339", name, s)
}

// line renders a fact as one tool-result line: "[id] [date] speaker: text".
func line(f *memory.Fact) string {
	s := "[" + f.ID + "] " + strings.TrimPrefix(memory.FormatFact(f), "- ")
	if f.Status != "" && f.Status != memory.StatusActive {
		s += " (" + string(f.Status) + ")"
	}
	return s
}

// formatRecall renders a recollection: its observations, and its facts
// unless only observations were asked for.
func formatRecall(rec *memory.Recollection, facts bool) (string, []string, error) {
	var b strings.Builder
	var ids []string
	if len(rec.Observations) > 0 {
		b.WriteString("Observations:\n")
		for _, o := range rec.Observations {
			fmt.Fprintf(&b, "[%s] (%s) %s\n", o.Observation.ID, o.Observation.Kind, oneLine(o.Observation.Text))
			ids = append(ids, o.Observation.ID)
			for _, f := range o.Facts {
				if facts {
					b.WriteString("  " + line(f) + "\n")
					ids = append(ids, f.ID)
				}
			}
			if !facts && len(o.Observation.SourceFactIDs) > 0 {
				fmt.Fprintf(&b, "  sources: %s\n", strings.Join(o.Observation.SourceFactIDs, ", "))
			}
		}
	}
	if facts && len(rec.Results) > 0 {
		b.WriteString("Facts:\n")
		for _, r := range rec.Results {
			b.WriteString(line(r.Fact) + "\n")
			ids = append(ids, r.Fact.ID)
			for _, p := range r.Previously {
				b.WriteString("  " + memory.FormatPrevious(p) + "\n")
			}
		}
	}
	if b.Len() == 0 {
		if facts {
			return "No memories match.", nil, nil
		}
		return "No observations match.", nil, nil
	}
	return b.String(), ids, nil
}

// formatAbout renders an entity with its facts and relations; with an
// as-of, what the bank learned later is left out.
func formatAbout(a *memory.About, asOf time.Time) (string, []string, error) {
	var b strings.Builder
	var ids []string
	e := a.Entity
	fmt.Fprintf(&b, "Entity: %s (%s)", e.Name, e.Type)
	if len(e.Aliases) > 0 {
		fmt.Fprintf(&b, ", also called %s", strings.Join(e.Aliases, ", "))
	}
	b.WriteString("\n")
	var facts []*memory.Fact
	for _, f := range a.Facts {
		if asOf.IsZero() || memory.KnownAt(f, asOf) {
			facts = append(facts, f)
		}
	}
	if len(facts) > 0 {
		b.WriteString("Facts:\n")
		for _, f := range facts {
			b.WriteString(line(f) + "\n")
			ids = append(ids, f.ID)
		}
	}
	var rels []string
	for _, r := range a.Relations {
		if !asOf.IsZero() && r.Relation.CreatedAt.After(asOf) {
			continue
		}
		state := "current"
		if !r.Current && (asOf.IsZero() || !r.Relation.ExpiredAt.After(asOf)) {
			state = "ended"
		}
		rels = append(rels, fmt.Sprintf("%s %s %s (%s)", r.SubjectName, r.Relation.Predicate, r.ObjectName, state))
	}
	if len(rels) > 0 {
		b.WriteString("Relations:\n" + strings.Join(rels, "\n") + "\n")
	}
	if len(facts) == 0 && len(rels) == 0 {
		b.WriteString("No facts or relations.\n")
	}
	return b.String(), ids, nil
}

// formatStanding renders standing answers, each with the ids of its
// evidence, which the model may cite.
func formatStanding(qs []*memory.StandingQuestion) (string, []string, error) {
	if len(qs) == 0 {
		return "No standing answers.", nil, nil
	}
	var b strings.Builder
	var ids []string
	for _, q := range qs {
		fmt.Fprintf(&b, "Q: %s\nA: %s\n", oneLine(q.Question), oneLine(q.Answer))
		if len(q.MemoryIDs) > 0 {
			fmt.Fprintf(&b, "rests on: %s\n", strings.Join(q.MemoryIDs, ", "))
			ids = append(ids, q.MemoryIDs...)
		}
	}
	return b.String(), ids, nil
}

// formatExpand renders a fact with its chunk and the document text
// around it, at most ExpandBytes of it.
func formatExpand(f *memory.Fact, chunks []*memory.Chunk) string {
	var b strings.Builder
	b.WriteString("Fact: " + line(f) + "\n")
	if len(chunks) == 0 {
		b.WriteString("No source text is kept for this fact.\n")
		return b.String()
	}
	at := -1
	for i, c := range chunks {
		if c.ID == f.ChunkID {
			at = i
		}
	}
	if at >= 0 {
		b.WriteString("Source chunk:\n" + chunks[at].Text + "\n")
	}
	// The document: the chunks around the fact's, nearest first, as far
	// as ExpandBytes allows, then in order.
	lo, hi := at, at
	if at < 0 {
		lo, hi = 0, -1
	}
	size := 0
	if at >= 0 {
		size = len(chunks[at].Text)
	}
	for grew := true; grew; {
		grew = false
		if lo > 0 && size+len(chunks[lo-1].Text) <= ExpandBytes {
			lo--
			size += len(chunks[lo].Text)
			grew = true
		}
		if hi < len(chunks)-1 && size+len(chunks[hi+1].Text) <= ExpandBytes {
			hi++
			size += len(chunks[hi].Text)
			grew = true
		}
	}
	if hi >= lo && (lo != at || hi != at) {
		fmt.Fprintf(&b, "Document (chunks %d-%d of %d):\n", lo+1, hi+1, len(chunks))
		for _, c := range chunks[lo : hi+1] {
			b.WriteString(c.Text + "\n")
		}
	}
	return b.String()
}

// oneLine folds whitespace runs to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
