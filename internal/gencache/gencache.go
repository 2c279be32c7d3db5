// Package gencache is a map bounded by a budget of bytes that forgets
// what went unused, at the cost of two maps: entries live in a current
// and an old generation; a lookup moves an old entry to the current
// one, and once the current one holds half the budget it becomes the old
// one and the old one is dropped. So it holds at most the budget, keeps
// what was used since the last turn, and costs a map lookup and no list
// of recency to keep up. It is not safe for concurrent use: its users
// hold their own lock.
package gencache

// Cache maps K to V within a budget of bytes (each entry's cost is the
// caller's estimate).
type Cache[K comparable, V any] struct {
	budget   int
	cur, old map[K]entry[V]
	curBytes int
}

type entry[V any] struct {
	v     V
	bytes int
}

// New returns an empty cache of at most budget bytes; with a budget of
// 0 or less it keeps nothing.
func New[K comparable, V any](budget int) *Cache[K, V] {
	return &Cache[K, V]{budget: budget, cur: map[K]entry[V]{}, old: map[K]entry[V]{}}
}

// Get returns the value kept under k, and whether there is one.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	if e, ok := c.cur[k]; ok {
		return e.v, true
	}
	e, ok := c.old[k]
	if !ok {
		var zero V
		return zero, false
	}
	delete(c.old, k)
	c.put(k, e)
	return e.v, true
}

// Put keeps v under k, at a cost of bytes.
func (c *Cache[K, V]) Put(k K, v V, bytes int) {
	if c.budget <= 0 {
		return
	}
	delete(c.old, k)
	c.put(k, entry[V]{v, bytes})
}

func (c *Cache[K, V]) put(k K, e entry[V]) {
	if old, ok := c.cur[k]; ok {
		c.curBytes -= old.bytes
	}
	c.cur[k] = e
	c.curBytes += e.bytes
	if c.curBytes > c.budget/2 {
		c.old, c.cur, c.curBytes = c.cur, map[K]entry[V]{}, 0
	}
}

// Bytes is what the kept entries cost, both generations.
func (c *Cache[K, V]) Bytes() int {
	n := c.curBytes
	for _, e := range c.old {
		n += e.bytes
	}
	return n
}

// Len is the number of entries kept.
func (c *Cache[K, V]) Len() int { return len(c.cur) + len(c.old) }
