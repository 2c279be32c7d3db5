package gencache

import "testing"

// TestCache checks the budget, the promotion of a used entry and that a
// cache of no budget keeps nothing.
func TestCache(t *testing.T) {
	c := New[int, string](100)
	c.Put(1, "one", 10)
	for i := 2; i <= 40; i++ {
		c.Put(i, "x", 10)
		if _, ok := c.Get(1); !ok {
			t.Fatalf("entry 1, used at every step, was dropped at step %d", i)
		}
		if c.Bytes() > 100 {
			t.Fatalf("%d bytes kept, over the budget of 100", c.Bytes())
		}
	}
	if _, ok := c.Get(2); ok {
		t.Fatal("entry 2, never used, is still kept")
	}
	if v, ok := c.Get(40); !ok || v != "x" {
		t.Fatalf("the last entry: %q %v", v, ok)
	}
	none := New[int, int](0)
	none.Put(1, 1, 1)
	if none.Len() != 0 {
		t.Fatal("a cache of no budget kept an entry")
	}
}
