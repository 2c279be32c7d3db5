package wire

import (
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Block is a memory block: its text, its limit and how full it is
// (Chars of MaxChars characters), and its usage (reads, writes, the last
// read). A default block never written has zero counts and no times.
type Block struct {
	Bank       string    `json:"bank"`
	Name       string    `json:"name"`
	Label      string    `json:"label"`
	Value      string    `json:"value"`
	Chars      int       `json:"chars"`
	MaxChars   int       `json:"max_chars"`
	Reads      int       `json:"reads"`
	Writes     int       `json:"writes"`
	LastReadAt time.Time `json:"last_read_at,omitzero"`
	CreatedAt  time.Time `json:"created_at,omitzero"`
	UpdatedAt  time.Time `json:"updated_at,omitzero"`
}

// NewBlock is b's wire shape.
func NewBlock(b *memory.Block) Block {
	return Block{Bank: b.BankID, Name: b.Name, Label: b.Label, Value: b.Value, Chars: b.Chars(), MaxChars: b.MaxChars,
		Reads: b.Reads, Writes: b.Writes, LastReadAt: b.LastReadAt, CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt}
}

// BlockList is a bank's blocks.
type BlockList struct {
	Blocks []Block `json:"blocks"`
}

// NewBlockList is the wire shape of a list of blocks; never null.
func NewBlockList(bs []*memory.Block) BlockList {
	out := BlockList{Blocks: make([]Block, len(bs))}
	for i, b := range bs {
		out.Blocks[i] = NewBlock(b)
	}
	return out
}
