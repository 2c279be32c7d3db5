package mirror

import (
	"sync"
	"sync/atomic"

	"github.com/mnemo-ai/mnemo/internal/hnsw"
)

// annBatch bounds the nodes the builder links before it publishes them to
// searches.
const annBatch = 16_384

// linked, when set (by tests), is called after each node the builder
// links: the build made observable.
var linked func()

// annIndex is a bank's HNSW graph and the builder linking it.
type annIndex struct {
	g    *hnsw.Graph
	vecs *hnsw.Int8Vectors
	done atomic.Int64 // slots [0, done) are linked
	wake chan struct{}
	stop chan struct{}
	// stopped is closed when the builder has returned; started is set
	// once it runs (a graph read from the index file waits for
	// maybeBuild).
	stopped chan struct{}
	started bool
	halt    atomic.Bool
	// caughtUp, when not nil, is called by the builder each time it has
	// linked every slot there was.
	caughtUp func()
}

// newANN returns a graph over vecs whose first done slots are linked,
// its builder not started.
func newANN(g *hnsw.Graph, vecs *hnsw.Int8Vectors, done int) *annIndex {
	a := &annIndex{g: g, vecs: vecs, wake: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	a.done.Store(int64(done))
	return a
}

// maybeBuild starts the graph of a bank that reached the threshold, or
// the builder of one read from the index file, or wakes its builder to
// link new slots. The caller holds x.mu.
func (m *Mirror) maybeBuild(bank string, x *bankIndex) {
	if x.ann != nil && x.ann.started {
		select {
		case x.ann.wake <- struct{}{}:
		default:
		}
		return
	}
	if x.ann == nil && (x.vecs == nil || x.annThreshold <= 0 || x.live < x.annThreshold) {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	if x.ann == nil {
		x.ann = newANN(hnsw.New(x.vecs, uint64(x.created)), x.vecs, 0)
	}
	a := x.ann
	a.started = true
	a.caughtUp = func() {
		// The graph the file lacks gets written (behind), once.
		x.mu.Lock()
		defer x.mu.Unlock()
		if x.ann == a && x.behind() {
			m.saveLater(bank, x)
		}
	}
	workers := max(1, m.settings().IndexWorkers)
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer close(a.stopped)
		a.build(m.closing, workers)
	}()
}

// resetANN drops the graph (its node ids were slots compaction renumbered);
// maybeBuild starts another. The caller holds x.mu.
func (x *bankIndex) resetANN() {
	if x.ann != nil {
		x.ann.halt.Store(true)
		close(x.ann.stop)
		x.ann = nil
	}
}

// build links the vectors into the graph as they arrive, in batches of at
// most annBatch linked by workers goroutines, until stop or closing.
// Closing abandons the graph at once, mid-batch: a one-shot process must
// not wait for a build that only the next searches would use (the graph
// lives in memory and is rebuilt by the next process that needs it).
func (a *annIndex) build(closing <-chan struct{}, workers int) {
	for {
		n, done := a.vecs.Len(), int(a.done.Load())
		if n > done {
			n = min(n, done+annBatch)
			a.g.Grow(n)
			var next atomic.Int64
			next.Store(int64(done))
			var wg sync.WaitGroup
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for !a.halt.Load() {
						select {
						case <-closing:
							a.halt.Store(true)
							return
						default:
						}
						i := int(next.Add(1) - 1)
						if i >= n {
							return
						}
						a.g.Insert(i)
						if linked != nil {
							linked()
						}
					}
				}()
			}
			wg.Wait()
			if a.halt.Load() {
				return
			}
			a.done.Store(int64(n))
			if n == a.vecs.Len() && a.caughtUp != nil {
				a.caughtUp()
			}
			continue
		}
		select {
		case <-a.wake:
		case <-a.stop:
			return
		case <-closing:
			a.halt.Store(true)
			return
		}
	}
}
