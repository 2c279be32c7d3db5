package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// Soft memory limit the command keeps when GOMEMLIMIT is unset. Once
// the heap has stopped growing, the Go runtime may hold the live heap plus
// memHeadroom of it plus memSlack, plus what it holds besides the heap,
// and never less than memFloor. GOGC (100) stays in force, so the limit
// only ever brings a GC forward: with GOGC alone, a process whose index
// is 137 MB live held 260–300 MB of heap (the heap grows to twice the live
// heap between collections and the scavenger returns little below that).
// While the live heap grows (an ingest, an index loading), and until it
// has held still for memSettle, there is no limit: collecting every 20%
// of a growing heap made the first recall of a 100k-fact bank two to four
// times slower. Measured in docs/scale.md.
const (
	memHeadroom = 0.2
	memSlack    = 8 << 20
	// memFloor is the least limit: below it, GOGC alone decides. A small
	// heap just after a load holds free spans and fragments worth more
	// than its headroom, and a limit that tight runs GC back to back
	// (measured at 10k facts: 46 GCs and a first recall twice as slow).
	memFloor = 96 << 20
	// memGrowth is the growth of the live heap, from the start of its
	// plateau, above which the heap counts as growing.
	memGrowth = 0.05
	// memSettle is how long the live heap must hold within memGrowth
	// before the limit applies. Comparing each GC with the one before was
	// not enough: a limit caught mid-load made GCs so frequent that the
	// growth from one to the next fell under memGrowth, and the limit then
	// held the rest of the load (first recall at 100k facts 2.6–2.9 s
	// instead of 1.8–2.1 s without the limit).
	memSettle = time.Second
)

// limitMemory keeps the soft memory limit, unless GOMEMLIMIT is set (an
// operator's limit wins): the limit is set again at the end of every GC
// cycle, from the live heap that cycle found, so it follows a heap that
// grows (an index loading) without lag. It lasts as long as the process.
func limitMemory() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	armMemoryLimit()
}

// gcSentinel is an object dropped at once, whose finalizer runs after the
// GC cycle that freed it; it holds a pointer so the tiny allocator does
// not batch it with other objects.
type gcSentinel struct{ _ *byte }

func armMemoryLimit() {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		setMemoryLimit()
		armMemoryLimit()
	})
}

var memSamples = []metrics.Sample{
	{Name: "/gc/heap/live:bytes"},
	{Name: "/memory/classes/total:bytes"},
	{Name: "/memory/classes/heap/released:bytes"},
	{Name: "/memory/classes/heap/objects:bytes"},
	{Name: "/memory/classes/heap/unused:bytes"},
	{Name: "/memory/classes/heap/free:bytes"},
}

// memCeiling, when above zero, is a limit the soft memory limit never
// exceeds, growing heap or not (capMemory).
var memCeiling atomic.Int64

// capMemory sets a ceiling on the soft memory limit for the rest of the
// process: the limit follows the live heap as before but never exceeds
// n, and while the heap grows it is n rather than none. The runtime then
// collects and returns memory to the OS as the heap nears n, instead of
// keeping freed pages up to twice the live heap. An operator's
// GOMEMLIMIT wins.
func capMemory(n int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	memCeiling.Store(n)
	debug.SetMemoryLimit(n)
}

// The plateau: the live heap at its start and when it started, and the
// timer that applies the limit once it has lasted memSettle with no GC
// since (a process that settles may not collect again for a long time:
// 200 recalls after an index load ran none). The finalizer goroutine and
// the timer share them under memMu.
var (
	memMu        sync.Mutex
	plateau      float64
	plateauSince time.Time
	settle       *time.Timer
)

// setMemoryLimit sets the limit from the live heap of the last GC.
func setMemoryLimit() {
	metrics.Read(memSamples)
	var v [6]float64
	for i, s := range memSamples {
		if s.Value.Kind() != metrics.KindUint64 {
			return // a runtime without these metrics: leave the limit alone
		}
		v[i] = float64(s.Value.Uint64())
	}
	live := v[0]
	// Stacks, GC metadata and the runtime's own structures.
	other := max(v[1]-v[2]-v[3]-v[4]-v[5], 0)
	limit := int64(max(math.Ceil(live*(1+memHeadroom)+memSlack+other), memFloor))
	none := int64(math.MaxInt64)
	if c := memCeiling.Load(); c > 0 {
		limit, none = min(limit, c), c
	}
	memMu.Lock()
	defer memMu.Unlock()
	now := time.Now()
	if live > plateau*(1+memGrowth)+(1<<20) {
		plateau, plateauSince = live, now
	} else if live < plateau {
		plateau = live // a heap that shrinks is settling, not growing
	}
	if settle != nil {
		settle.Stop()
		settle = nil
	}
	wait := memSettle - now.Sub(plateauSince)
	if wait <= 0 {
		debug.SetMemoryLimit(limit)
		return
	}
	debug.SetMemoryLimit(none)
	since := plateauSince
	settle = time.AfterFunc(wait, func() {
		memMu.Lock()
		apply := plateauSince.Equal(since)
		if apply {
			debug.SetMemoryLimit(limit)
		}
		memMu.Unlock()
		// A process that has settled may allocate too little to start a
		// GC for minutes (forcegcperiod is 2), and the limit acts only
		// through the GC: the garbage of the load would stay resident.
		// One collection now brings the heap under the limit, and the
		// scavenger returns the rest (at 100k facts, idle after 200
		// recalls: 322 MB without it).
		if apply && heapHeld() > float64(limit) {
			runtime.GC()
		}
	})
}

// heapHeld is the memory the runtime holds from the OS, but what it has
// released.
func heapHeld() float64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return float64(s[0].Value.Uint64()) - float64(s[1].Value.Uint64())
}
