package mirror

import (
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Change is what one committed write did to a bank's facts, for
// [Mirror.Apply]. The store fills it while it writes, and calls
// [Change.Count] after the commit when the mirror holds the bank
// ([Mirror.Holds]), so the facts' words are counted outside any lock of
// the mirror, and not at all when no search has loaded the bank (a bulk
// import into a fresh process: Apply would drop them). The zero value is
// an empty change.
type Change struct {
	added   []newEntry
	removed []int64 // fact rows
	status  map[int64]statusChange
}

// statusChange is a fact's new status and expiry.
type statusChange struct {
	status    memory.Status
	expiredAt int64 // µs; 0: not expired
}

// Add records a fact the write stored in row pk. Every fact enters the
// mirror: keyword search covers facts with no embedding too.
func (c *Change) Add(pk int64, f *memory.Fact) {
	e := newEntry{indexEntry: indexEntry{
		pk: pk, id: f.ID, kind: internKind(f.Kind), category: internCategory(f.Category), status: internStatus(f.Status),
		sensitive: f.Sensitivity == memory.SensitivitySensitive,
		eventTime: NoTime, tags: slices.Clone(f.Tags),
	}, vec: f.Embedding}
	if t := f.EventTime(); !t.IsZero() {
		e.eventTime = t.UnixMicro()
	}
	e.createdAt = f.CreatedAt.UnixMicro()
	if !f.ExpiredAt.IsZero() {
		e.expiredAt = f.ExpiredAt.UnixMicro()
	}
	e.fact = f
	c.added = append(c.added, e)
}

// Count counts the words of the facts Add recorded, if not yet done. The
// facts must not have changed since Add.
func (c *Change) Count() {
	for i := range c.added {
		c.added[i].countFact()
	}
}

// Holds reports whether the mirror holds a loaded index of bank, which
// [Mirror.Apply] would bring up to date: only then is a write's
// [Change.Count] worth its cost. A bank loaded after Holds said no
// still gets the change right (Apply counts what is left, under the
// index's lock).
func (m *Mirror) Holds(bank string) bool {
	m.mu.Lock()
	x := m.facts[bank]
	m.mu.Unlock()
	if x == nil {
		return false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return !x.closed && x.version >= 0
}

// Remove records facts the write deleted, by row.
func (c *Change) Remove(pks ...int64) {
	c.removed = append(c.removed, pks...)
}

// SetStatus records a fact's new status and expiry (zero: not expired),
// by row.
func (c *Change) SetStatus(pk int64, status memory.Status, expiredAt time.Time) {
	if c.status == nil {
		c.status = map[int64]statusChange{}
	}
	var expired int64
	if !expiredAt.IsZero() {
		expired = expiredAt.UnixMicro()
	}
	c.status[pk] = statusChange{status, expired}
}
