// Package ordered runs work on many items in parallel and hands the
// results back in the items' order: the shape of a bulk import, where
// items are prepared concurrently (extracted, embedded) and written one
// after the other. It holds no domain logic.
package ordered

import (
	"context"
	"sync"
)

// Run calls work(i) for every i in [0, n), concurrently, and yield(i,
// started) for every i in order, each as soon as work(i) has returned. At
// most window items are started and not yet yielded, so memory stays
// flat however large n is; window < 1 counts as 1.
//
// When ctx ends, items not started yet are never started: they are
// yielded in order with started false, after every started item before
// them. Run returns once every item has been yielded and every work call
// has returned. yield runs on the caller's goroutine, one call at a time;
// work(i) happens before yield(i, true).
func Run(ctx context.Context, n, window int, work func(i int), yield func(i int, started bool)) {
	if n <= 0 {
		return
	}
	window = max(window, 1)
	ready := make([]chan struct{}, n)
	for i := range ready {
		ready[i] = make(chan struct{})
	}
	started := make([]bool, n)
	slots := make(chan struct{}, window)
	go func() {
		var wg sync.WaitGroup
		defer wg.Wait()
		for i := range n {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				for ; i < n; i++ {
					close(ready[i])
				}
				return
			}
			started[i] = true
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer close(ready[i])
				work(i)
			}()
		}
	}()
	for i := range n {
		<-ready[i]
		if started[i] {
			<-slots
		}
		yield(i, started[i])
	}
}
