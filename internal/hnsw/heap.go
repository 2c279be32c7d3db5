package hnsw

import "slices"

// candidate is a node and its similarity to the query.
type candidate struct {
	id  uint32
	sim float32
}

// sortCandidates orders best first; ties by id, so results are
// deterministic.
func sortCandidates(c []candidate) {
	slices.SortFunc(c, func(a, b candidate) int {
		switch {
		case a.sim > b.sim:
			return -1
		case a.sim < b.sim:
			return 1
		case a.id < b.id:
			return -1
		case a.id > b.id:
			return 1
		}
		return 0
	})
}

// maxHeap pops the most similar candidate.
type maxHeap []candidate

func (h *maxHeap) push(c candidate) {
	*h = append(*h, c)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p].sim >= a[i].sim {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *maxHeap) popMax() candidate {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	*h = a[:n]
	a = a[:n]
	i := 0
	for {
		l, r, b := 2*i+1, 2*i+2, i
		if l < n && a[l].sim > a[b].sim {
			b = l
		}
		if r < n && a[r].sim > a[b].sim {
			b = r
		}
		if b == i {
			break
		}
		a[b], a[i] = a[i], a[b]
		i = b
	}
	return top
}

// minHeap keeps the best candidates with the least similar on top;
// among equal similarities the larger id is the lesser, as in sortCandidates.
type minHeap []candidate

func worse(a, b candidate) bool { return a.sim < b.sim || (a.sim == b.sim && a.id > b.id) }

func (h minHeap) min() candidate { return h[0] }

func (h *minHeap) push(c candidate) {
	*h = append(*h, c)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !worse(a[i], a[p]) {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *minHeap) popMin() candidate {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	*h = a[:n]
	a = a[:n]
	i := 0
	for {
		l, r, b := 2*i+1, 2*i+2, i
		if l < n && worse(a[l], a[b]) {
			b = l
		}
		if r < n && worse(a[r], a[b]) {
			b = r
		}
		if b == i {
			break
		}
		a[b], a[i] = a[i], a[b]
		i = b
	}
	return top
}

// searcher is one search's scratch space, pooled.
type searcher struct {
	q        Query
	visited  []uint32 // epoch each node was last visited in
	epoch    uint32
	cand     maxHeap
	res      minHeap
	nb       []uint32
	maxVisit int
	capped   bool
}

func (s *searcher) reset(n int) {
	if len(s.visited) < n {
		s.visited = append(s.visited, make([]uint32, n-len(s.visited))...)
	}
	s.epoch++
	if s.epoch == 0 {
		clear(s.visited)
		s.epoch = 1
	}
}

// visit marks id visited and reports whether it was not before.
func (s *searcher) visit(id uint32) bool {
	if s.visited[id] == s.epoch {
		return false
	}
	s.visited[id] = s.epoch
	return true
}
