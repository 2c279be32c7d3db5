package consolidate

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// MergeStore is what the offline fact merge reads and writes: the bank's
// active facts a page at a time, their entity refs (to pick a keeper),
// and the merge itself.
type MergeStore interface {
	ListFacts(ctx context.Context, bankID string, q memory.FactQuery) (*memory.FactPage, error)
	EntityRefs(ctx context.Context, bankID string, factIDs []string) ([]memory.EntityRef, error)
	MergeFact(ctx context.Context, bankID, dup, keeper string, at time.Time) (bool, error)
}

// DefaultMergePageSize is how many facts one page of the merge's walk
// through a bank reads: the largest page a listing gives
// (memory.MaxPageSize).
const DefaultMergePageSize = memory.MaxPageSize

// MergeOptions tunes [MergeDuplicates]. The zero value is the default.
type MergeOptions struct {
	// PageSize is how many facts one listing page holds; 0 is
	// DefaultMergePageSize, at most memory.MaxPageSize.
	PageSize int
	// Now stamps the merges (the duplicate's expired_at); nil is
	// time.Now.
	Now func() time.Time
}

// MergeResult counts what one run of [MergeDuplicates] did.
type MergeResult struct {
	// Scanned is how many active facts the walk read.
	Scanned int `json:"scanned"`
	// Groups is how many sets of two or more duplicates it found.
	Groups int `json:"groups"`
	// Merged is how many facts were folded into a keeper.
	Merged int `json:"merged"`
}

// Counts is r as a run record's counts.
func (r *MergeResult) Counts() map[string]int {
	return map[string]int{"scanned": r.Scanned, "groups": r.Groups, "merged": r.Merged}
}

// MergeDuplicates is the fact merge without an LLM (issue 12; DESIGN §4.6
// and §6; seed 000 "Fact Merge"): it walks the bank's active facts once,
// groups them by [memory.DuplicateKey] (the same speaker and the same
// text up to case, white space and punctuation at the ends), and in each
// group of two or more keeps one fact — the one that lives longest (a
// long-term fact before a short-term one), then the one with more entity
// refs, then more accesses, then the newer (later created, then later
// stored) — and merges every other into it ([memory.FactMerger]: refs,
// counts, links and observation sources move to the keeper, the
// duplicate is superseded by it, nothing is deleted).
//
// Its cost is one walk of the bank plus one refs read and one merge per
// duplicate: grouping by key, never comparing pairs. Near-duplicates
// that differ in more than case, spacing or end punctuation — a changed
// number, another speaker — are never merged here. It is idempotent (a
// second run finds no group) and resumable (a run stopped half-way
// leaves merges that are each whole, and the next run finishes the
// rest). Facts written during the walk wait for the next run. An error
// stops the run and is returned with the counts so far.
func MergeDuplicates(ctx context.Context, st MergeStore, bank string, opts MergeOptions) (*MergeResult, error) {
	size := opts.PageSize
	if size == 0 {
		size = DefaultMergePageSize
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	res := &MergeResult{}
	groups := map[string][]*memory.Fact{}
	var order []string // keys in first-seen order, so runs are repeatable
	q := memory.FactQuery{Statuses: []memory.Status{memory.StatusActive}, Limit: size}
	for {
		page, err := st.ListFacts(ctx, bank, q)
		if err != nil {
			return res, fmt.Errorf("merge duplicates: list facts: %w", err)
		}
		for _, f := range page.Facts {
			res.Scanned++
			key := memory.FactDuplicateKey(f)
			if key == "" {
				continue
			}
			if _, ok := groups[key]; !ok {
				order = append(order, key)
			}
			groups[key] = append(groups[key], &memory.Fact{ID: f.ID, Seq: f.Seq, CreatedAt: f.CreatedAt, AccessCount: f.AccessCount, ExpiresAt: f.ExpiresAt})
		}
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	for _, key := range order {
		g := groups[key]
		if len(g) < 2 {
			continue
		}
		res.Groups++
		keeper, err := pickKeeper(ctx, st, bank, g)
		if err != nil {
			return res, err
		}
		for _, f := range g {
			if f.ID == keeper {
				continue
			}
			ok, err := st.MergeFact(ctx, bank, f.ID, keeper, now())
			if err != nil {
				return res, fmt.Errorf("merge duplicates: %w", err)
			}
			if ok {
				res.Merged++
			}
		}
	}
	return res, nil
}

// pickKeeper returns the id of the fact of g that stays: the one that
// lives longest (memory.CompareLifetime: a long-term fact before a
// short-term one, which the expire pass may prune and with it what was
// merged into it), then seed 000's order: more entity refs, then more
// accesses, then newer (CreatedAt, then Seq).
func pickKeeper(ctx context.Context, st MergeStore, bank string, g []*memory.Fact) (string, error) {
	ids := make([]string, len(g))
	for i, f := range g {
		ids[i] = f.ID
	}
	refs, err := st.EntityRefs(ctx, bank, ids)
	if err != nil {
		return "", fmt.Errorf("merge duplicates: entity refs: %w", err)
	}
	n := map[string]int{}
	for _, r := range refs {
		n[r.FactID]++
	}
	best := slices.MaxFunc(g, func(a, b *memory.Fact) int {
		return cmp.Or(
			memory.CompareLifetime(a, b),
			cmp.Compare(n[a.ID], n[b.ID]),
			cmp.Compare(a.AccessCount, b.AccessCount),
			a.CreatedAt.Compare(b.CreatedAt),
			cmp.Compare(a.Seq, b.Seq),
		)
	})
	return best.ID, nil
}

// The fact merge's numbers.
const (
	// DefaultMergeLLMCosine is the cosine above which two facts are put
	// to the LLM as a possible duplicate: 0.90 (seed 000 "Fact Merge",
	// "fact pairs above 0.90 cosine similarity").
	DefaultMergeLLMCosine = 0.90
	// DefaultNearExactCosine is the cosine at or above which two facts of
	// the same speaker (and, for events, the same day) whose particulars
	// agree ([SameParticulars]) merge without an LLM (DESIGN §4.6,
	// "near-exact duplicates"). Measured with the built-in embedder on
	// the LoCoMo and BEAM dev sets (docs/consolidation.md, "Fact merge";
	// TestMeasureNearExact).
	DefaultNearExactCosine = 0.95
	// DefaultMergeNeighbours is how many nearest facts the fact merge
	// asks the vector index for around each fact (k small: never all
	// pairs).
	DefaultMergeNeighbours = 5
)

// MergeDefaults holds the numbers of the fact merge, each a named default
// with the seed or measurement it comes from. Its fields carry json
// tags: the names a bank's overrides use (snake_case, prefixed by the
// pass).
type MergeDefaults struct {
	// LLMCosine is the least cosine of a pair the LLM judges
	// (DefaultMergeLLMCosine).
	LLMCosine float64 `json:"merge_llm_cosine"`
	// NearExactCosine is the least cosine of a near-exact pair merged
	// without an LLM (DefaultNearExactCosine); above 1 turns near-exact
	// merging off, leaving the exact key.
	NearExactCosine float64 `json:"merge_near_exact_cosine"`
	// Neighbours is k of each fact's vector search
	// (DefaultMergeNeighbours).
	Neighbours int `json:"merge_neighbours"`
}

// defaultMergeDefaults returns the seeds' numbers for the fact merge.
func defaultMergeDefaults() MergeDefaults {
	return MergeDefaults{LLMCosine: DefaultMergeLLMCosine, NearExactCosine: DefaultNearExactCosine, Neighbours: DefaultMergeNeighbours}
}
