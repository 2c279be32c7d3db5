package memory

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Directive is a must-follow memory: a rule the agent is given at the
// start of every session it applies to ("never push to main on Fridays",
// "answer in British English"). Directives live apart from facts: no
// consolidation pass, decay, archival or merge reads or changes them, and
// recall returns them only when asked.
//
// Scopes limit where a directive applies (a project, a task type); a
// directive with none applies everywhere (see Applies).
type Directive struct {
	ID     string
	BankID string
	Text   string
	// Scopes are the scopes the directive applies to, sorted and
	// without duplicates; none means everywhere.
	Scopes    []string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// MaxDirectiveChars is the longest a directive's text may be, in
// characters: a directive is one rule, read at every session start.
const MaxDirectiveChars = 2000

// MaxDirectiveScopes is how many scopes one directive may name.
const MaxDirectiveScopes = 32

var scopeRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$`)

// ValidateScope reports whether s can name a scope: 1–128 letters,
// digits and . _ : / @ + -, starting with a letter or digit (a project's
// name or path-like id, a task type). It returns nil or an EINVALID
// *Error.
func ValidateScope(s string) error {
	if !scopeRE.MatchString(s) {
		return Errorf(EINVALID, "scope %q: use 1-128 letters, digits or . _ : / @ + -, starting with a letter or digit", s)
	}
	return nil
}

// NormalizeScopes returns scopes checked (ValidateScope), sorted and
// without duplicates; nil for none. More than MaxDirectiveScopes is
// EINVALID.
func NormalizeScopes(scopes []string) ([]string, error) {
	if len(scopes) == 0 {
		return nil, nil
	}
	out := make([]string, 0, len(scopes))
	for _, s := range scopes {
		if err := ValidateScope(s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > MaxDirectiveScopes {
		return nil, Errorf(EINVALID, "a directive names at most %d scopes, not %d", MaxDirectiveScopes, len(out))
	}
	return out, nil
}

// ValidateDirective checks a directive before it is stored: an id, a
// text of 1 to MaxDirectiveChars characters of valid UTF-8 that is not
// only blanks, and valid, normalised scopes. It returns nil or an
// EINVALID *Error.
func ValidateDirective(d *Directive) error {
	if d.ID == "" {
		return Errorf(EINVALID, "a directive needs an id")
	}
	if !utf8.ValidString(d.Text) {
		return Errorf(EINVALID, "a directive's text must be valid UTF-8")
	}
	if strings.TrimSpace(d.Text) == "" {
		return Errorf(EINVALID, "a directive needs a text")
	}
	if n := utf8.RuneCountInString(d.Text); n > MaxDirectiveChars {
		return Errorf(EINVALID, "a directive is at most %d characters, not %d", MaxDirectiveChars, n)
	}
	norm, err := NormalizeScopes(d.Scopes)
	if err != nil {
		return err
	}
	if !slices.Equal(norm, d.Scopes) {
		return Errorf(EINVALID, "a directive's scopes must be sorted and without duplicates")
	}
	return nil
}

// Applies reports whether d applies to a context in the given scopes: a
// directive without scopes applies everywhere, one with scopes only where
// one of them is asked for. A context asked for without a scope gets the
// directives that apply everywhere, and no others.
func (d *Directive) Applies(scopes []string) bool {
	if len(d.Scopes) == 0 {
		return true
	}
	for _, s := range scopes {
		if slices.Contains(d.Scopes, s) {
			return true
		}
	}
	return false
}

// Directives stores a bank's directives (the rules of Directive), in a
// table of their own. Part of [Store].
type Directives interface {
	// CreateDirective stores a new directive (ValidateDirective first:
	// EINVALID, nothing stored). One with the same id in the bank is
	// ECONFLICT; an unknown bank ENOTFOUND.
	CreateDirective(ctx context.Context, d *Directive) error
	// Directive returns one directive, or ENOTFOUND.
	Directive(ctx context.Context, bankID, id string) (*Directive, error)
	// ListDirectives returns a bank's directives, oldest first (by
	// CreatedAt, then id); an unknown bank is ENOTFOUND.
	ListDirectives(ctx context.Context, bankID string) ([]*Directive, error)
	// UpdateDirective replaces the text, scopes and UpdatedAt of a
	// stored directive (ValidateDirective first); its CreatedAt is kept.
	// A directive that is not stored is ENOTFOUND.
	UpdateDirective(ctx context.Context, d *Directive) error
	// DeleteDirective removes a directive, or ENOTFOUND.
	DeleteDirective(ctx context.Context, bankID, id string) error
}

// ExportDirective is a directive as exported (export format 4 on).
type ExportDirective struct {
	ID        string    `json:"id"`
	Text      string    `json:"text"`
	Scopes    []string  `json:"scopes,omitempty"`
	CreatedAt time.Time `json:"created_at,omitzero"`
	UpdatedAt time.Time `json:"updated_at,omitzero"`
}

// ExportedDirective is d as exported.
func ExportedDirective(d *Directive) *ExportDirective {
	return &ExportDirective{ID: d.ID, Text: d.Text, Scopes: nilIfEmpty(d.Scopes), CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
}

// Directive is the directive x describes, in bank.
func (x *ExportDirective) Directive(bank string) *Directive {
	return &Directive{ID: x.ID, BankID: bank, Text: x.Text, Scopes: nilIfEmpty(x.Scopes), CreatedAt: x.CreatedAt, UpdatedAt: x.UpdatedAt}
}
