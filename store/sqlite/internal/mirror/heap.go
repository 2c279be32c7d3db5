package mirror

import (
	"container/heap"

	"github.com/mnemo-ai/mnemo/memory"
)

// scored is a candidate of a search: a slot and its score.
type scored struct {
	slot  int
	score float64
}

// hitHeap keeps the best k of what it is offered: a min-heap on score in
// which, among equal scores, the later slot (newer fact) is the smaller,
// so earlier facts win ties deterministically.
type hitHeap []scored

func (h hitHeap) Len() int { return len(h) }
func (h hitHeap) Less(a, b int) bool {
	if h[a].score != h[b].score {
		return h[a].score < h[b].score
	}
	return h[a].slot > h[b].slot
}
func (h hitHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *hitHeap) Push(v any)   { *h = append(*h, v.(scored)) }
func (h *hitHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}

// offer keeps s if it is among the best k offered so far.
func (h *hitHeap) offer(k int, s scored) {
	if len(*h) < k {
		heap.Push(h, s)
		return
	}
	top := (*h)[0]
	if s.score > top.score || (s.score == top.score && s.slot < top.slot) {
		(*h)[0] = s
		heap.Fix(h, 0)
	}
}

// hits empties the heap into hits, best first, naming each slot by id.
func (h *hitHeap) hits(id func(slot int) string) []memory.Hit {
	out := make([]memory.Hit, h.Len())
	for j := len(out) - 1; j >= 0; j-- {
		top := heap.Pop(h).(scored)
		out[j] = memory.Hit{ID: id(top.slot), Score: top.score}
	}
	return out
}
