package memory_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// TestReadScope checks that a scope loads a key once, keeps no failed
// load, is shared by a nested read, and that without one every call loads.
func TestReadScope(t *testing.T) {
	loads := 0
	load := func() (any, error) { loads++; return loads, nil }
	if memory.ReadScopeOf(context.Background()) != nil {
		t.Fatal("a bare context has a scope")
	}
	var none *memory.ReadScope
	none.Remember("k", load)
	none.Remember("k", load)
	if loads != 2 {
		t.Fatalf("without a scope: %d loads, want 2", loads)
	}
	ctx := memory.WithReadScope(context.Background())
	sc := memory.ReadScopeOf(ctx)
	if memory.ReadScopeOf(memory.WithReadScope(ctx)) != sc {
		t.Fatal("a nested read got a scope of its own")
	}
	loads = 0
	a, _ := sc.Remember("k", load)
	b, _ := sc.Remember("k", load)
	if loads != 1 || a != b {
		t.Fatalf("%d loads, %v and %v: want one load kept", loads, a, b)
	}
	if _, err := sc.Remember("bad", func() (any, error) { return nil, errors.New("down") }); err == nil {
		t.Fatal("a failed load gave no error")
	}
	if v, err := sc.Remember("bad", func() (any, error) { return "up", nil }); err != nil || v != "up" {
		t.Fatalf("a failed load was kept: %v %v", v, err)
	}
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Go(func() { got[i], _ = sc.Remember("c", func() (any, error) { return i, nil }) })
	}
	wg.Wait()
	for _, v := range got {
		if v != got[0] {
			t.Fatalf("concurrent loads answered %v", got)
		}
	}
}
