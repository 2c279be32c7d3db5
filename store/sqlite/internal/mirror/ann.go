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
	// stopped is closed when the builder has returned.
	stopped chan struct{}
	halt    atomic.Bool
}

// maybeBuild starts the graph of a bank that reached the threshold, or
// wakes its builder to link new slots. The caller holds x.mu.
func (m *Mirror) maybeBuild(x *bankIndex) {
	if x.ann != nil {
		select {
		case x.ann.wake <- struct{}{}:
		default:
		}
		return
	}
	if x.vecs == nil || x.annThreshold <= 0 || x.live < x.annThreshold {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	a := &annIndex{g: hnsw.New(x.vecs, uint64(x.created)), vecs: x.vecs, wake: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	x.ann = a
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
