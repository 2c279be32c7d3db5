package sqlite

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/mnemo-ai/mnemo/internal/gencache"
	"github.com/mnemo-ai/mnemo/memory"
)

// DefaultFactCacheBytes bounds the facts the store keeps after reading
// them (the text they hold, and a fixed cost per fact): about 8,000
// facts of long assistant turns, 60,000 of chat turns.
const DefaultFactCacheBytes = 16 << 20

// factCache keeps facts Facts has read, so that recall, which hydrates a
// hundred-odd facts per question and many of the same ones question
// after question, pays a map lookup and a copy for a fact it read
// before instead of a row scan (a third of a warm recall's CPU).
//
// The database says when an entry may be used: every entry was read
// under a bank's stamp (fact_rev, access_version, created_at of its row
// in banks), and is used only while the bank's row still holds that
// stamp. Triggers move fact_rev on any change to a fact row but a
// recorded access (migration 030), so a change made by another process,
// or by a statement of this one, is seen at the next read of the stamp,
// which Facts does first. Recorded accesses move access_version;
// RecordAccess of this process applies them to the entries it holds
// (beginAccess, endAccess), so that a server's periodic access writes do
// not empty the cache; another process's make the stamp differ.
//
// The entries are a gencache.Cache: at most the budget, what was read
// recently.
type factCache struct {
	mu      sync.Mutex
	budget  int
	entries *gencache.Cache[factKey, *cachedFact]
	gens    map[string]*factGen // bank → the generation its entries must carry
}

// factKey names a fact in the cache.
type factKey struct{ bank, id string }

// factStamp is what a bank's row says about its fact rows.
type factStamp struct{ rev, access, created int64 }

// factGen is the stamp a bank's entries were read under. Entries point
// to it, so a new stamp (a new factGen) retires them all at once, and an
// access this process recorded updates it in place.
type factGen struct {
	stamp factStamp
	// accessing counts RecordAccess writes of this process under way,
	// and accesses counts those begun: rows read while one was under
	// way, or before one began and added after, may or may not hold its
	// increments, so they are not kept.
	accessing, accesses int
}

// factRead is a read of facts under a generation: what add needs to know
// the rows it brings are as new as the generation says.
type factRead struct {
	gen      *factGen
	accesses int
}

// cachedFact is one fact and the generation it was read under.
type cachedFact struct {
	gen  *factGen
	fact memory.Fact
}

// newFactCache returns an empty cache of at most budget bytes; 0 or
// less keeps nothing.
func newFactCache(budget int) *factCache {
	return &factCache{budget: budget, entries: gencache.New[factKey, *cachedFact](budget), gens: map[string]*factGen{}}
}

// readFactStamp reads bank's stamp (once per memory.ReadScope); an
// unknown bank is ENOTFOUND.
func (s *Store) readFactStamp(ctx context.Context, bank string) (factStamp, error) {
	r, err := s.stmts.bank(ctx, bank)
	return r.facts, err
}

// generation returns the generation of bank's entries for stamp st,
// starting a new one (which retires every entry of the bank) when the
// bank's current one has another stamp.
func (c *factCache) generation(bank string, st factStamp) *factGen {
	g := c.gens[bank]
	if g == nil || g.stamp != st {
		g = &factGen{stamp: st}
		c.gens[bank] = g
	}
	return g
}

// get fills out[i] with a copy of the cached fact ids[i] when the cache
// holds it under stamp st, and returns the read to add what it lacked
// under. The stamp must have been read before the rows add will get.
func (c *factCache) get(bank string, st factStamp, ids []string, out []*memory.Fact) factRead {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.generation(bank, st)
	for i, id := range ids {
		if e, ok := c.entries.Get(factKey{bank, id}); ok && e.gen == g {
			out[i] = copyFact(&e.fact)
		}
	}
	return factRead{gen: g, accesses: g.accesses}
}

// add keeps copies of facts read after r began, unless its generation
// is no longer the bank's or an access write of this process began
// since.
func (c *factCache) add(bank string, r factRead, facts []*memory.Fact) {
	if c.budget <= 0 {
		return // no copies to make
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	g := r.gen
	if c.gens[bank] != g || g.accessing > 0 || g.accesses != r.accesses {
		return
	}
	for _, f := range facts {
		c.entries.Put(factKey{bank, f.ID}, &cachedFact{gen: g, fact: *copyFact(f)}, factBytes(f))
	}
}

// beginAccess notes an access write of this process to bank, which is
// about to start, and returns what endAccess needs.
func (c *factCache) beginAccess(bank string) *factGen {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.gens[bank]
	if g != nil {
		g.accessing++
		g.accesses++
	}
	return g
}

// endAccess ends the access write begun with g. When the write
// committed as access_version av and nothing else recorded an access
// since g was read, the cached facts of ids get the increments the rows
// got, and g moves to av; otherwise the stamp will differ at the next
// read and g retires.
func (c *factCache) endAccess(bank string, g *factGen, ids []string, at time.Time, av int64, committed bool) {
	if g == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	g.accessing--
	if !committed || c.gens[bank] != g || g.stamp.access != av-1 {
		return
	}
	last := fromMicro(at.UnixMicro())
	for _, id := range slices.Compact(slices.Sorted(slices.Values(ids))) {
		if e, ok := c.entries.Get(factKey{bank, id}); ok && e.gen == g {
			e.fact.AccessCount++
			e.fact.LastAccessed = last
		}
	}
	g.stamp.access = av
}

// drop forgets bank's entries (a deleted bank).
func (c *factCache) drop(bank string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.gens, bank) // entries of the old generation never match again
}

// copyFact returns a copy of f the caller may change: the cache's own
// copy is never handed out.
func copyFact(f *memory.Fact) *memory.Fact {
	c := *f
	c.Tags = slices.Clone(f.Tags)
	c.Embedding = slices.Clone(f.Embedding)
	return &c
}

// factBytes is what a cached fact costs, roughly: its strings and a
// fixed part for the struct, the map entry and the times.
func factBytes(f *memory.Fact) int {
	n := 400 + len(f.ID) + len(f.DocumentID) + len(f.ChunkID) + len(f.SourceRef) + len(f.Text) +
		len(f.Speaker) + len(f.Evidence) + len(f.SupersededBy) + 4*len(f.Embedding)
	for _, t := range f.Tags {
		n += 16 + len(t)
	}
	return n
}
