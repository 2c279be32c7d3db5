package wire

import (
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Directive is a must-follow memory: its text and the scopes it applies
// to (none: everywhere).
type Directive struct {
	ID        string    `json:"id"`
	Bank      string    `json:"bank"`
	Text      string    `json:"text"`
	Scopes    []string  `json:"scopes"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// NewDirective is d's wire shape; Scopes is never null.
func NewDirective(d *memory.Directive) Directive {
	scopes := d.Scopes
	if scopes == nil {
		scopes = []string{}
	}
	return Directive{ID: d.ID, Bank: d.BankID, Text: d.Text, Scopes: scopes, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
}

// DirectiveList is a bank's directives, oldest first.
type DirectiveList struct {
	Directives []Directive `json:"directives"`
}

// NewDirectiveList is the wire shape of a list of directives; never null.
func NewDirectiveList(ds []*memory.Directive) DirectiveList {
	out := DirectiveList{Directives: make([]Directive, len(ds))}
	for i, d := range ds {
		out.Directives[i] = NewDirective(d)
	}
	return out
}
