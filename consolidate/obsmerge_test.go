package consolidate_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// nearVec returns a unit vector within a hair of base (cosine above 0.999),
// different for each seed.
func nearVec(base []float32, seed string) []float32 {
	noise := storetest.TestVector(seed, len(base))
	out := make([]float32, len(base))
	var norm float64
	for i := range base {
		out[i] = base[i] + 0.01*noise[i]
		norm += float64(out[i]) * float64(out[i])
	}
	for i := range out {
		out[i] = float32(float64(out[i]) / math.Sqrt(norm))
	}
	return out
}

// running is the direction of every text about Sam's morning runs.
var running = storetest.TestVector("running", storetest.TestDimension)

// runEmbedder embeds texts that speak of mornings near running, the rest
// as storetest.TestVector: merged texts stay close to what they merged.
type runEmbedder struct{}

func (runEmbedder) Name() string   { return storetest.TestEmbedder }
func (runEmbedder) Dimension() int { return storetest.TestDimension }
func (runEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if strings.Contains(t, "morning") {
			out[i] = nearVec(running, t)
		} else {
			out[i] = storetest.TestVector(t, storetest.TestDimension)
		}
	}
	return out, nil
}

// putObs stores an observation with the embedding runEmbedder gives its
// text.
func (b *obsBank) putObs(id, text string, evidence int, created time.Time, sources ...string) *memory.Observation {
	b.t.Helper()
	vecs, _ := runEmbedder{}.Embed(b.ctx, []string{text})
	o := &memory.Observation{ID: id, Text: text, Kind: memory.ObservationPattern, SourceFactIDs: sources, EvidenceCount: evidence,
		Embedding: vecs[0], Status: memory.StatusActive, CreatedAt: created, UpdatedAt: created}
	if err := b.s.PutObservations(b.ctx, b.bank, []*memory.Observation{o}); err != nil {
		b.t.Fatal(err)
	}
	return o
}

func (b *obsBank) merge(llm memory.LLM, now time.Time) (*consolidate.ObservationMergeResult, error) {
	return consolidate.MergeObservations(b.ctx, b.s, runEmbedder{}, llm, b.bank, now, consolidate.NewDefaults().ObservationMerge)
}

func (b *obsBank) obs(id string) *memory.Observation {
	b.t.Helper()
	got, err := b.s.Observations(b.ctx, b.bank, []string{id})
	if err != nil || len(got) != 1 {
		b.t.Fatalf("observation %s: %v, %d found", id, err, len(got))
	}
	return got[0]
}

func mergeCounts(r *consolidate.ObservationMergeResult) string {
	if r == nil {
		return "<nil>"
	}
	return fmt.Sprintf("pairs %d, merged %d, kept %d, failed %d", r.Pairs, r.Merged, r.Kept, r.Failed)
}

func mergeAnswer(action, text string) map[string]any {
	return map[string]any{"action": action, "text": text, "reason": "scripted"}
}

// Two near-identical observations merge into the one with more evidence:
// the merged text, both sources in time order, the evidence summed, a
// history entry naming the other, which is superseded and kept. An
// unrelated observation is never asked about.
func TestMergeObservations_Merge(t *testing.T) {
	b := newObsBank(t)
	f := []string{
		b.fact("Sam", "Sam ran at 6am", t0),
		b.fact("Sam", "Sam ran before work", t0.Add(day)),
		b.fact("Sam", "Sam ran in the rain at dawn", t0.Add(2*day)),
		b.fact("Sam", "Sam's alarm rings at 5:30 for his run", t0.Add(3*day)),
	}
	a := b.putObs("obs_a", "Sam runs every morning", 2, t0, f[0], f[2])
	k := b.putObs("obs_b", "Sam goes running each morning", 3, t0.Add(day), f[3], f[1], f[2])
	b.putObs("obs_c", "Sam collects stamps", 4, t0)
	now := t0.Add(10 * day)
	llm := &consolidate.ScriptLLM{Answer: func(n int, req *memory.ChatRequest) (any, error) {
		if req.Schema == nil || req.Schema.Name != "observation_merge" || req.Stage != consolidate.StageObservationMerge {
			return nil, fmt.Errorf("request %d: schema %v", n, req.Schema)
		}
		return mergeAnswer("merge", "Sam runs every morning, rain or shine"), nil
	}}
	res, err := b.merge(llm, now)
	if err != nil || res.Pairs != 1 || res.Merged != 1 || llm.Calls() != 1 {
		t.Fatalf("merge: %s, %v, %d calls; want one pair merged", mergeCounts(res), err, llm.Calls())
	}
	p := llm.Prompt(0)
	// The keeper (more evidence) is A in the prompt, with its sources.
	if !strings.Contains(p, "A. (pattern; 3 supporting facts; since 2023-05-09) Sam goes running each morning") ||
		!strings.Contains(p, "B. (pattern; 2 supporting facts; since 2023-05-08) Sam runs every morning") || !strings.Contains(p, "- [2023-05-08] Sam: Sam ran at 6am") {
		t.Errorf("prompt:\n%s", p)
	}
	got := b.obs(k.ID)
	if got.Text != "Sam runs every morning, rain or shine" || got.EvidenceCount != 5 || got.Status != memory.StatusActive ||
		!slices.Equal(got.SourceFactIDs, f) || len(got.History) != 1 || got.History[0].Previous != k.Text ||
		!got.History[0].ChangedAt.Equal(now) || !strings.Contains(got.History[0].Reason, a.ID) || !got.UpdatedAt.Equal(now) {
		t.Errorf("keeper: %+v; want the merged text, evidence 5, sources %q in time order, one history entry", *got, f)
	}
	other := b.obs(a.ID)
	if other.Status != memory.StatusSuperseded || other.Text != a.Text || !slices.Equal(other.SourceFactIDs, a.SourceFactIDs) {
		t.Errorf("other: %+v; want superseded, otherwise as it was", *other)
	}
	if vecs, _ := b.s.ObservationVectors(b.ctx, b.bank); len(vecs) != 2 || vecs[a.ID] != nil {
		t.Errorf("active vectors: %d, want the keeper and the stamps", len(vecs))
	}
	if hits, _ := b.s.SearchObservationsVector(b.ctx, b.bank, running, 3); len(hits) != 2 || hits[0].ID != k.ID {
		t.Errorf("search after the merge: %v, want the keeper first and the superseded one gone", hits)
	}
	// Nothing left above the threshold: a second run asks nothing.
	res, err = b.merge(llm, now.Add(day))
	if err != nil || res.Pairs != 0 || llm.Calls() != 1 {
		t.Errorf("second run: %s, %v, %d calls; want nothing asked", mergeCounts(res), err, llm.Calls())
	}
}

// A pair kept apart is asked once in a run, however often the merge
// looks again; a malformed answer likewise, counted failed.
func TestMergeObservations_Keep(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer any
		kept   int
		failed int
	}{
		{"Keep", mergeAnswer("keep", ""), 1, 0},
		{"MergeWithoutText", mergeAnswer("merge", " "), 0, 1},
		{"UnknownAction", mergeAnswer("fuse", "x"), 0, 1},
		{"ProviderMalformed", memory.Errorf(memory.EINVALID, "malformed answer"), 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newObsBank(t)
			b.putObs("obs_a", "Sam runs every morning", 1, t0)
			b.putObs("obs_b", "Sam jogs every morning before work", 1, t0)
			llm := &consolidate.ScriptLLM{Answer: func(int, *memory.ChatRequest) (any, error) {
				if err, ok := c.answer.(error); ok {
					return nil, err
				}
				return c.answer, nil
			}}
			res, err := b.merge(llm, t0.Add(day))
			if err != nil || res.Pairs != 1 || res.Kept != c.kept || res.Failed != c.failed || res.Merged != 0 || llm.Calls() != 1 {
				t.Errorf("run: %s, %v, %d calls; want the pair asked once, kept %d, failed %d", mergeCounts(res), err, llm.Calls(), c.kept, c.failed)
			}
			for _, id := range []string{"obs_a", "obs_b"} {
				if o := b.obs(id); o.Status != memory.StatusActive || o.History != nil {
					t.Errorf("%s after the run: %+v, want unchanged", id, *o)
				}
			}
		})
	}
}

// Six copies of one observation, more than the neighbours each search
// returns, end as one keeper: each merge's new vector is searched again
// and the merge looks until no pair is left.
func TestMergeObservations_Chain(t *testing.T) {
	b := newObsBank(t)
	var ids []string
	for i := range 6 {
		id := fmt.Sprintf("obs_%d", i)
		ids = append(ids, id)
		b.putObs(id, fmt.Sprintf("Sam runs every morning (copy %d)", i), i+1, t0.Add(time.Duration(i)*time.Hour), fmt.Sprintf("f%d", i))
	}
	b.putObs("obs_x", "Sam collects stamps", 1, t0)
	llm := &consolidate.ScriptLLM{Answer: func(n int, _ *memory.ChatRequest) (any, error) {
		return mergeAnswer("merge", fmt.Sprintf("Sam runs every morning (merge %d)", n)), nil
	}}
	res, err := b.merge(llm, t0.Add(day))
	if err != nil || res.Merged != 5 || res.Pairs != 5 {
		t.Fatalf("run: %s, %v; want 5 merges", mergeCounts(res), err)
	}
	active := b.observations(memory.StatusActive)
	if len(active) != 2 {
		t.Fatalf("active after the run: %d, want the keeper and the stamps", len(active))
	}
	keeper := active[0]
	if keeper.ID == "obs_x" {
		keeper = active[1]
	}
	// Pairs go most similar first, so which copy ends as the keeper
	// depends on the vectors; it holds everything.
	if !slices.Contains(ids, keeper.ID) || keeper.EvidenceCount != 21 || !sameSet(keeper.SourceFactIDs, []string{"f0", "f1", "f2", "f3", "f4", "f5"}) || len(keeper.History) == 0 {
		t.Errorf("keeper: %+v; want evidence 21, the 6 sources, a history", *keeper)
	}
	if sup := b.observations(memory.StatusSuperseded); len(sup) != 5 {
		t.Errorf("superseded: %d, want 5", len(sup))
	}
}

// The keeper is the one with more evidence, then the older, then the
// smaller id.
func TestMergeObservations_Keeper(t *testing.T) {
	for _, c := range []struct {
		name             string
		evA, evB         int
		createdA, create time.Time
		want             string
	}{
		{"MoreEvidence", 1, 2, t0, t0, "obs_b"},
		{"Older", 2, 2, t0.Add(time.Hour), t0, "obs_b"},
		{"SmallerID", 2, 2, t0, t0, "obs_a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newObsBank(t)
			b.putObs("obs_a", "Sam runs every morning", c.evA, c.createdA)
			b.putObs("obs_b", "Sam jogs every morning", c.evB, c.create)
			llm := &consolidate.ScriptLLM{Answer: func(int, *memory.ChatRequest) (any, error) { return mergeAnswer("merge", "Sam runs each morning"), nil }}
			if _, err := b.merge(llm, t0.Add(day)); err != nil {
				t.Fatal(err)
			}
			if got := b.observations(memory.StatusActive); len(got) != 1 || got[0].ID != c.want {
				t.Errorf("keeper: %v, want %s", got, c.want)
			}
		})
	}
}

// The provider down stops the run with its error and writes nothing.
func TestMergeObservations_ProviderDown(t *testing.T) {
	b := newObsBank(t)
	b.putObs("obs_a", "Sam runs every morning", 1, t0)
	b.putObs("obs_b", "Sam jogs every morning", 1, t0)
	down := memory.Errorf(memory.EUNAVAILABLE, "provider down")
	llm := &consolidate.ScriptLLM{Answer: func(int, *memory.ChatRequest) (any, error) { return nil, down }}
	res, err := b.merge(llm, t0.Add(day))
	if !errors.Is(err, down) || res.Merged != 0 {
		t.Errorf("run: %s, %v; want the provider's error", mergeCounts(res), err)
	}
	if got := b.observations(memory.StatusActive); len(got) != 2 || got[0].History != nil || got[1].History != nil {
		t.Errorf("after the failed run: %+v, want both unchanged", got)
	}
	d := consolidate.NewDefaults().ObservationMerge
	d.Threshold = 1.5
	if _, err := consolidate.MergeObservations(b.ctx, b.s, runEmbedder{}, llm, b.bank, t0, d); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("threshold 1.5: %v, want EINVALID", err)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
