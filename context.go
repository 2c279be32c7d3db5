package mnemo

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/recall"
	"github.com/mnemo-ai/mnemo/wire"
)

// DefaultContextBudget is a context's token budget when none is given:
// recall's default, a few thousand tokens of a system prompt.
const DefaultContextBudget = memory.DefaultTokenBudget

// MaxContextObservations is how many observations a context considers,
// best first, before its budget decides how many it shows.
const MaxContextObservations = 30

// ContextRequest asks Engine.Context for a session's memory context.
type ContextRequest struct {
	// Query, when not empty (a question, the user's prompt), adds the
	// memories relevant to it (wire.SectionFacts), found by recall.
	Query string
	// Budget is the hard cap of the rendered context, in tokens as
	// recall counts them (recall.CountTokens); 0 means
	// DefaultContextBudget, a negative budget is EINVALID.
	Budget int
	// Scopes are the scopes the context is for (a project, a task type):
	// the directives that apply everywhere and those naming one of them
	// are shown, never others.
	Scopes []string
	// Format is memory.FormatText (the default), FormatMarkdown or
	// FormatJSON.
	Format string
	// Sections, when not empty, limits the context to these sections
	// (wire.SectionBlocks, …); their order is the context's own.
	Sections []string
	// MinSimilarity, when positive, is the relevance floor of the query's
	// memories: a fact is kept only if keyword search found it or its
	// semantic similarity to the query is at least this (observations
	// already clear recall's own floor). Zero keeps what recall returns.
	MinSimilarity float64
	// Now is the reference time of the observations' decay; zero means
	// the engine's clock.
	Now time.Time
}

// ContextResult is a context: its sections, and its rendering in the
// format asked for with the rendering's token count (never more than the
// budget).
type ContextResult struct {
	Context wire.Context
	Text    string
	Tokens  int
}

// sectionOrder is the order a context shows its sections in; fillOrder
// the order they take the budget in: what an agent must follow first.
var (
	sectionOrder = []string{wire.SectionBlocks, wire.SectionDirectives, wire.SectionStanding, wire.SectionObservations, wire.SectionFacts}
	fillOrder    = []string{wire.SectionDirectives, wire.SectionBlocks, wire.SectionStanding, wire.SectionFacts, wire.SectionObservations}
)

// Context assembles a bank's memory context for the start of a session
// (or, given a query, for one prompt): the memory blocks that are not
// empty, the directives that apply to the request's scopes, the top
// active observations by salience and decay (see observationRank) and,
// given a query, the memories recall finds for it, each fact with what
// it said before ("previously: …").
//
// The rendered context never exceeds the budget: sections take the
// budget in the order directives, blocks, query memories, observations,
// each keeping its items best first until the next one would not fit
// (a section is cut between two items, or left out whole, never in the
// middle of one), and are shown in the stable order blocks, directives,
// observations, memories. A JSON context whose empty envelope alone
// exceeds the budget is EINVALID, as are a negative budget, an unknown
// format or section, and an invalid scope; an unknown bank is ENOTFOUND.
//
// A context without a query reads blocks, directives and observations
// only: it builds no search index.
func (e *Engine) Context(ctx context.Context, bank string, req ContextRequest) (*ContextResult, error) {
	bank = defaultBank(bank)
	if req.Budget < 0 {
		return nil, memory.Errorf(memory.EINVALID, "budget %d: a context's budget is a positive number of tokens", req.Budget)
	}
	budget := cmp.Or(req.Budget, DefaultContextBudget)
	scopes, err := memory.NormalizeScopes(req.Scopes)
	if err != nil {
		return nil, err
	}
	for _, s := range req.Sections {
		if !slices.Contains(sectionOrder, s) {
			return nil, memory.Errorf(memory.EINVALID, "context section %q: use %s", s, strings.Join(sectionOrder, ", "))
		}
	}
	want := func(s string) bool { return len(req.Sections) == 0 || slices.Contains(req.Sections, s) }
	out := &ContextResult{Context: wire.Context{Bank: bank, Budget: budget}}
	empty, err := wire.RenderContext(&out.Context, req.Format)
	if err != nil {
		return nil, err
	}
	if n := recall.CountTokens(empty); n > budget {
		return nil, memory.Errorf(memory.EINVALID, "budget %d: an empty %s context takes %d tokens", budget, cmp.Or(req.Format, memory.FormatText), n)
	}
	if err := e.requireBank(ctx, bank); err != nil {
		return nil, err
	}
	if err := e.whole(ctx, bank); err != nil {
		return nil, err
	}
	cands := map[string][]wire.ContextItem{}
	if want(wire.SectionBlocks) {
		if cands[wire.SectionBlocks], err = e.blockItems(ctx, bank); err != nil {
			return nil, err
		}
	}
	if want(wire.SectionDirectives) {
		ds, err := e.DirectivesFor(ctx, bank, scopes)
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			cands[wire.SectionDirectives] = append(cands[wire.SectionDirectives], wire.ContextItem{Kind: wire.ItemDirective, ID: d.ID, Text: d.Text, Scopes: d.Scopes})
		}
	}
	if want(wire.SectionStanding) {
		// The bank's standing answers whose evidence stands: read, no
		// model called (standing.go).
		qs, err := e.StandingAnswers(ctx, bank)
		if err != nil {
			return nil, err
		}
		for _, q := range qs {
			cands[wire.SectionStanding] = append(cands[wire.SectionStanding], wire.ContextItem{Kind: wire.ItemStanding, ID: q.ID, Label: q.Question, Text: q.Answer})
		}
	}
	if want(wire.SectionObservations) {
		if cands[wire.SectionObservations], err = e.observationItems(ctx, bank, cmp.Or(req.Now, e.now())); err != nil {
			return nil, err
		}
	}
	if want(wire.SectionFacts) && strings.TrimSpace(req.Query) != "" {
		if cands[wire.SectionFacts], err = e.queryItems(ctx, bank, req); err != nil {
			return nil, err
		}
	}
	return fitContext(out, cands, req.Format, budget)
}

// fitContext fills out's sections from the candidates, in fillOrder,
// keeping each section's items best first while the rendered context
// stays within budget, and renders it.
func fitContext(out *ContextResult, cands map[string][]wire.ContextItem, format string, budget int) (*ContextResult, error) {
	kept := map[string][]wire.ContextItem{}
	build := func() wire.Context {
		c := wire.Context{Bank: out.Context.Bank, Budget: out.Context.Budget}
		for _, s := range sectionOrder {
			if len(kept[s]) > 0 {
				c.Sections = append(c.Sections, wire.ContextSection{Name: s, Items: kept[s]})
			}
		}
		return c
	}
	seen := map[string]bool{}
	for _, s := range fillOrder {
		for _, it := range cands[s] {
			if it.ID != "" && seen[it.ID] {
				continue // an observation recall found for the query too
			}
			kept[s] = append(kept[s], it)
			c := build()
			text, err := wire.RenderContext(&c, format)
			if err != nil {
				return nil, err
			}
			if recall.CountTokens(text) > budget {
				kept[s] = kept[s][:len(kept[s])-1]
				break
			}
			seen[it.ID] = true
		}
	}
	out.Context = build()
	text, err := wire.RenderContext(&out.Context, format)
	if err != nil {
		return nil, err
	}
	out.Text, out.Tokens = text, recall.CountTokens(text)
	return out, nil
}

// blockItems are a bank's memory blocks that hold something, default
// blocks first (Engine.Blocks' order). Reading them for a context does
// not count as a read.
func (e *Engine) blockItems(ctx context.Context, bank string) ([]wire.ContextItem, error) {
	bs, err := e.Blocks(ctx, bank)
	if err != nil {
		return nil, err
	}
	var out []wire.ContextItem
	for _, b := range bs {
		if strings.TrimSpace(b.Value) == "" {
			continue
		}
		out = append(out, wire.ContextItem{Kind: wire.ItemBlock, Name: b.Name, Label: b.Label, Text: b.Value})
	}
	return out, nil
}

// observationItems are a bank's active observations, best first by
// observationRank, at most MaxContextObservations. A store that cannot
// list observations gives none.
func (e *Engine) observationItems(ctx context.Context, bank string, now time.Time) ([]wire.ContextItem, error) {
	l, ok := e.store.(memory.ObservationLister)
	if !ok {
		return nil, nil
	}
	obs, err := l.ListObservations(ctx, bank, 0)
	if err != nil {
		return nil, err
	}
	obs = slices.DeleteFunc(obs, func(o *memory.Observation) bool { return o.Status != memory.StatusActive })
	rank := make(map[string]float64, len(obs))
	for _, o := range obs {
		rank[o.ID] = observationRank(o, now)
	}
	// Stable: ties keep the lister's order, newest first.
	slices.SortStableFunc(obs, func(a, b *memory.Observation) int { return cmp.Compare(rank[b.ID], rank[a.ID]) })
	out := make([]wire.ContextItem, 0, min(len(obs), MaxContextObservations))
	for _, o := range obs[:min(len(obs), MaxContextObservations)] {
		out = append(out, observationItem(o))
	}
	return out, nil
}

// observationItem is an observation as a context item, with its latest
// change.
func observationItem(o *memory.Observation) wire.ContextItem {
	it := wire.ContextItem{Kind: wire.ItemObservation, ID: o.ID, Label: string(o.Kind), Text: o.Text}
	if h := o.History; len(h) > 0 {
		last := h[len(h)-1]
		it.Previously = []string{last.Previous + " (changed " + last.ChangedAt.Format("2006-01-02") + ")"}
	}
	return it
}

// observationRank is an observation's salience times its decay: salience
// grows with its evidence and with how often it was recalled (log-scaled,
// so a hundred proofs do not drown everything else), and decays with the
// time since it last changed or was recalled as seed 004's salience does,
// 2^(-days/30), never below its evergreen floor of 0.3.
func observationRank(o *memory.Observation, now time.Time) float64 {
	salience := (1 + math.Log2(1+float64(max(o.EvidenceCount, 0)))) * (1 + math.Log2(1+float64(max(o.AccessCount, 0)))/2)
	last := o.UpdatedAt
	if o.LastAccessed.After(last) {
		last = o.LastAccessed
	}
	days := max(now.Sub(last).Hours()/24, 0)
	return salience * max(math.Exp2(-days/30), 0.3)
}

// queryItems are the memories recall finds for the request's query:
// its observations, then its facts with their history, best first; with
// a MinSimilarity, only the facts that clear it.
func (e *Engine) queryItems(ctx context.Context, bank string, req ContextRequest) ([]wire.ContextItem, error) {
	rec, err := e.Recall(ctx, memory.Query{BankID: bank, Text: req.Query, Explain: req.MinSimilarity > 0, Now: req.Now})
	if err != nil {
		return nil, err
	}
	terms := map[string]bool{}
	for _, t := range lex.Terms(req.Query) {
		terms[t] = true
	}
	var out []wire.ContextItem
	for _, r := range rec.Observations {
		out = append(out, observationItem(r.Observation))
	}
	for _, r := range rec.Results {
		if req.MinSimilarity > 0 && !clearsFloor(r, terms, req.MinSimilarity) {
			continue
		}
		it := wire.ContextItem{Kind: wire.ItemFact, ID: r.Fact.ID, Text: strings.TrimPrefix(memory.FormatFact(r.Fact), "- ")}
		for _, p := range r.Previously {
			it.Previously = append(it.Previously, strings.TrimPrefix(memory.FormatPrevious(p), "previously: "))
		}
		out = append(out, it)
	}
	return out, nil
}

// clearsFloor reports whether a recalled fact is relevant enough for a
// context with a relevance floor: keyword search found it, its text
// holds one of the query's terms (terms, stemmed, without stopwords),
// recall's fallback reranker found the query's terms in it or in the
// turns next to it (a reply to a matching question), or it is
// semantically at least minSim similar to the query. A fact reached only
// through the graph, a time window or its session's score is not.
func clearsFloor(r memory.Result, terms map[string]bool, minSim float64) bool {
	if _, ok := r.Explain[memory.StrategyKeyword]; ok {
		return true
	}
	if c, ok := r.Explain[recall.StrategyCoverage]; ok && c.Score > 0 {
		return true
	}
	for _, t := range lex.Terms(r.Fact.Text) {
		if terms[t] {
			return true
		}
	}
	s, ok := r.Explain[memory.StrategySemantic]
	return ok && s.Score >= minSim
}
