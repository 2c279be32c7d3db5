package consolidate

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/internal/id"
	"github.com/mnemo-ai/mnemo/memory"
)

// The numbers of group consolidation.
const (
	// DefaultGroupMinSize is the fewest similar facts that make a group:
	// 3 (seed 002, find_consolidation_candidates(min_group_size=3)).
	DefaultGroupMinSize = 3
	// DefaultGroupCosine is the least cosine between any two facts of a
	// group: 0.8 (seed 002, similarity_threshold=0.8, "similar facts
	// (cosine similarity >= 0.8) are grouped").
	DefaultGroupCosine = 0.8
	// DefaultGroupMaxSize bounds a group, so that one summary stays one
	// readable fact and one LLM call stays small: 8 (mnemo's; the seed
	// gives no bound).
	DefaultGroupMaxSize = 8
	// DefaultGroupNeighbours is k of each seed fact's vector search: the
	// candidates a group is built from (mnemo's; twice the largest group,
	// so that a group can fill although some neighbours are taken).
	DefaultGroupNeighbours = 2 * DefaultGroupMaxSize
)

// GroupDefaults holds the numbers of group consolidation, each a named
// default with the seed it comes from. Its fields carry json tags: the
// names a bank's overrides use (snake_case, prefixed by the pass).
type GroupDefaults struct {
	// MinSize is the fewest facts of a group (DefaultGroupMinSize).
	MinSize int `json:"group_min_size"`
	// Cosine is the least similarity of any two members
	// (DefaultGroupCosine).
	Cosine float64 `json:"group_cosine"`
	// MaxSize is the most facts of a group (DefaultGroupMaxSize).
	MaxSize int `json:"group_max_size"`
	// Neighbours is k of each seed fact's vector search
	// (DefaultGroupNeighbours).
	Neighbours int `json:"group_neighbours"`
}

// defaultGroupDefaults returns the seeds' numbers for group consolidation.
func defaultGroupDefaults() GroupDefaults {
	return GroupDefaults{MinSize: DefaultGroupMinSize, Cosine: DefaultGroupCosine, MaxSize: DefaultGroupMaxSize, Neighbours: DefaultGroupNeighbours}
}

// GroupStore is what group consolidation reads and writes: the bank's
// active facts a page at a time, their stored vectors and neighbours,
// and the group's one-transaction write.
type GroupStore interface {
	ListFacts(ctx context.Context, bankID string, q memory.FactQuery) (*memory.FactPage, error)
	Facts(ctx context.Context, bankID string, ids []string) ([]*memory.Fact, error)
	SearchVector(ctx context.Context, bankID string, vec []float32, k int, f memory.Filter) ([]memory.Hit, error)
	memory.FactVectors
	memory.FactGrouper
}

// GroupOptions tunes [GroupFacts]. LLM and Embedder are required.
type GroupOptions struct {
	// LLM writes each group's summary.
	LLM memory.LLM
	// Embedder embeds the summary, as retain embeds a fact.
	Embedder memory.Embedder
	// Since, when set, takes as seeds only the facts created at or after
	// it (an incremental run); a group's other members may be older.
	Since time.Time
	// Defaults are the numbers; the zero value means the seeds'.
	Defaults GroupDefaults
	// PageSize is the walk's page; 0 is DefaultMergePageSize.
	PageSize int
	// Now stamps the summaries (CreatedAt) and the members' expired_at;
	// nil is time.Now.
	Now func() time.Time
}

// GroupResult counts what one run of [GroupFacts] did.
type GroupResult struct {
	// Searched is how many seed facts had their neighbours searched.
	Searched int `json:"searched"`
	// Groups is how many groups of at least MinSize facts were formed.
	Groups int `json:"groups"`
	// Summarised is how many groups became a summary fact.
	Summarised int `json:"summarised"`
	// Deactivated is how many facts a summary replaced.
	Deactivated int `json:"facts_deactivated"`
	// Failed is how many groups got no summary: the LLM failed or
	// answered nothing usable, or a member changed before the write.
	Failed int `json:"failed"`
}

// Counts is r as a run record's counts.
func (r *GroupResult) Counts() map[string]int {
	return map[string]int{"searched": r.Searched, "groups": r.Groups, "summarised": r.Summarised, "facts_deactivated": r.Deactivated, "failed": r.Failed}
}

// GroupFacts is group consolidation (seed 002, "similar facts (cosine
// similarity >= 0.8) are grouped and merged into a single summary fact.
// The originals are deactivated"). It walks the bank's active facts a
// page at a time, newest first (with opts.Since only those created
// since), and grows a group around each fact not yet taken: its
// Neighbours nearest active facts from the vector index, best first,
// each joining when its cosine with every member is at least Cosine
// (complete linkage: a chain of neighbours never drifts off topic), up
// to MaxSize. A group of at least MinSize facts goes to the LLM, which
// writes one summary (structured answer); the summary is embedded and
// stored as a new fact and the members superseded by it and linked to
// it, in one transaction ([memory.FactGrouper]). Nothing is deleted:
// the members stay listed and reachable through the summary's links.
//
// A failed or malformed LLM answer, or a member another writer changed
// meanwhile (ECONFLICT), counts the group as failed and the walk goes
// on; a store or embedder error, or the end of ctx, stops the run,
// returned with the counts so far. Each group is written whole, so a
// run stopped half-way is finished by the next, and a second run finds
// the summaries, not their members.
func GroupFacts(ctx context.Context, st GroupStore, bank string, opts GroupOptions) (*GroupResult, error) {
	if opts.LLM == nil || opts.Embedder == nil {
		return nil, memory.Errorf(memory.EINVALID, "group consolidation needs an LLM and an embedder")
	}
	d := opts.Defaults
	if d == (GroupDefaults{}) {
		d = defaultGroupDefaults()
	}
	size := opts.PageSize
	if size == 0 {
		size = DefaultMergePageSize
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	g := &grouper{st: st, bank: bank, d: d, opts: opts, now: now, res: &GroupResult{}, taken: map[string]bool{}}
	err := walkActive(ctx, st, bank, size, opts.Since, func(walk []*memory.Fact) error { return g.page(ctx, walk) })
	var we errWalk
	switch {
	case errors.As(err, &we):
		return g.res, we.err
	case err != nil:
		return g.res, fmt.Errorf("group facts: list facts: %w", err)
	}
	return g.res, nil
}

type grouper struct {
	st    GroupStore
	bank  string
	d     GroupDefaults
	opts  GroupOptions
	now   func() time.Time
	res   *GroupResult
	taken map[string]bool // in a group this run (summarised or not)
}

func (g *grouper) page(ctx context.Context, facts []*memory.Fact) error {
	ids := make([]string, 0, len(facts))
	for _, f := range facts {
		ids = append(ids, f.ID)
	}
	vecs, err := g.st.FactEmbeddings(ctx, g.bank, ids)
	if err != nil {
		return fmt.Errorf("group facts: embeddings: %w", err)
	}
	for _, f := range facts {
		if err := ctx.Err(); err != nil {
			return err
		}
		if g.taken[f.ID] || len(vecs[f.ID]) == 0 {
			continue
		}
		members, err := g.grow(ctx, f.ID, vecs[f.ID])
		if err != nil {
			return err
		}
		if len(members) < g.d.MinSize {
			continue
		}
		for _, m := range members {
			g.taken[m] = true
		}
		g.res.Groups++
		if err := g.summarise(ctx, members); err != nil {
			return err
		}
	}
	return nil
}

// grow returns the group around seed: seed first, then its neighbours by
// decreasing cosine that are within Cosine of every member, at most
// MaxSize ids.
func (g *grouper) grow(ctx context.Context, seed string, vec []float32) ([]string, error) {
	g.res.Searched++
	hits, err := g.st.SearchVector(ctx, g.bank, vec, g.d.Neighbours+1, memory.Filter{})
	if err != nil {
		return nil, fmt.Errorf("group facts: search %s: %w", seed, err)
	}
	var cands []string
	for _, h := range hits {
		if h.ID != seed && !g.taken[h.ID] && h.Score >= g.d.Cosine {
			cands = append(cands, h.ID)
		}
	}
	if len(cands)+1 < g.d.MinSize {
		return nil, nil
	}
	cv, err := g.st.FactEmbeddings(ctx, g.bank, cands)
	if err != nil {
		return nil, fmt.Errorf("group facts: embeddings: %w", err)
	}
	members, mvecs := []string{seed}, [][]float32{vec}
	for _, c := range cands {
		v := cv[c]
		if len(v) != len(vec) {
			continue
		}
		if !slices.ContainsFunc(mvecs, func(m []float32) bool { return vecCosine(m, v) < g.d.Cosine }) {
			members, mvecs = append(members, c), append(mvecs, v)
			if len(members) == g.d.MaxSize {
				break
			}
		}
	}
	return members, nil
}

// summarise asks for the group's summary and writes it.
func (g *grouper) summarise(ctx context.Context, members []string) error {
	facts, err := g.st.Facts(ctx, g.bank, members)
	if err != nil {
		return fmt.Errorf("group facts: read members: %w", err)
	}
	slices.SortFunc(facts, func(a, b *memory.Fact) int {
		return cmp.Or(a.EventTime().Compare(b.EventTime()), cmp.Compare(a.Seq, b.Seq))
	})
	text, err := askSummary(ctx, g.opts.LLM, facts)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		g.res.Failed++
		return nil
	}
	at := g.now().UTC().Truncate(time.Microsecond)
	sum := summaryFact(g.bank, text, facts, at)
	vecs, err := g.opts.Embedder.Embed(ctx, []string{sum.Body()})
	if err != nil {
		return fmt.Errorf("group facts: embed summary: %w", err)
	}
	if len(vecs) != 1 {
		return fmt.Errorf("group facts: embed summary: %d vectors for 1 text", len(vecs))
	}
	sum.Embedding = vecs[0]
	ids := make([]string, len(facts))
	for i, f := range facts {
		ids[i] = f.ID
	}
	err = g.st.GroupFacts(ctx, g.bank, &memory.FactGroup{Summary: sum, Members: ids, At: at})
	switch memory.ErrorCode(err) {
	case "":
		g.res.Summarised++
		g.res.Deactivated += len(ids)
	case memory.ECONFLICT, memory.ENOTFOUND:
		g.res.Failed++ // a member changed since it was read: the next run sees the new state
	default:
		return fmt.Errorf("group facts: %w", err)
	}
	return nil
}

// summaryFact is the fact that replaces facts: the LLM's text, with what
// the members agree on (speaker, kind) and the span of their times, the
// most common category, the most cautious sensitivity, the highest
// importance, the lowest confidence and every tag. Its occurred range
// spans the members' (when they have one); it has no document.
func summaryFact(bank, text string, facts []*memory.Fact, at time.Time) *memory.Fact {
	ids := make([]string, len(facts))
	for i, f := range facts {
		ids[i] = f.ID
	}
	s := &memory.Fact{
		ID: id.Derive("f", at, append([]string{bank, "group"}, ids...)...), BankID: bank, Text: text,
		Kind: facts[0].Kind, Speaker: facts[0].Speaker, Confidence: 1, Sensitivity: memory.SensitivityOpen,
		CreatedAt: at, MentionedAt: facts[0].MentionedAt, Status: memory.StatusActive,
	}
	cats := map[memory.Category]int{}
	rank := map[memory.Sensitivity]int{memory.SensitivityOpen: 0, memory.SensitivityPrivate: 1, memory.SensitivitySensitive: 2}
	for _, f := range facts {
		if f.Kind != s.Kind {
			s.Kind = memory.KindWorld
		}
		if f.Speaker != s.Speaker {
			s.Speaker = ""
		}
		cats[f.Category]++
		if rank[f.Sensitivity] > rank[s.Sensitivity] {
			s.Sensitivity = f.Sensitivity
		}
		s.Importance = max(s.Importance, f.Importance)
		s.Confidence = min(s.Confidence, f.Confidence)
		for _, t := range f.Tags {
			if !slices.Contains(s.Tags, t) {
				s.Tags = append(s.Tags, t)
			}
		}
		if t := f.OccurredStart; !t.IsZero() {
			if s.OccurredStart.IsZero() || t.Before(s.OccurredStart) {
				s.OccurredStart = t
			}
			end := t
			if f.OccurredEnd.After(end) {
				end = f.OccurredEnd
			}
			if end.After(s.OccurredEnd) {
				s.OccurredEnd = end
			}
		}
		if f.MentionedAt.After(s.MentionedAt) {
			s.MentionedAt = f.MentionedAt
		}
	}
	best := 0
	for _, f := range facts { // first most common, in the members' order
		if cats[f.Category] > best {
			s.Category, best = f.Category, cats[f.Category]
		}
	}
	if s.OccurredEnd.Equal(s.OccurredStart) {
		s.OccurredEnd = time.Time{}
	}
	return s
}

// StageGroup is the ChatRequest stage of group consolidation's calls.
const StageGroup = "group"

const groupSystem = `You consolidate a long-term memory. You get several facts that an embedding search found similar, oldest first, each with its speaker and date. Write ONE fact that replaces them all: a short, self-contained statement that keeps every person, name, number, place and date they hold (say who, and when if it matters), and drops only repetition. Do not add anything the facts do not say.`

const groupSchema = `{
  "type": "object",
  "properties": {
    "summary": {"type": "string", "description": "the one fact that replaces the group"}
  },
  "required": ["summary"],
  "additionalProperties": false
}`

// askSummary asks llm for the summary of facts. A failed call, a
// malformed answer or an empty summary is an error.
func askSummary(ctx context.Context, llm memory.LLM, facts []*memory.Fact) (string, error) {
	var b strings.Builder
	for i, f := range facts {
		fmt.Fprintf(&b, "%d. %s%s\n", i+1, f.Body(), factDay(f))
	}
	resp, err := llm.Chat(ctx, &memory.ChatRequest{
		Stage:    StageGroup,
		System:   groupSystem,
		Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: b.String()}},
		Schema:   &memory.Schema{Name: "group_summary", Description: "one fact replacing the group", JSON: json.RawMessage(groupSchema)},
	})
	if err != nil {
		return "", err
	}
	var ans struct {
		Summary string `json:"summary"`
	}
	if err := json.Unmarshal(resp.JSON, &ans); err != nil {
		return "", memory.Errorf(memory.EINVALID, "group summary: malformed answer: %v", err)
	}
	if s := strings.TrimSpace(ans.Summary); s != "" {
		return s, nil
	}
	return "", memory.Errorf(memory.EINVALID, "group summary: empty")
}

// vecCosine is the cosine similarity of two vectors of one length.
func vecCosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
