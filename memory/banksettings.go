package memory

import "unicode/utf8"

// Limits of a bank's settings.
const (
	// MinDisposition and MaxDisposition bound each disposition trait
	// (Hindsight's 1–5 scale); 0 means unset.
	MinDisposition = 1
	MaxDisposition = 5
	// MaxBankTextBytes bounds a bank's Mission and Background.
	MaxBankTextBytes = 8 << 10
	// MaxConsolidationSettings bounds how many consolidation settings a
	// bank overrides.
	MaxConsolidationSettings = 100
)

// Validate reports whether s can be stored as a bank's settings: each
// disposition trait 0 (unset) or 1–5, Mission and Background valid UTF-8
// of at most MaxBankTextBytes, and no negative duration. It returns nil or
// an EINVALID *Error naming the first bad field.
func (s BankSettings) Validate() error {
	for _, d := range []struct {
		name string
		v    int
	}{{"skepticism", s.Skepticism}, {"literalism", s.Literalism}, {"empathy", s.Empathy}} {
		if d.v != 0 && (d.v < MinDisposition || d.v > MaxDisposition) {
			return Errorf(EINVALID, "%s %d: use %d-%d (or 0 for unset)", d.name, d.v, MinDisposition, MaxDisposition)
		}
	}
	for _, t := range []struct{ name, v string }{{"mission", s.Mission}, {"background", s.Background}} {
		if !utf8.ValidString(t.v) {
			return Errorf(EINVALID, "%s is not valid UTF-8", t.name)
		}
		if len(t.v) > MaxBankTextBytes {
			return Errorf(EINVALID, "%s is %d bytes, more than %d", t.name, len(t.v), MaxBankTextBytes)
		}
	}
	if s.ShortTermTTL < 0 || s.ConsolidateInterval < 0 {
		return Errorf(EINVALID, "durations cannot be negative")
	}
	if len(s.Consolidation) > MaxConsolidationSettings {
		return Errorf(EINVALID, "%d consolidation settings, at most %d", len(s.Consolidation), MaxConsolidationSettings)
	}
	for k, v := range s.Consolidation {
		if k == "" || !utf8.ValidString(k) || !utf8.ValidString(v) || len(k) > 64 || len(v) > 256 {
			return Errorf(EINVALID, "consolidation setting %q: want a name of 1-64 bytes and a value of at most 256, in UTF-8", k)
		}
	}
	return nil
}

// PatchSettings returns the consolidation overrides cur with patch laid
// over it: a name with a value sets it, a name with "" removes it. cur
// is not changed; the result is nil when empty.
func PatchSettings(cur, patch map[string]string) map[string]string {
	if len(patch) == 0 {
		return cur
	}
	out := make(map[string]string, len(cur)+len(patch))
	for k, v := range cur {
		out[k] = v
	}
	for k, v := range patch {
		if v == "" {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
