package memory

import (
	"context"
	"sync"
)

// ReadScope is one logical read, a recall, made of many store calls,
// some of them at once. A store may remember, for the scope's length,
// what it checked of a bank's own row (that it exists, its change
// counters) and answer the scope's later calls from that, instead of
// reading the row again at every call: the calls then see the bank as
// of the scope's first look at it, as if the scope's reads had all
// happened then, and a change committed meanwhile is seen by the next
// scope. What the calls read of facts, entities and the rest is read as
// always. Without a scope every call reads the row.
type ReadScope struct {
	mu   sync.Mutex
	memo map[any]any
}

type readScopeKey struct{}

// WithReadScope returns ctx carrying a new ReadScope, for the calls of
// one logical read; a ctx that carries one already is returned as it
// is, so a read made inside another is part of it.
func WithReadScope(ctx context.Context) context.Context {
	if ReadScopeOf(ctx) != nil {
		return ctx
	}
	return context.WithValue(ctx, readScopeKey{}, &ReadScope{})
}

// ReadScopeOf returns the ReadScope ctx carries, or nil.
func ReadScopeOf(ctx context.Context) *ReadScope {
	s, _ := ctx.Value(readScopeKey{}).(*ReadScope)
	return s
}

// Remember returns what the scope holds under key, computing and keeping
// it with load the first time (a nil scope computes it every time). A
// load that fails is not kept. Concurrent calls for one key may both
// load; the first kept wins. The key must be comparable, and should be
// of a type of the caller's own, as for context values.
func (s *ReadScope) Remember(key any, load func() (any, error)) (any, error) {
	if s == nil {
		return load()
	}
	s.mu.Lock()
	v, ok := s.memo[key]
	s.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := load()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if kept, ok := s.memo[key]; ok {
		return kept, nil
	}
	if s.memo == nil {
		s.memo = map[any]any{}
	}
	s.memo[key] = v
	return v, nil
}
