package mirror

import (
	"context"
	"time"

	"github.com/mnemo-ai/mnemo/internal/hnsw"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/viterin/vek/vek32"
)

// selectivitySample is the slots sampled to estimate a filter's
// selectivity.
const selectivitySample = 2048

// SearchVector returns the bank's k facts whose vectors are nearest vec
// (cosine: vectors are unit length) and pass f, best first. The
// candidates come from the int8 vectors — an exact scan, or in a bank of
// ANNThreshold vectors or more an HNSW walk over the slots the graph has
// linked plus an exact scan of the rest — and the best k + a margin are
// rescored with the float32 originals, so scores are exact cosines and,
// below the threshold (or under a selective filter), the hits are the
// exact answer. A vec of another dimension than the bank's is
// memory.EINVALID.
func (m *Mirror) SearchVector(ctx context.Context, bank string, vec []float32, k int, f memory.Filter) ([]memory.Hit, error) {
	return m.searchVector(ctx, bank, vec, k, f, false)
}

// SearchVectorExact is [Mirror.SearchVector] without the graph: an exact
// scan of every vector, whatever the bank's size.
func (m *Mirror) SearchVectorExact(ctx context.Context, bank string, vec []float32, k int, f memory.Filter) ([]memory.Hit, error) {
	return m.searchVector(ctx, bank, vec, k, f, true)
}

// searchVector is SearchVector, through the graph unless exact.
func (m *Mirror) searchVector(ctx context.Context, bank string, vec []float32, k int, f memory.Filter, exact bool) ([]memory.Hit, error) {
	x, err := m.index(ctx, bank)
	if err != nil {
		return nil, err
	}
	if k <= 0 {
		return nil, nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.dim == 0 {
		return nil, nil
	}
	if len(vec) != x.dim {
		return nil, memory.Errorf(memory.EINVALID, "query vector has dimension %d, bank %q holds dimension %d", len(vec), bank, x.dim)
	}
	mt := newMatcher(f)
	q := x.vecs.Query(vec)
	kk := k + max(16, k/2) // rescored: int8 ranks within ~1e-4 of exact
	h := make(hitHeap, 0, kk+1)
	from := 0
	if a := x.ann; a != nil && !exact {
		if done := int(a.done.Load()); done > 0 && x.searchANN(a, q, kk, &mt, done, &h) {
			from = done
		}
	}
	x.scan(q, kk, &mt, from, len(x.state), &h)
	return x.rescore(vec, &h, k), nil
}

// accepts reports whether slot i holds a vector the filter passes.
func (x *bankIndex) accepts(m *matcher, i int) bool {
	st := x.state[i]
	if m.simple {
		return st&(stOpen|stSensitive) == stOpen
	}
	return st&(stLive|stVec) == stLive|stVec && m.match(&x.meta[i])
}

// scan offers the slots [from, to) the filter passes to h by int8 score.
func (x *bankIndex) scan(q *hnsw.Query, kk int, m *matcher, from, to int, h *hitHeap) {
	for i := from; i < to; i++ {
		st := x.state[i]
		if m.simple {
			if st&(stOpen|stSensitive) != stOpen {
				continue
			}
		} else if st&(stLive|stVec) != stLive|stVec || !m.match(&x.meta[i]) {
			continue
		}
		h.offer(kk, scored{i, float64(x.vecs.Dot(q, i))})
	}
}

// searchANN offers h the best kk slots of [0, done) by a walk of the graph
// and reports true, or reports false, leaving h alone, when the filter is
// too selective for the walk (the caller then scans every slot).
func (x *bankIndex) searchANN(a *annIndex, q *hnsw.Query, kk int, m *matcher, done int, h *hitHeap) bool {
	sel := x.selectivity(m, done)
	if sel < DefaultExactSelectivity {
		return false
	}
	ef := max(x.efSearch, kk)
	if !m.simple {
		// About ef accepted nodes need ef/sel visited ones.
		ef = min(int(float64(ef)/sel), 8*max(x.efSearch, kk))
	}
	accept := func(id uint32) bool { return int(id) < done && x.accepts(m, int(id)) }
	res, capped := a.g.Search(q, kk, ef, accept, done/2)
	if capped || (len(res) < kk && float64(kk) <= sel*float64(done)) {
		return false // the walk could not find enough: scan
	}
	for _, r := range res {
		h.offer(kk, scored{int(r.ID), float64(r.Sim)})
	}
	return true
}

// selectivity estimates the share of slots [0, done) the filter passes:
// counted for the zero filter, sampled at a fixed stride otherwise.
func (x *bankIndex) selectivity(m *matcher, done int) float64 {
	if m.simple {
		return float64(x.open) / float64(len(x.state))
	}
	step := max(1, done/selectivitySample)
	n, hit := 0, 0
	for i := 0; i < done; i += step {
		n++
		if x.accepts(m, i) {
			hit++
		}
	}
	return float64(hit) / float64(n)
}

// rescore empties h (int8 candidates), scores each with its float32
// vector and returns the best k, best first; equal scores go to the
// earlier slot.
func (x *bankIndex) rescore(vec []float32, h *hitHeap, k int) []memory.Hit {
	out := make(hitHeap, 0, k+1)
	var buf []float32
	var raw []byte
	for _, c := range *h {
		var err error
		buf, raw, err = x.exact.read(c.slot, buf, raw)
		sc := c.score
		if err == nil {
			sc = float64(vek32.Dot(vec, buf))
		}
		out.offer(k, scored{c.slot, sc})
	}
	*h = (*h)[:0]
	return out.hits(x.id)
}

// WaitIndexed loads the bank's index and waits until its graph, if the
// bank has one, has linked every vector; benchmarks call it to time
// searches in the steady state. It returns ctx's error if ctx ends first.
func (m *Mirror) WaitIndexed(ctx context.Context, bank string) error {
	x, err := m.index(ctx, bank)
	if err != nil {
		return err
	}
	for {
		x.mu.RLock()
		a, n := x.ann, len(x.state)
		x.mu.RUnlock()
		if a == nil || int(a.done.Load()) >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Stats describes a bank's fact index.
type Stats struct {
	// Slots is the index's slots, Live those of facts not removed.
	Slots, Live int
	// VectorBytes is the memory of the int8 vectors; GraphBytes of the
	// HNSW links (0 without a graph); Linked the slots the graph covers.
	VectorBytes, GraphBytes int64
	Linked                  int
}

// Stats returns the state of the bank's fact index, loading it.
func (m *Mirror) Stats(ctx context.Context, bank string) (Stats, error) {
	x, err := m.index(ctx, bank)
	if err != nil {
		return Stats{}, err
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	st := Stats{Slots: len(x.state), Live: x.live}
	if x.vecs != nil {
		st.VectorBytes = x.vecs.Bytes()
	}
	if x.ann != nil {
		st.GraphBytes = x.ann.g.Bytes()
		st.Linked = int(x.ann.done.Load())
	}
	return st, nil
}
