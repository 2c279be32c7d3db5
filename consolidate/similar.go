package consolidate

import (
	"context"
	"encoding/json"
	"errors"

	"fmt"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// SimilarMergeStore is what the fact merge by similarity reads and
// writes: [MergeStore], the facts' stored vectors and their neighbours
// in the vector index, and the verdicts remembered between runs.
type SimilarMergeStore interface {
	MergeStore
	memory.FactVectors
	memory.MergeVerdicts
	Facts(ctx context.Context, bankID string, ids []string) ([]*memory.Fact, error)
	SearchVector(ctx context.Context, bankID string, vec []float32, k int, f memory.Filter) ([]memory.Hit, error)
}

// SimilarOptions tunes [MergeSimilar]. The zero value merges near-exact
// duplicates of every active fact with the default numbers.
type SimilarOptions struct {
	// LLM, when set, judges the pairs above Defaults.LLMCosine that are
	// not near-exact; nil merges near-exact pairs only.
	LLM memory.LLM
	// Since, when set, restricts the walk to facts created at or after it
	// (an incremental run: the facts stored since the pass's last good
	// run; their neighbours may be older). Zero walks every active fact.
	Since time.Time
	// Defaults are the thresholds; the zero value means the seeds'
	// (defaultMergeDefaults).
	Defaults MergeDefaults
	// PageSize is the walk's page; 0 is DefaultMergePageSize.
	PageSize int
	// Now stamps merges and verdicts; nil is time.Now.
	Now func() time.Time
}

// SimilarResult counts what one run of [MergeSimilar] did.
type SimilarResult struct {
	// Searched is how many facts had their neighbours searched.
	Searched int `json:"searched"`
	// NearExact is how many facts were merged as near-exact duplicates.
	NearExact int `json:"near_exact"`
	// Candidates is how many pairs were above the LLM's cosine and not
	// near-exact (with or without an LLM to judge them).
	Candidates int `json:"candidates"`
	// Remembered is how many candidates an earlier verdict settled.
	Remembered int `json:"remembered"`
	// Asked is how many pairs were put to the LLM.
	Asked int `json:"asked"`
	// Merged is how many pairs the LLM judged the same and were merged.
	Merged int `json:"merged"`
	// Different is how many pairs the LLM judged different.
	Different int `json:"different"`
	// Failed is how many asked pairs got no usable verdict (the call
	// failed or the answer was malformed); they are asked again next run.
	Failed int `json:"failed"`
}

// MergeSimilar is the fact merge by similarity (seed 000 "Fact Merge";
// DESIGN §4.6 and §6). It walks the bank's active facts a page at a time
// (newest first; with opts.Since only those created since), asks the
// vector index for each fact's opts.Defaults.Neighbours nearest active
// facts — never all pairs — and for each neighbour above the thresholds:
//
//   - near-exact (no LLM needed): cosine ≥ NearExactCosine and
//     [NearExact] (the same speaker, for an experience the same day as
//     [memory.FactDuplicateKey] has it, the same wording up to fillers
//     and the same numbers, names and negations) → merged;
//   - otherwise, with an LLM, cosine ≥ LLMCosine and no earlier verdict
//     on the pair → the fact and its candidates go to the LLM in one
//     structured call; "same" is merged, "different" remembered
//     ([memory.MergeVerdicts]) so that the pair is never asked again.
//
// A merge keeps the fact with more entity refs, then more accesses, then
// the newer ([memory.FactMerger] moves refs, counts, links and
// observation sources). A fact merged during the run is skipped when its
// turn comes. A failed or malformed LLM answer counts its pairs as
// failed and the walk goes on; a store error or the end of ctx stops
// the run, returned with the counts so far. Each merge and each verdict
// is whole, so a run stopped half-way is finished by the next.
func MergeSimilar(ctx context.Context, st SimilarMergeStore, bank string, opts SimilarOptions) (*SimilarResult, error) {
	d := opts.Defaults
	if d == (MergeDefaults{}) {
		d = defaultMergeDefaults()
	}
	size := opts.PageSize
	if size == 0 {
		size = DefaultMergePageSize
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	m := &similarMerge{st: st, bank: bank, d: d, llm: opts.LLM, now: now, res: &SimilarResult{}, gone: map[string]bool{}}
	err := walkActive(ctx, st, bank, size, opts.Since, func(walk []*memory.Fact) error { return m.page(ctx, walk) })
	var we errWalk
	switch {
	case errors.As(err, &we):
		return m.res, we.err
	case err != nil:
		return m.res, fmt.Errorf("merge similar: list facts: %w", err)
	}
	return m.res, nil
}

type similarMerge struct {
	st   SimilarMergeStore
	bank string
	d    MergeDefaults
	llm  memory.LLM
	now  func() time.Time
	res  *SimilarResult
	gone map[string]bool // merged away during this run
}

// page handles one page of the walk.
func (m *similarMerge) page(ctx context.Context, facts []*memory.Fact) error {
	if len(facts) == 0 {
		return nil
	}
	ids := make([]string, len(facts))
	for i, f := range facts {
		ids[i] = f.ID
	}
	vecs, err := m.st.FactEmbeddings(ctx, m.bank, ids)
	if err != nil {
		return fmt.Errorf("merge similar: embeddings: %w", err)
	}
	floor := min(m.d.NearExactCosine, m.d.LLMCosine)
	if m.llm == nil {
		floor = m.d.NearExactCosine
	}
	for _, f := range facts {
		if err := ctx.Err(); err != nil {
			return err
		}
		vec := vecs[f.ID]
		if m.gone[f.ID] || len(vec) == 0 {
			continue
		}
		m.res.Searched++
		hits, err := m.st.SearchVector(ctx, m.bank, vec, m.d.Neighbours+1, memory.Filter{})
		if err != nil {
			return fmt.Errorf("merge similar: search %s: %w", f.ID, err)
		}
		score := map[string]float64{}
		var near []string
		for _, h := range hits {
			if h.ID != f.ID && !m.gone[h.ID] && h.Score >= floor {
				score[h.ID] = h.Score
				near = append(near, h.ID)
			}
		}
		if len(near) == 0 {
			continue
		}
		nfs, err := m.st.Facts(ctx, m.bank, near)
		if err != nil {
			return fmt.Errorf("merge similar: read neighbours: %w", err)
		}
		var ask []*memory.Fact
		for _, n := range nfs {
			if n.Status != "" && n.Status != memory.StatusActive {
				continue
			}
			if score[n.ID] >= m.d.NearExactCosine && NearExact(f, n) {
				merged, err := m.merge(ctx, f, n)
				if err != nil {
					return err
				}
				if merged {
					m.res.NearExact++
				}
				if m.gone[f.ID] {
					break
				}
				continue
			}
			if score[n.ID] >= m.d.LLMCosine {
				m.res.Candidates++
				ask = append(ask, n)
			}
		}
		if m.llm == nil || len(ask) == 0 || m.gone[f.ID] {
			continue
		}
		if err := m.judge(ctx, f, ask); err != nil {
			return err
		}
	}
	return nil
}

// NearExact reports whether two facts may merge without an LLM once
// their cosine is high enough: the same speaker (case-folded), for an
// experience the same kind and day (the same sentence about two days is
// two events), the same words in the same order up to fillers
// ([SameWording]) and the same particulars ([SameParticulars]: numbers,
// names, negations).
func NearExact(a, b *memory.Fact) bool {
	if !strings.EqualFold(strings.TrimSpace(a.Speaker), strings.TrimSpace(b.Speaker)) {
		return false
	}
	if a.Kind == memory.KindExperience || b.Kind == memory.KindExperience {
		if a.Kind != b.Kind || a.EventTime().UTC().Format(time.DateOnly) != b.EventTime().UTC().Format(time.DateOnly) {
			return false
		}
	}
	return SameWording(a.Text, b.Text) && SameParticulars(a.Text, b.Text)
}

// merge folds one of a, b into the other by the keeper rule and reports
// whether a merge happened.
func (m *similarMerge) merge(ctx context.Context, a, b *memory.Fact) (bool, error) {
	keeper, err := pickKeeper(ctx, m.st, m.bank, []*memory.Fact{a, b})
	if err != nil {
		return false, err
	}
	dup := a.ID
	if dup == keeper {
		dup = b.ID
	}
	ok, err := m.st.MergeFact(ctx, m.bank, dup, keeper, m.now())
	if memory.ErrorCode(err) == memory.ECONFLICT {
		// Retain or another pass changed one of them since it was read:
		// the next run sees the new state.
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("merge similar: %w", err)
	}
	if ok {
		m.gone[dup] = true
	}
	return ok, nil
}

// judge puts f and the candidates no verdict settled yet to the LLM and
// applies its answer.
func (m *similarMerge) judge(ctx context.Context, f *memory.Fact, cands []*memory.Fact) error {
	pairs := make([]memory.FactPair, len(cands))
	for i, c := range cands {
		pairs[i] = memory.NewFactPair(f.ID, c.ID)
	}
	known, err := m.st.PairVerdicts(ctx, m.bank, pairs)
	if err != nil {
		return fmt.Errorf("merge similar: verdicts: %w", err)
	}
	var ask []*memory.Fact
	for i, c := range cands {
		if _, ok := known[pairs[i]]; ok {
			m.res.Remembered++
			continue
		}
		ask = append(ask, c)
	}
	if len(ask) == 0 {
		return nil
	}
	m.res.Asked += len(ask)
	verdicts, err := askSame(ctx, m.llm, f, ask)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		m.res.Failed += len(ask)
		return nil
	}
	var different []memory.PairVerdict
	for _, c := range ask {
		switch verdicts[c.ID] {
		case memory.VerdictSame:
			if m.gone[f.ID] || m.gone[c.ID] {
				continue // f was merged into an earlier candidate: the next run looks again
			}
			ok, err := m.merge(ctx, f, c)
			if err != nil {
				return err
			}
			if ok {
				m.res.Merged++
			}
		case memory.VerdictDifferent:
			m.res.Different++
			different = append(different, memory.PairVerdict{Pair: memory.NewFactPair(f.ID, c.ID), Verdict: memory.VerdictDifferent, At: m.now()})
		default:
			m.res.Failed++ // not answered
		}
	}
	if len(different) > 0 {
		if err := m.st.SavePairVerdicts(ctx, m.bank, different); err != nil {
			return fmt.Errorf("merge similar: save verdicts: %w", err)
		}
	}
	return nil
}

// StageMerge is the ChatRequest stage of the fact merge's LLM calls.
const StageMerge = "fact-merge"

const factMergeSystem = `You deduplicate a memory store. You get one FACT and a few CANDIDATES that an embedding search found similar to it. For each candidate, answer "same" if it states exactly the same fact as FACT (a rephrasing, the same thing said twice), or "different" if it says anything FACT does not: another person or speaker's own experience, another number, amount, date, time, place or name, another event on another day, a negation, a change of state, or a more or less specific claim. When in doubt, answer "different": merging loses a fact, keeping both loses nothing.`

const factMergeSchema = `{
  "type": "object",
  "properties": {
    "verdicts": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "candidate": {"type": "string", "description": "the candidate's id"},
          "verdict": {"type": "string", "enum": ["same", "different"]}
        },
        "required": ["candidate", "verdict"],
        "additionalProperties": false
      }
    }
  },
  "required": ["verdicts"],
  "additionalProperties": false
}`

// askSame asks llm whether each candidate states the same fact as f and
// returns the verdicts by candidate id; ids the model did not name are
// absent. A failed call or a malformed answer is an error.
func askSame(ctx context.Context, llm memory.LLM, f *memory.Fact, cands []*memory.Fact) (map[string]memory.Verdict, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "FACT: %s%s\n\nCANDIDATES:\n", f.Body(), factDay(f))
	for _, c := range cands {
		fmt.Fprintf(&b, "%s: %s%s\n", c.ID, c.Body(), factDay(c))
	}
	resp, err := llm.Chat(ctx, &memory.ChatRequest{
		Stage:    StageMerge,
		System:   factMergeSystem,
		Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: b.String()}},
		Schema:   &memory.Schema{Name: "fact_merge", Description: "same or different, per candidate", JSON: json.RawMessage(factMergeSchema)},
	})
	if err != nil {
		return nil, err
	}
	var ans struct {
		Verdicts []struct {
			Candidate string `json:"candidate"`
			Verdict   string `json:"verdict"`
		} `json:"verdicts"`
	}
	if err := json.Unmarshal(resp.JSON, &ans); err != nil {
		return nil, memory.Errorf(memory.EINVALID, "fact merge: malformed answer: %v", err)
	}
	out := map[string]memory.Verdict{}
	for _, v := range ans.Verdicts {
		switch memory.Verdict(v.Verdict) {
		case memory.VerdictSame, memory.VerdictDifferent:
			out[strings.TrimSpace(v.Candidate)] = memory.Verdict(v.Verdict)
		default:
			return nil, memory.Errorf(memory.EINVALID, "fact merge: verdict %q", v.Verdict)
		}
	}
	return out, nil
}

// factDay renders a fact's kind and event day for the LLM: " (experience, 2024-05-07)".
func factDay(f *memory.Fact) string {
	t := f.EventTime()
	if t.IsZero() {
		return ""
	}
	kind := f.Kind
	if kind == "" {
		kind = memory.KindWorld
	}
	return " (" + string(kind) + ", " + t.UTC().Format(time.DateOnly) + ")"
}

// Counts is r as a run record's counts (beside [MergeResult.Counts]'s,
// the LLM's merges as llm_merged).
func (r *SimilarResult) Counts() map[string]int {
	return map[string]int{
		"searched": r.Searched, "near_exact": r.NearExact, "candidates": r.Candidates, "remembered": r.Remembered,
		"asked": r.Asked, "llm_merged": r.Merged, "different": r.Different, "failed": r.Failed,
	}
}
