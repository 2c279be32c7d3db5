package ordered_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/internal/ordered"
)

func TestRun_Order(t *testing.T) {
	const n = 200
	var got []int
	out := make([]int, n)
	ordered.Run(context.Background(), n, 7, func(i int) {
		// Later items finish first: order must come from Run, not luck.
		time.Sleep(time.Duration((n-i)%5) * 100 * time.Microsecond)
		out[i] = i * i
	}, func(i int, started bool) {
		if !started {
			t.Fatalf("item %d not started", i)
		}
		if out[i] != i*i {
			t.Fatalf("item %d yielded before its work: %d", i, out[i])
		}
		got = append(got, i)
	})
	want := make([]int, n)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(got, want) {
		t.Fatalf("yield order = %v", got)
	}
}

func TestRun_Window(t *testing.T) {
	const window = 3
	var running, peak atomic.Int32
	yielded := 0
	ordered.Run(context.Background(), 50, window, func(i int) {
		r := running.Add(1)
		for {
			p := peak.Load()
			if r <= p || peak.CompareAndSwap(p, r) {
				break
			}
		}
		time.Sleep(200 * time.Microsecond)
		running.Add(-1)
	}, func(i int, started bool) { yielded++ })
	if p := peak.Load(); p > window {
		t.Fatalf("peak in flight = %d, window %d", p, window)
	}
	if yielded != 50 {
		t.Fatalf("yielded %d of 50", yielded)
	}
}

func TestRun_Canceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	const n = 100
	var works atomic.Int32
	var seen []int
	notStarted := 0
	ordered.Run(ctx, n, 2, func(i int) {
		works.Add(1)
	}, func(i int, started bool) {
		seen = append(seen, i)
		if i == 10 {
			cancel()
		}
		if !started {
			notStarted++
		}
	})
	if len(seen) != n {
		t.Fatalf("yielded %d of %d", len(seen), n)
	}
	for i, x := range seen {
		if x != i {
			t.Fatalf("out of order at %d: %d", i, x)
		}
	}
	if notStarted == 0 || int(works.Load())+notStarted != n {
		t.Fatalf("works %d + not started %d != %d (want some not started)", works.Load(), notStarted, n)
	}
}

func TestRun_Empty(t *testing.T) {
	ordered.Run(context.Background(), 0, 4, func(int) { t.Fatal("work on empty") }, func(int, bool) { t.Fatal("yield on empty") })
}

func TestStream_Order(t *testing.T) {
	const n = 200
	i := 0
	next := func() (*[2]int, bool) {
		if i == n {
			return nil, false
		}
		i++
		return &[2]int{i - 1, 0}, true
	}
	var got []int
	ordered.Stream(context.Background(), 7, next, func(x *[2]int) {
		// Later items finish first: order must come from Stream, not luck.
		time.Sleep(time.Duration((n-x[0])%5) * 100 * time.Microsecond)
		x[1] = x[0] * x[0]
	}, func(x *[2]int) {
		if x[1] != x[0]*x[0] {
			t.Fatalf("item %d yielded before its work: %d", x[0], x[1])
		}
		got = append(got, x[0])
	})
	want := make([]int, n)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(got, want) {
		t.Fatalf("yield order = %v", got)
	}
}

// next is called only while fewer than window items are handed over and
// not yet yielded: the bound on what a stream holds.
func TestStream_Window(t *testing.T) {
	const window, n = 3, 50
	var handed, yielded atomic.Int32
	next := func() (int, bool) {
		if h := handed.Load(); h == n {
			return 0, false
		} else if h-yielded.Load() >= window {
			t.Errorf("next called with %d handed over and %d yielded, window %d", h, yielded.Load(), window)
		}
		return int(handed.Add(1)), true
	}
	ordered.Stream(context.Background(), window, next, func(int) {
		time.Sleep(200 * time.Microsecond)
	}, func(int) { yielded.Add(1) })
	if yielded.Load() != n {
		t.Fatalf("yielded %d of %d", yielded.Load(), n)
	}
}

// Once ctx ends nothing more is handed over, and everything handed over
// is still worked and yielded.
func TestStream_Canceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var handed, worked, yielded int32
	next := func() (int, bool) {
		handed++
		return int(handed), true // never ends by itself
	}
	ordered.Stream(ctx, 2, next, func(int) { atomic.AddInt32(&worked, 1) }, func(i int) {
		yielded++
		if i == 10 {
			cancel()
		}
	})
	if handed < 10 || handed > 12 || atomic.LoadInt32(&worked) != handed || yielded != handed {
		t.Fatalf("handed %d, worked %d, yielded %d: want 10–12 each, all equal", handed, worked, yielded)
	}
}

func TestStream_Empty(t *testing.T) {
	ordered.Stream(context.Background(), 4, func() (int, bool) { return 0, false }, func(int) { t.Fatal("work on empty") }, func(int) { t.Fatal("yield on empty") })
}
