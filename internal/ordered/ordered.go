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

// Stream is Run over items handed over one at a time, for input read as
// it is processed: next is called on a goroutine of Stream's, one call at
// a time and only while fewer than window items are handed over and not
// yet yielded, until it reports false or ctx ends; work(item) starts on a
// goroutine of its own as soon as next handed item over, and yield(item)
// runs in the order next handed them over, on the caller's goroutine, one
// call at a time, as soon as work(item) has returned. Every item next
// handed over is worked and yielded, even once ctx has ended; none is
// handed over after that. Stream returns once the last one is yielded.
func Stream[T any](ctx context.Context, window int, next func() (T, bool), work func(T), yield func(T)) {
	type handed struct {
		item  T
		ready chan struct{}
	}
	window = max(window, 1)
	queue := make(chan handed, window)
	slots := make(chan struct{}, window)
	go func() {
		defer close(queue)
		for {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			if ctx.Err() != nil {
				return
			}
			item, ok := next()
			if !ok {
				return
			}
			h := handed{item, make(chan struct{})}
			queue <- h // never blocks: at most window are handed over and not yet taken
			go func() {
				defer close(h.ready)
				work(h.item)
			}()
		}
	}()
	for h := range queue {
		<-h.ready
		<-slots
		yield(h.item)
	}
}
