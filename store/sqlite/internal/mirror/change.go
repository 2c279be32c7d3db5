package mirror

import (
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Change is what one committed write did to a bank's facts, for
// [Mirror.Apply]. The store fills it while it writes (its facts'
// words are counted then, outside any lock of the mirror); the zero
// value is an empty change.
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
	e.count(f.Body())
	c.added = append(c.added, e)
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
