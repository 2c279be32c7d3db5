package recall

import (
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

// Matches reports whether a fact passes a filter, with the store's
// semantics: statuses default to active only, kinds, categories and tags match any of
// theirs, the event time must fall in [From, To), and sensitive facts
// need Filter.Sensitive.
func Matches(f *memory.Fact, flt memory.Filter) bool {
	statuses := flt.Statuses
	if len(statuses) == 0 {
		statuses = []memory.Status{memory.StatusActive}
	}
	status := f.Status
	if !flt.AsOf.IsZero() {
		if !memory.KnownAt(f, flt.AsOf) {
			return false
		}
		status = memory.StatusAt(f, flt.AsOf)
	}
	if !slices.Contains(statuses, status) {
		return false
	}
	if f.Sensitivity == memory.SensitivitySensitive && !flt.Sensitive {
		return false
	}
	if len(flt.Kinds) > 0 && !slices.Contains(flt.Kinds, f.Kind) {
		return false
	}
	if len(flt.Categories) > 0 && !slices.Contains(flt.Categories, f.Category) {
		return false
	}
	if len(flt.Tags) > 0 && !slices.ContainsFunc(flt.Tags, func(t string) bool { return slices.Contains(f.Tags, t) }) {
		return false
	}
	if !flt.From.IsZero() || !flt.To.IsZero() {
		t := f.EventTime()
		if t.IsZero() || (!flt.From.IsZero() && t.Before(flt.From)) || (!flt.To.IsZero() && !t.Before(flt.To)) {
			return false
		}
	}
	return true
}
