package consolidate

import (
	"cmp"
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/viterin/vek/vek32"
)

// obsIndex is a pass's in-memory copy of the vectors of a bank's active
// observations, loaded once per run ([memory.ObservationVectors]) and
// kept current by the pass as it creates, updates and merges
// observations. The per-fact pass searches it once per fact and the
// observation merge once per observation: against the store, each search
// read every observation's vector back from the database (measured: the
// per-fact pass at 10,500 facts and ~1,300 observations spent 2.5 ms a
// fact there, ten times the rest), which made the passes quadratic in
// practice. A search is exact: a dot product per observation in memory,
// the same scores the store's search gives.
type obsIndex struct {
	ids  []string
	vecs [][]float32
	pos  map[string]int
}

// newObsIndex indexes vecs (by observation id).
func newObsIndex(vecs map[string][]float32) *obsIndex {
	x := &obsIndex{pos: make(map[string]int, len(vecs))}
	for _, id := range slices.Sorted(func(yield func(string) bool) {
		for id := range vecs {
			if !yield(id) {
				return
			}
		}
	}) {
		x.put(id, vecs[id])
	}
	return x
}

// put adds id's vector or replaces it; a nil vector removes id.
func (x *obsIndex) put(id string, vec []float32) {
	if vec == nil {
		x.remove(id)
		return
	}
	if i, ok := x.pos[id]; ok {
		x.vecs[i] = vec
		return
	}
	x.pos[id] = len(x.ids)
	x.ids = append(x.ids, id)
	x.vecs = append(x.vecs, vec)
}

// remove drops id (an observation merged away or no longer active).
func (x *obsIndex) remove(id string) {
	i, ok := x.pos[id]
	if !ok {
		return
	}
	last := len(x.ids) - 1
	x.ids[i], x.vecs[i] = x.ids[last], x.vecs[last]
	x.pos[x.ids[i]] = i
	x.ids, x.vecs = x.ids[:last], x.vecs[:last]
	delete(x.pos, id)
}

// len is how many observations the index holds.
func (x *obsIndex) len() int { return len(x.ids) }

// search returns the k observations whose vectors have the highest dot
// product with vec (the cosine, for the unit vectors embedders give),
// best first, ties by id. Vectors of another length are skipped.
func (x *obsIndex) search(vec []float32, k int) []memory.Hit {
	if k <= 0 || len(vec) == 0 {
		return nil
	}
	better := func(a, b memory.Hit) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID)) }
	top := make([]memory.Hit, 0, k+1)
	for i, v := range x.vecs {
		if len(v) != len(vec) {
			continue
		}
		h := memory.Hit{ID: x.ids[i], Score: float64(vek32.Dot(vec, v))}
		if len(top) == k && better(h, top[k-1]) >= 0 {
			continue
		}
		at, _ := slices.BinarySearchFunc(top, h, better)
		top = slices.Insert(top, at, h)
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}
