package recall

import (
	"context"
	"fmt"
	"sort"

	"github.com/mnemo-ai/mnemo/memory"
)

// Defaults of the context strategy (docs/recall.md gives the measurements).
const (
	// DefaultDocumentShare is the share of its document's keyword score a
	// fact inherits: a chat session about the question lifts all its turns.
	// The document's score is its BM25 as one text when the store ranks
	// documents (memory.DocumentSearcher), else its best hit's.
	DefaultDocumentShare = 0.8
	// DefaultDocuments is how many documents the document search returns
	// (or the query's limit, when higher): a fact of a document beyond
	// them inherits no document share.
	DefaultDocuments = 100
	// DefaultNeighbourShare is the share of its best neighbour's keyword
	// score a fact inherits: an answer often sits next to the turn that
	// names what the question asks about.
	DefaultNeighbourShare = 0.5
	// DefaultNeighbourRadius is how many facts on each side of a keyword
	// hit are its neighbours.
	DefaultNeighbourRadius = 2
	// DefaultNeighbourHits is how many of the best keyword hits pass a
	// share to their neighbours and are candidates, for a limit within
	// DefaultCandidates; a higher limit takes more in proportion
	// (Pipeline.neighbourHits).
	DefaultNeighbourHits = 32
	// DefaultNeighbourDecay is what a neighbour's share is multiplied by
	// for each position beyond the adjacent one.
	DefaultNeighbourDecay = 0.5
	// DefaultSpeakerBoost multiplies the context score of a fact by
	// 1 + DefaultSpeakerBoost when the query names its speaker: "what did
	// Caroline research?" is about what Caroline said. A query in the
	// first person ("when does my sprint end?") names the speaker "user"
	// (UserSpeaker): in a conversation between a user and an assistant,
	// the asker is the user (speakerNames).
	DefaultSpeakerBoost = 0.6
)

// StrategyContext names the context strategy in explanations.
const StrategyContext = "context"

// contextShares are the parameters of inContext.
type contextShares struct {
	document, neighbour, decay, speaker float64
}

// contextual is the context strategy: the keyword hits (best first)
// rescored with the structure memory keeps (see inContext), given docs,
// the documents' scores normalised by the best one (nil: a document
// counts as its best hit). Its candidates are the best
// neighbourHits hits and their neighbours within NeighbourRadius
// in their documents: two store reads (Neighbours, then Facts for
// documents and speakers) on top of the keyword search. It returns the
// candidates' facts that pass the filter, by id, for Recall to reuse.
func (p *Pipeline) contextual(ctx context.Context, q memory.Query, hits []memory.Hit, docs map[string]float64) ([]memory.Hit, map[string]*memory.Fact, error) {
	if len(hits) == 0 {
		return nil, nil, nil
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	radius := p.NeighbourRadius
	// Only the best hits pass a share to their neighbours: a weak hit's
	// share is small, and the windows cost a store read per hit.
	ids = ids[:min(len(ids), p.neighbourHits(q))]
	windows, err := p.Store.Neighbours(ctx, q.BankID, ids, radius)
	if err != nil {
		return nil, nil, fmt.Errorf("context neighbours: %w", err)
	}
	seen := make(map[string]bool, len(hits)*(2*radius+1))
	var all []string
	for _, id := range ids {
		for _, n := range append(windows[id], id) {
			if !seen[n] {
				seen[n] = true
				all = append(all, n)
			}
		}
	}
	facts, err := p.Store.Facts(ctx, q.BankID, all)
	if err != nil {
		return nil, nil, fmt.Errorf("context facts: %w", err)
	}
	byID := make(map[string]*memory.Fact, len(facts))
	for _, f := range facts {
		// A neighbour the filter excludes is no candidate; the hits passed
		// the same filter in the store.
		if Matches(f, q.Filter) {
			byID[f.ID] = f
		}
	}
	sh := contextShares{p.DocumentShare, p.NeighbourShare, p.NeighbourDecay, p.SpeakerBoost}
	out := inContext(hits, windows, byID, theUser(speakerNames(q.Text), byID), docs, sh)
	if k := max(p.Candidates, q.Limit); len(out) > k {
		out = out[:k]
	}
	return out, byID, nil
}

// neighbourHits is how many of the best keyword hits are the context
// strategy's candidates with their windows: DefaultNeighbourHits while
// the query's limit is within the Candidates each strategy contributes,
// and in the same proportion to the limit above it (a limit of 1000
// returned 32 keyword matches).
func (p *Pipeline) neighbourHits(q memory.Query) int {
	if q.Limit <= p.Candidates || p.Candidates <= 0 {
		return DefaultNeighbourHits
	}
	return (DefaultNeighbourHits*q.Limit + p.Candidates - 1) / p.Candidates
}

// documentScores is the search of whole documents for the context
// strategy, run beside the keyword search when the store can rank them
// (memory.DocumentSearcher): each matching document's BM25 over the best
// one's. Without such a store, a document share or terms, the scores are
// nil and a document counts as its best hit.
func (p *Pipeline) documentScores(ctx context.Context, q memory.Query, terms []string) (map[string]float64, error) {
	ds, ok := p.Store.(memory.DocumentSearcher)
	if !ok || p.DocumentShare <= 0 || len(terms) == 0 {
		return nil, nil
	}
	hits, err := ds.SearchDocuments(ctx, q.BankID, terms, max(DefaultDocuments, q.Limit))
	if err != nil {
		return nil, fmt.Errorf("document search: %w", err)
	}
	out := make(map[string]float64, len(hits))
	for _, h := range hits {
		if top := hits[0].Score; top > 0 {
			out[h.ID] = h.Score / top
		}
	}
	return out, nil
}

// inContext rescores keyword hits (best first, positive scores) with
// their documents and neighbours. With each hit's score n normalised by
// the best one, a fact f scores
//
//	(n(f) + document·D(f) + neighbour·N(f)) · (1 + speaker·[f's speaker is named])
//
// where D(f) is docs[f's document] or, when docs is nil, the best n of a
// hit in f's document, N(f) the best n of
// another hit whose window holds f, times decay for each position beyond
// the adjacent one, and named says whether names holds the normalised
// speaker of f. The candidates are the hits and the members of their
// windows that facts holds; facts gives their document and speaker. The
// result is ordered best first, ties by the order the candidates were
// met (hits first, in their order).
func inContext(hits []memory.Hit, windows map[string][]string, facts map[string]*memory.Fact, names map[string]bool, docs map[string]float64, sh contextShares) []memory.Hit {
	if len(hits) == 0 || hits[0].Score <= 0 {
		return nil
	}
	top := hits[0].Score
	type cand struct {
		own, neighbour float64
		doc            string
		order          int
	}
	cands := map[string]*cand{}
	var order []string
	get := func(id string) *cand {
		c := cands[id]
		if c == nil {
			c = &cand{order: len(order)}
			cands[id] = c
			order = append(order, id)
		}
		return c
	}
	docBest := map[string]float64{}
	for _, h := range hits {
		f := facts[h.ID]
		if f == nil || h.Score <= 0 {
			continue
		}
		n := h.Score / top
		c := get(h.ID)
		c.own = max(c.own, n)
		c.doc = f.DocumentID
		if f.DocumentID != "" {
			docBest[f.DocumentID] = max(docBest[f.DocumentID], n)
		}
	}
	for _, h := range hits {
		hc := cands[h.ID]
		if hc == nil {
			continue
		}
		win := windows[h.ID]
		at := -1
		for i, id := range win {
			if id == h.ID {
				at = i
			}
		}
		if at < 0 {
			continue
		}
		for i, id := range win {
			if i == at || facts[id] == nil {
				continue
			}
			d := max(at-i, i-at)
			share := hc.own
			for ; d > 1; d-- {
				share *= sh.decay
			}
			c := get(id)
			c.neighbour = max(c.neighbour, share)
			if c.doc == "" {
				c.doc = hc.doc
			}
		}
	}
	out := make([]memory.Hit, 0, len(order))
	for _, id := range order {
		c := cands[id]
		s := c.own + sh.neighbour*c.neighbour
		if c.doc != "" {
			if docs != nil {
				s += sh.document * docs[c.doc]
			} else {
				s += sh.document * docBest[c.doc]
			}
		}
		if sh.speaker > 0 && names[memory.NormalizeName(facts[id].Speaker)] {
			s *= 1 + sh.speaker
		}
		out = append(out, memory.Hit{ID: id, Score: s})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}
