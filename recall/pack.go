package recall

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mnemo-ai/mnemo/memory"
)

// CountTokens estimates the tokens of s as one token per four bytes of
// UTF-8, rounded up: the rule of thumb of BPE tokenizers on English text.
// It needs no vocabulary, is the same on every platform and errs on the
// side of more tokens for non-Latin scripts.
func CountTokens(s string) int {
	return (len(s) + 3) / 4
}

// contextHeader starts every packed text context.
const contextHeader = "Relevant memories (most relevant first):\n"

// chronoHeader starts a text context ordered by time.
const chronoHeader = "Relevant memories (in time order):\n"

// PackOptions say how PackContext renders a recollection.
type PackOptions struct {
	// Budget is the context's token budget (CountTokens); items that
	// would exceed it are left out, best kept first.
	Budget int
	// Format is memory.FormatText (the default), FormatMarkdown or
	// FormatJSON.
	Format string
	// Chronological orders the kept facts by event time instead of by
	// relevance: what a temporal question ("what happened in May?")
	// reads best. Which facts are kept is still decided by relevance.
	Chronological bool
}

// pack is recall's last stage: the recollection of the results and
// observations, with its context packed into the query's budget and
// format, in time order when the query names a time window.
func pack(q memory.Query, a *analysis, results []memory.Result, obs []memory.ObservationResult) *memory.Recollection {
	out := &memory.Recollection{Results: results, Analysis: a.QueryAnalysis, Observations: obs}
	out.Context, out.Tokens = PackContext(out, PackOptions{Budget: q.Budget, Format: q.Format, Chronological: a.window})
	return out
}

// Pack formats results as a text context: PackContext without
// observations, in relevance order.
func Pack(results []memory.Result, budget int) (string, int) {
	return PackContext(&memory.Recollection{Results: results}, PackOptions{Budget: budget})
}

// PackContext renders a recollection as a context for a system prompt and
// returns it with its token count: observations first (each with its
// bundled facts and its latest change), then facts, each with its date,
// speaker and what it superseded ("previously: …"). Items are added best
// first while they fit the budget; with nothing that fits it returns ""
// and 0.
func PackContext(rec *memory.Recollection, o PackOptions) (string, int) {
	if o.Budget <= 0 || (len(rec.Results) == 0 && len(rec.Observations) == 0) {
		return "", 0
	}
	switch o.Format {
	case memory.FormatJSON:
		return packJSON(rec, o)
	case memory.FormatMarkdown:
		return packLines(rec, o, markdown{})
	}
	return packLines(rec, o, plain{})
}

// lineFormat renders the parts of a line-oriented context.
type lineFormat interface {
	header(chrono bool) string
	section(name string) string // "" for none
	observation(r memory.ObservationResult) string
	fact(f *memory.Fact) string
	previous(f *memory.Fact) string
}

// packLines packs observations, then facts, as lines of format lf.
func packLines(rec *memory.Recollection, o PackOptions, lf lineFormat) (string, int) {
	var b strings.Builder
	used := 0
	add := func(s string) bool {
		t := CountTokens(s)
		if used+t > o.Budget {
			return false
		}
		b.WriteString(s)
		used += t
		return true
	}
	if !add(lf.header(o.Chronological)) {
		return "", 0
	}
	items := 0
	if len(rec.Observations) > 0 {
		if s := lf.section("Observations"); s == "" || add(s) {
			for _, r := range rec.Observations {
				if !add(lf.observation(r)) {
					break
				}
				items++
			}
		}
	}
	facts := keptFacts(rec.Results, o, func(r memory.Result) string { return factBlock(lf, r) }, o.Budget-used-CountTokens(lf.section("Facts")))
	if len(facts) > 0 {
		if s := lf.section("Facts"); s == "" || len(rec.Observations) == 0 || add(s) {
			for _, r := range facts {
				if !add(r.block) {
					break
				}
				items++
			}
		}
	}
	if items == 0 {
		return "", 0
	}
	return b.String(), CountTokens(b.String())
}

// factBlock is a fact's line and its history lines.
func factBlock(lf lineFormat, r memory.Result) string {
	s := lf.fact(r.Fact)
	for _, old := range r.Previously {
		s += lf.previous(old)
	}
	return s
}

// keptFact is a result keptFacts keeps and its block as rendered.
type keptFact struct {
	memory.Result
	block string
}

// keptFacts returns the results that fit in budget, taken best first,
// in the order they are shown (relevance, or event time when
// Chronological), each with its block as render gave it: rendering a
// hundred facts is most of the packing, so it is done once.
func keptFacts(results []memory.Result, o PackOptions, render func(memory.Result) string, budget int) []keptFact {
	var kept []keptFact
	used := 0
	for _, r := range results {
		block := render(r)
		t := CountTokens(block)
		if used+t > budget {
			break
		}
		used += t
		kept = append(kept, keptFact{r, block})
	}
	if o.Chronological {
		slices.SortStableFunc(kept, func(a, b keptFact) int { return a.Fact.EventTime().Compare(b.Fact.EventTime()) })
	}
	return kept
}

// plain is the text format: one line per memory.
type plain struct{}

func (plain) header(chrono bool) string {
	if chrono {
		return chronoHeader
	}
	return contextHeader
}
func (plain) section(string) string { return "" }
func (plain) observation(r memory.ObservationResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- (%s) %s\n", r.Observation.Kind, oneLine(r.Observation.Text))
	if h := r.Observation.History; len(h) > 0 {
		last := h[len(h)-1]
		fmt.Fprintf(&b, "  previously: %s (changed %s)\n", oneLine(last.Previous), last.ChangedAt.Format("2006-01-02"))
	}
	for _, f := range r.Facts {
		b.WriteString("  " + memory.FormatFact(f) + "\n")
	}
	return b.String()
}
func (plain) fact(f *memory.Fact) string     { return memory.FormatFact(f) + "\n" }
func (plain) previous(f *memory.Fact) string { return "  " + memory.FormatPrevious(f) + "\n" }

// markdown is the Markdown format: sections and bullets.
type markdown struct{}

func (markdown) header(chrono bool) string {
	if chrono {
		return "## Relevant memories (in time order)\n\n"
	}
	return "## Relevant memories\n\n"
}
func (markdown) section(name string) string { return "### " + name + "\n\n" }
func (m markdown) observation(r memory.ObservationResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- **%s** (%s)\n", oneLine(r.Observation.Text), r.Observation.Kind)
	if h := r.Observation.History; len(h) > 0 {
		last := h[len(h)-1]
		fmt.Fprintf(&b, "  - *previously:* %s (changed %s)\n", oneLine(last.Previous), last.ChangedAt.Format("2006-01-02"))
	}
	for _, f := range r.Facts {
		b.WriteString("  " + m.fact(f))
	}
	return b.String()
}
func (markdown) fact(f *memory.Fact) string {
	var b strings.Builder
	b.WriteString("- ")
	if t := f.EventTime(); !t.IsZero() {
		fmt.Fprintf(&b, "**%s** ", t.Format("2006-01-02"))
	}
	if f.Speaker != "" {
		b.WriteString(f.Speaker + ": ")
	}
	b.WriteString(oneLine(f.Text))
	if f.ShortTerm() {
		b.WriteString(" *" + memory.ShortTermMark + "*")
	}
	b.WriteString("\n")
	return b.String()
}
func (markdown) previous(f *memory.Fact) string {
	return "  - *" + strings.Replace(memory.FormatPrevious(f), "previously:", "previously:*", 1) + "\n"
}

// contextJSON is the JSON context: a document an agent can parse.
type contextJSON struct {
	Order        string            `json:"order"` // "relevance" or "time"
	Observations []observationJSON `json:"observations,omitempty"`
	Facts        []factJSON        `json:"facts"`
}

type observationJSON struct {
	Text       string     `json:"text"`
	Kind       string     `json:"kind"`
	Previously string     `json:"previously,omitempty"`
	ChangedAt  string     `json:"changed_at,omitempty"`
	Facts      []factJSON `json:"facts,omitempty"`
}

type factJSON struct {
	Date       string     `json:"date,omitempty"`
	Speaker    string     `json:"speaker,omitempty"`
	Text       string     `json:"text"`
	Previously []factJSON `json:"previously,omitempty"`
	ChangedAt  string     `json:"changed_at,omitempty"`
	// Tier is "short_term" for a short-term fact, absent for a long-term
	// one (the usual case).
	Tier memory.FactTier `json:"tier,omitempty"`
}

func toFactJSON(f *memory.Fact) factJSON {
	j := factJSON{Speaker: f.Speaker, Text: oneLine(f.Text)}
	if f.ShortTerm() {
		j.Tier = memory.TierShortTerm
	}
	if t := f.EventTime(); !t.IsZero() {
		j.Date = t.Format("2006-01-02")
	}
	return j
}

// packJSON packs the recollection as one JSON document within the
// budget: items are added best first while the whole document fits.
func packJSON(rec *memory.Recollection, o PackOptions) (string, int) {
	doc := contextJSON{Order: "relevance", Facts: []factJSON{}}
	if o.Chronological {
		doc.Order = "time"
	}
	size := func() int {
		b, _ := json.Marshal(doc)
		return CountTokens(string(b))
	}
	if size() > o.Budget {
		return "", 0
	}
	items := 0
	for _, r := range rec.Observations {
		oj := observationJSON{Text: oneLine(r.Observation.Text), Kind: string(r.Observation.Kind)}
		if h := r.Observation.History; len(h) > 0 {
			oj.Previously, oj.ChangedAt = oneLine(h[len(h)-1].Previous), h[len(h)-1].ChangedAt.Format("2006-01-02")
		}
		for _, f := range r.Facts {
			oj.Facts = append(oj.Facts, toFactJSON(f))
		}
		doc.Observations = append(doc.Observations, oj)
		if size() > o.Budget {
			doc.Observations = doc.Observations[:len(doc.Observations)-1]
			break
		}
		items++
	}
	var kept []memory.Result
	for _, r := range rec.Results {
		fj := toFactJSON(r.Fact)
		for _, old := range r.Previously {
			pj := toFactJSON(old)
			if changed := old.ChangedAt(); !changed.IsZero() {
				pj.ChangedAt = changed.Format("2006-01-02")
			}
			fj.Previously = append(fj.Previously, pj)
		}
		doc.Facts = append(doc.Facts, fj)
		if size() > o.Budget {
			doc.Facts = doc.Facts[:len(doc.Facts)-1]
			break
		}
		kept = append(kept, r)
		items++
	}
	if items == 0 {
		return "", 0
	}
	if o.Chronological {
		idx := make([]int, len(kept))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return kept[a].Fact.EventTime().Compare(kept[b].Fact.EventTime()) })
		facts := make([]factJSON, len(idx))
		for i, k := range idx {
			facts[i] = doc.Facts[k]
		}
		doc.Facts = facts
	}
	b, _ := json.Marshal(doc)
	return string(b), CountTokens(string(b))
}

// oneLine folds whitespace runs (newlines included) to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
