package mirror

import (
	"math"
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

// matcher evaluates a memory.Filter against index entries.
type matcher struct {
	f        memory.Filter
	statuses []memory.Status
	timed    bool // a time range is set
	from, to int64
	asOf     int64 // µs; 0: now
	// simple: the zero filter (active, not sensitive), checked without
	// looking at slices.
	simple bool
}

// newMatcher prepares f for matching.
func newMatcher(f memory.Filter) matcher {
	m := matcher{f: f, statuses: f.Statuses, from: math.MinInt64, to: math.MaxInt64}
	if len(m.statuses) == 0 {
		m.statuses = []memory.Status{memory.StatusActive}
	}
	if !f.From.IsZero() {
		m.from, m.timed = f.From.UnixMicro(), true
	}
	if !f.To.IsZero() {
		m.to, m.timed = f.To.UnixMicro(), true
	}
	if !f.AsOf.IsZero() {
		m.asOf = f.AsOf.UnixMicro()
	}
	m.simple = len(f.Statuses) == 0 && len(f.Kinds) == 0 && len(f.Categories) == 0 && len(f.Tags) == 0 && !m.timed && !f.Sensitive && m.asOf == 0
	return m
}

// match reports whether the filter passes e.
func (m *matcher) match(e *indexEntry) bool {
	if e.dead {
		return false
	}
	if m.simple {
		return e.status == memory.StatusActive && !e.sensitive
	}
	if m.timed && (e.eventTime == NoTime || e.eventTime < m.from || e.eventTime >= m.to) {
		return false
	}
	if e.sensitive && !m.f.Sensitive {
		return false
	}
	status := e.status
	if m.asOf != 0 {
		// What was known then (memory.KnownAt), as it stood then
		// (memory.StatusAt).
		if e.createdAt > m.asOf || (e.expiredAt != 0 && e.expiredAt <= m.asOf) {
			return false
		}
		if status == memory.StatusSuperseded && e.expiredAt > m.asOf {
			status = memory.StatusActive
		}
	}
	if !slices.Contains(m.statuses, status) {
		return false
	}
	if len(m.f.Kinds) > 0 && !slices.Contains(m.f.Kinds, e.kind) {
		return false
	}
	if len(m.f.Categories) > 0 && !slices.Contains(m.f.Categories, e.category) {
		return false
	}
	if len(m.f.Tags) > 0 && !slices.ContainsFunc(m.f.Tags, func(t string) bool { return slices.Contains(e.tags, t) }) {
		return false
	}
	return true
}
