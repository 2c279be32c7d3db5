package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// Soft memory limit the command keeps when GOMEMLIMIT is unset. Once
// the heap has stopped growing, the Go runtime may hold the live heap plus
// memHeadroom of it plus memSlack, plus what it holds besides the heap,
// and never less than memFloor. GOGC (100) stays in force, so the limit
// only ever brings a GC forward: with GOGC alone, a process whose index
// is 137 MB live held 260–300 MB of heap (the heap grows to twice the live
// heap between collections and the scavenger returns little below that).
// While the live heap grows from one GC to the next (an ingest, an index
// loading) there is no limit: collecting every 20% of a growing heap made
// the first recall of a 100k-fact bank two to four times slower.
// Measured in docs/scale.md.
const (
	memHeadroom = 0.2
	memSlack    = 8 << 20
	// memFloor is the least limit: below it, GOGC alone decides. A small
	// heap just after a load holds free spans and fragments worth more
	// than its headroom, and a limit that tight runs GC back to back
	// (measured at 10k facts: 46 GCs and a first recall twice as slow).
	memFloor = 96 << 20
	// memGrowth is the growth of the live heap between two GCs above
	// which the heap counts as growing.
	memGrowth = 0.05
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

// lastLive is the live heap the previous GC found; only the finalizer
// goroutine touches it.
var lastLive float64

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
	growing := live > lastLive*(1+memGrowth)+(1<<20)
	lastLive = live
	if growing {
		debug.SetMemoryLimit(math.MaxInt64)
		return
	}
	// Stacks, GC metadata and the runtime's own structures.
	other := max(v[1]-v[2]-v[3]-v[4]-v[5], 0)
	debug.SetMemoryLimit(int64(max(math.Ceil(live*(1+memHeadroom)+memSlack+other), memFloor)))
}
