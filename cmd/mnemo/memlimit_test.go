package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestCapMemory checks that a ceiling set by capMemory bounds the soft
// memory limit at once and every time it is set again from the live heap,
// whatever the heap, and that an operator's GOMEMLIMIT wins over it.
func TestCapMemory(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		memMu.Lock()
		if settle != nil {
			settle.Stop()
			settle = nil
		}
		memMu.Unlock()
		memCeiling.Store(0)
		debug.SetMemoryLimit(old)
	})

	const high = int64(1) << 40
	capMemory(high)
	if got := debug.SetMemoryLimit(-1); got != high {
		t.Errorf("limit after capMemory(%d): %d", high, got)
	}
	setMemoryLimit()
	if got := debug.SetMemoryLimit(-1); got > high || got == math.MaxInt64 {
		t.Errorf("limit set from the heap under a ceiling of %d: %d", high, got)
	}

	// A ceiling under what the live heap asks for (never less than
	// memFloor) is the limit.
	low := int64(memFloor / 2)
	capMemory(low)
	setMemoryLimit()
	if got := debug.SetMemoryLimit(-1); got != low {
		t.Errorf("limit set from the heap under a ceiling of %d: %d", low, got)
	}

	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetMemoryLimit(old)
	capMemory(low)
	if got := debug.SetMemoryLimit(-1); got != old {
		t.Errorf("limit after capMemory with GOMEMLIMIT set: %d, want %d", got, old)
	}
}
