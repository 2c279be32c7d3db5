package memory_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

func TestApplyBlockEdit(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 6789, time.UTC)
	cur := &memory.Block{BankID: "b", Name: "notes", Value: "one two", MaxChars: 10, Writes: 2, Reads: 5, CreatedAt: at.Add(-time.Hour), UpdatedAt: at.Add(-time.Hour)}
	for _, tt := range []struct {
		name  string
		cur   *memory.Block
		edit  memory.BlockEdit
		value string
		code  string
	}{
		{"write", cur, memory.BlockEdit{Mode: memory.BlockWrite, Value: "three"}, "three", ""},
		{"append on a new line", cur, memory.BlockEdit{Mode: memory.BlockAppend, Value: "x"}, "one two\nx", ""},
		{"append after a newline", &memory.Block{Name: "notes", Value: "a\n", MaxChars: 10}, memory.BlockEdit{Mode: memory.BlockAppend, Value: "b"}, "a\nb", ""},
		{"append to empty", nil, memory.BlockEdit{Mode: memory.BlockAppend, Value: "b"}, "b", ""},
		{"replace once", cur, memory.BlockEdit{Mode: memory.BlockReplace, Old: "two", Value: "2"}, "one 2", ""},
		{"replace absent", cur, memory.BlockEdit{Mode: memory.BlockReplace, Old: "six", Value: "6"}, "", memory.EINVALID},
		{"replace repeated", cur, memory.BlockEdit{Mode: memory.BlockReplace, Old: "o", Value: "0"}, "", memory.EINVALID},
		{"limit counts characters", cur, memory.BlockEdit{Mode: memory.BlockWrite, Value: "éééééééééé"}, "éééééééééé", ""},
		{"past the limit", cur, memory.BlockEdit{Mode: memory.BlockWrite, Value: strings.Repeat("é", 11)}, "", memory.EINVALID},
		{"raised limit", cur, memory.BlockEdit{Mode: memory.BlockWrite, Value: strings.Repeat("é", 11), MaxChars: 11}, strings.Repeat("é", 11), ""},
		{"limit under the value", cur, memory.BlockEdit{MaxChars: 3}, "", memory.EINVALID},
		{"bad mode", cur, memory.BlockEdit{Mode: "x"}, "", memory.EINVALID},
		{"bad utf-8", cur, memory.BlockEdit{Mode: memory.BlockWrite, Value: "\xff"}, "", memory.EINVALID},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.edit
			e.At = at
			before := clone(tt.cur)
			got, err := memory.ApplyBlockEdit("b", "notes", tt.cur, e)
			if code := memory.ErrorCode(err); code != tt.code {
				t.Fatalf("error %v (code %q), want code %q", err, code, tt.code)
			}
			if before != nil && *tt.cur != *before {
				t.Errorf("the current block changed: %+v, was %+v", tt.cur, before)
			}
			if err != nil {
				return
			}
			if got.Value != tt.value {
				t.Errorf("value %q, want %q", got.Value, tt.value)
			}
			wantWrites := 1
			if tt.cur != nil {
				wantWrites = tt.cur.Writes + 1
			}
			if e.Mode == "" {
				wantWrites--
			}
			if got.Writes != wantWrites || !got.UpdatedAt.Equal(memory.StoreTime(at)) {
				t.Errorf("Writes %d, UpdatedAt %v, want %d, %v", got.Writes, got.UpdatedAt, wantWrites, memory.StoreTime(at))
			}
		})
	}
}

func clone(b *memory.Block) *memory.Block {
	if b == nil {
		return nil
	}
	c := *b
	return &c
}

// A new default block takes its label and limit; a custom one the
// default limit; an edit of nothing leaves a stored block as it is.
func TestApplyBlockEdit_Defaults(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	p, err := memory.ApplyBlockEdit("b", memory.BlockPersona, nil, memory.BlockEdit{At: at})
	if err != nil || p.Label != memory.DefaultBlock("b", memory.BlockPersona).Label || p.MaxChars != memory.DefaultBlockMaxChars || p.Writes != 0 || !p.CreatedAt.Equal(at) {
		t.Errorf("new persona: %+v, %v", p, err)
	}
	c, err := memory.ApplyBlockEdit("b", "mine", nil, memory.BlockEdit{Mode: memory.BlockWrite, Value: "x", At: at})
	if err != nil || c.Label != "" || c.MaxChars != memory.DefaultBlockMaxChars || c.Writes != 1 {
		t.Errorf("new custom block: %+v, %v", c, err)
	}
	same, err := memory.ApplyBlockEdit("b", "mine", c, memory.BlockEdit{At: at.Add(time.Hour)})
	if err != nil || *same != *c {
		t.Errorf("edit of nothing: %+v, %v, want %+v", same, err, c)
	}
	for _, name := range []string{"", "A", "_a", "a-b", "é", strings.Repeat("a", 65)} {
		if err := memory.ValidateBlockName(name); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("ValidateBlockName(%q): %v, want EINVALID", name, err)
		}
	}
	if err := memory.ValidateBlockName(strings.Repeat("a", 64)); err != nil {
		t.Errorf("ValidateBlockName(64 letters): %v", err)
	}
}
