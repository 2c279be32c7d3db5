package lex

import (
	"strings"
	"sync"

	"github.com/kljensen/snowball/english"
)

// DefaultStemCacheSize bounds the number of words whose stems Stem keeps
// in memory. A chat corpus has a few tens of thousands of distinct words,
// so the cache rarely fills; when a shard fills it is emptied and refilled.
const DefaultStemCacheSize = 1 << 16

// stemShards is the number of independently locked parts of the stem
// cache, so that concurrent ingest goroutines rarely share a lock.
const stemShards = 64

// stems is the process-wide stem cache used by Stem.
var stems = newStemCache(DefaultStemCacheSize)

// stemCache memoises english.Stem. It is safe for concurrent use and holds
// at most about size entries.
type stemCache struct {
	perShard int
	shards   [stemShards]stemShard
}

type stemShard struct {
	mu sync.RWMutex
	m  map[string]string
	_  [32]byte // keep neighbouring shards' locks off one cache line
}

func newStemCache(size int) *stemCache {
	c := &stemCache{perShard: max(size/stemShards, 1)}
	for i := range c.shards {
		c.shards[i].m = make(map[string]string)
	}
	return c
}

func (c *stemCache) get(w string) string {
	// FNV-1a 32 over the word picks the shard.
	h := uint32(2166136261)
	for i := 0; i < len(w); i++ {
		h ^= uint32(w[i])
		h *= 16777619
	}
	sh := &c.shards[h%stemShards]
	sh.mu.RLock()
	s, ok := sh.m[w]
	sh.mu.RUnlock()
	if ok {
		return s
	}
	s = english.Stem(w, false)
	// Clone the key: w is often a substring of a large text that the
	// cache must not keep alive.
	k := strings.Clone(w)
	if s == w {
		s = k
	}
	sh.mu.Lock()
	if len(sh.m) >= c.perShard {
		clear(sh.m)
	}
	sh.m[k] = s
	sh.mu.Unlock()
	return s
}
