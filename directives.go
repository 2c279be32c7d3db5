package mnemo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

// AddDirective stores a new directive in a bank (the default bank when
// bank is empty): a must-follow rule given to the agent by Context in
// every scope it names (none: everywhere). Its text must be 1 to
// memory.MaxDirectiveChars characters and each scope valid
// (memory.ValidateScope), else EINVALID and nothing stored; an unknown
// bank is ENOTFOUND.
func (e *Engine) AddDirective(ctx context.Context, bank, text string, scopes []string) (*memory.Directive, error) {
	bank = defaultBank(bank)
	norm, err := memory.NormalizeScopes(scopes)
	if err != nil {
		return nil, err
	}
	if err := e.requireBank(ctx, bank); err != nil {
		return nil, err
	}
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, err
	}
	now := memory.StoreTime(e.now())
	d := &memory.Directive{ID: "dir_" + hex.EncodeToString(id[:]), BankID: bank, Text: text, Scopes: norm, CreatedAt: now, UpdatedAt: now}
	if err := e.store.CreateDirective(ctx, d); err != nil {
		return nil, err
	}
	return d, nil
}

// Directives lists a bank's directives (the default bank when bank is
// empty), oldest first. An unknown bank is ENOTFOUND.
func (e *Engine) Directives(ctx context.Context, bank string) ([]*memory.Directive, error) {
	bank = defaultBank(bank)
	if bank == memory.DefaultBank {
		if err := e.ensureDefaultBank(ctx); err != nil {
			return nil, err
		}
	}
	return e.store.ListDirectives(ctx, bank)
}

// DirectiveEdit is a change to a directive: a nil field is kept.
type DirectiveEdit struct {
	// Text, when not nil, replaces the directive's text.
	Text *string
	// Scopes, when not nil, replaces its scopes; an empty list makes it
	// apply everywhere.
	Scopes *[]string
}

// EditDirective changes one directive of a bank (the default bank when
// bank is empty) as edit says and returns it as stored. An invalid text
// or scope is EINVALID and changes nothing; a directive that does not
// exist, or an unknown bank, is ENOTFOUND.
func (e *Engine) EditDirective(ctx context.Context, bank, id string, edit DirectiveEdit) (*memory.Directive, error) {
	bank = defaultBank(bank)
	d, err := e.store.Directive(ctx, bank, id)
	if err != nil {
		return nil, err
	}
	if edit.Text != nil {
		d.Text = *edit.Text
	}
	if edit.Scopes != nil {
		if d.Scopes, err = memory.NormalizeScopes(*edit.Scopes); err != nil {
			return nil, err
		}
	}
	d.UpdatedAt = memory.StoreTime(e.now())
	if err := e.store.UpdateDirective(ctx, d); err != nil {
		return nil, err
	}
	return d, nil
}

// DeleteDirective removes one directive of a bank (the default bank when
// bank is empty); one that does not exist, or an unknown bank, is
// ENOTFOUND.
func (e *Engine) DeleteDirective(ctx context.Context, bank, id string) error {
	return e.store.DeleteDirective(ctx, defaultBank(bank), id)
}

// DirectivesFor returns the directives of a bank that apply to a context
// in scopes (memory.Directive.Applies: those without scopes, and those
// naming one of scopes), oldest first.
func (e *Engine) DirectivesFor(ctx context.Context, bank string, scopes []string) ([]*memory.Directive, error) {
	ds, err := e.Directives(ctx, bank)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(ds, func(d *memory.Directive) bool { return !d.Applies(scopes) }), nil
}

// RecallOptions are the façade's additions to a recall (RecallWith):
// what package recall knows nothing about.
type RecallOptions struct {
	// Directives asks for the bank's directives that apply to Scopes
	// beside the recalled memories; recall leaves them out otherwise.
	Directives bool
	Scopes     []string
}

// RecallResult is a recall's answer with the directives it was asked
// for.
type RecallResult struct {
	*memory.Recollection
	Directives []*memory.Directive
}

// RecallWith is Recall with the façade's options: with o.Directives it
// returns the directives that apply to o.Scopes too. Invalid scopes are
// EINVALID.
func (e *Engine) RecallWith(ctx context.Context, q memory.Query, o RecallOptions) (*RecallResult, error) {
	scopes, err := memory.NormalizeScopes(o.Scopes)
	if err != nil {
		return nil, err
	}
	rec, err := e.Recall(ctx, q)
	if err != nil {
		return nil, err
	}
	out := &RecallResult{Recollection: rec}
	if o.Directives {
		if out.Directives, err = e.DirectivesFor(ctx, q.BankID, scopes); err != nil {
			return nil, err
		}
	}
	return out, nil
}
