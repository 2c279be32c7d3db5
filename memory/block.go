package memory

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Block is a named piece of an agent's working memory (seed 002's
// agent_memory_blocks): a text the agent reads whole and rewrites,
// appends to or edits in place, never longer than MaxChars characters
// (Unicode code points, not bytes).
//
// Reads, Writes and LastReadAt are its usage tracking: how often it was
// read and changed, and when it was last read; a block that was never
// read has a zero LastReadAt.
type Block struct {
	BankID string
	Name   string
	// Label says what the block is for, for the agent and its operator.
	Label      string
	Value      string
	MaxChars   int
	Reads      int
	Writes     int
	LastReadAt time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Chars is the length of b's value in characters, the unit of MaxChars.
func (b *Block) Chars() int { return utf8.RuneCountInString(b.Value) }

// The default blocks every bank has (seed 002's predefined blocks). A
// default block that was never written reads as empty, with the label
// and limit below.
const (
	BlockPersona             = "persona"
	BlockUserProfile         = "user_profile"
	BlockWorkingContext      = "working_context"
	BlockOperationalFindings = "operational_findings"
	BlockContactsSummary     = "contacts_summary"
)

// DefaultBlockMaxChars is the limit of a block created without one, the
// default blocks included. Seed 002 gives every block a limit but not its
// value; 2,000 characters (about 500 tokens) keeps the five default
// blocks together under a few thousand tokens of an agent's context.
const DefaultBlockMaxChars = 2000

// MaxBlockChars is the largest limit a block may be given.
const MaxBlockChars = 100_000

// DefaultBlocks are the blocks every bank has, in the order they are
// listed. Callers must not change it.
var DefaultBlocks = []Block{
	{Name: BlockPersona, Label: "Who the agent is: its role, voice and standing instructions.", MaxChars: DefaultBlockMaxChars},
	{Name: BlockUserProfile, Label: "Who the user is: name, preferences, what matters to them.", MaxChars: DefaultBlockMaxChars},
	{Name: BlockWorkingContext, Label: "What the agent is working on now: the task, its state, next steps.", MaxChars: DefaultBlockMaxChars},
	{Name: BlockOperationalFindings, Label: "What the agent learned about doing its work: what failed, what works.", MaxChars: DefaultBlockMaxChars},
	{Name: BlockContactsSummary, Label: "The people the user deals with, one line each.", MaxChars: DefaultBlockMaxChars},
}

// DefaultBlock returns the empty default block of that name in bank, or
// nil if name is not one of DefaultBlocks.
func DefaultBlock(bank, name string) *Block {
	i := slices.IndexFunc(DefaultBlocks, func(b Block) bool { return b.Name == name })
	if i < 0 {
		return nil
	}
	b := DefaultBlocks[i]
	b.BankID = bank
	return &b
}

var blockNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// ValidateBlockName reports whether name can name a block: 1–64
// lower-case letters, digits and '_', starting with a letter (stricter
// than a bank name: a block name is written by agents into tool calls).
// It returns nil or an EINVALID *Error.
func ValidateBlockName(name string) error {
	if !blockNameRE.MatchString(name) {
		return Errorf(EINVALID, "block name %q: use 1-64 lower-case letters, digits or '_', starting with a letter", name)
	}
	return nil
}

// BlockMode is how a BlockEdit changes a block's value.
type BlockMode string

const (
	// BlockWrite replaces the whole value with Value.
	BlockWrite BlockMode = "write"
	// BlockAppend adds Value at the end, on a new line when the value
	// is not empty and does not end with one.
	BlockAppend BlockMode = "append"
	// BlockReplace replaces Old, which must occur exactly once in the
	// value, with Value.
	BlockReplace BlockMode = "replace"
)

// BlockEdit is one change to a block, applied atomically by
// [Blocks.EditBlock] with [ApplyBlockEdit].
type BlockEdit struct {
	// Mode is how Value changes the block; "" leaves the value as it is
	// (an edit of the label or limit only, or creating an empty block).
	Mode  BlockMode
	Value string
	// Old is the text BlockReplace replaces.
	Old string
	// MaxChars, when positive, sets the block's limit (at most
	// MaxBlockChars); 0 keeps it.
	MaxChars int
	// Label, when not empty, sets the block's label.
	Label string
	// At is the time of the edit: UpdatedAt, and CreatedAt of a new block.
	At time.Time
}

// ApplyBlockEdit returns the block e makes of cur, the stored block
// (nil if there is none yet: the default block of that name, or an empty
// custom block with DefaultBlockMaxChars, is created). cur is not
// changed. Every edit but one with no Mode counts one write; UpdatedAt
// moves only when the block changes, so an edit with no Mode, Label or
// MaxChars creates the block if it is missing and otherwise leaves it as
// it is.
//
// The result is EINVALID, and nothing is to be stored, when name is not
// a valid block name, the mode is unknown, a text is not valid UTF-8,
// the limit is negative or over MaxBlockChars, the value would be longer
// than the limit, or Old is empty or does not occur exactly once (the
// block then holds other text than the caller believes: it should read
// it again).
func ApplyBlockEdit(bank, name string, cur *Block, e BlockEdit) (*Block, error) {
	if err := ValidateBlockName(name); err != nil {
		return nil, err
	}
	for _, s := range []string{e.Value, e.Old, e.Label} {
		if !utf8.ValidString(s) {
			return nil, Errorf(EINVALID, "block %q: the text is not valid UTF-8", name)
		}
	}
	if e.MaxChars < 0 || e.MaxChars > MaxBlockChars {
		return nil, Errorf(EINVALID, "block %q: max chars %d: give 1 to %d (0 keeps the limit)", name, e.MaxChars, MaxBlockChars)
	}
	var b Block
	switch {
	case cur != nil:
		b = *cur
	case DefaultBlock(bank, name) != nil:
		b = *DefaultBlock(bank, name)
	default:
		b = Block{BankID: bank, Name: name, MaxChars: DefaultBlockMaxChars}
	}
	if cur == nil {
		b.CreatedAt = StoreTime(e.At)
	}
	b.BankID, b.Name = bank, name
	if e.MaxChars > 0 {
		b.MaxChars = e.MaxChars
	}
	if e.Label != "" {
		b.Label = e.Label
	}
	switch e.Mode {
	case "":
	case BlockWrite:
		b.Value = e.Value
	case BlockAppend:
		if b.Value != "" && !strings.HasSuffix(b.Value, "\n") && e.Value != "" {
			b.Value += "\n"
		}
		b.Value += e.Value
	case BlockReplace:
		if e.Old == "" {
			return nil, Errorf(EINVALID, "block %q: replace needs the text to replace", name)
		}
		switch n := strings.Count(b.Value, e.Old); n {
		case 1:
			b.Value = strings.Replace(b.Value, e.Old, e.Value, 1)
		case 0:
			return nil, Errorf(EINVALID, "block %q does not contain the text to replace (read it again)", name)
		default:
			return nil, Errorf(EINVALID, "block %q contains the text to replace %d times: give a longer text that occurs once", name, n)
		}
	default:
		return nil, Errorf(EINVALID, "block %q: unknown mode %q (write, append or replace)", name, e.Mode)
	}
	if n := b.Chars(); n > b.MaxChars {
		return nil, Errorf(EINVALID, "block %q would hold %d characters, over its limit of %d: nothing was written", name, n, b.MaxChars)
	}
	if e.Mode != "" {
		b.Writes++
	}
	if cur == nil || e.Mode != "" || b.Label != cur.Label || b.MaxChars != cur.MaxChars {
		b.UpdatedAt = StoreTime(e.At)
	}
	return &b, nil
}

// ValidateBlock reports whether b can be stored as it is (an imported
// block): a valid name, a positive limit of at most MaxBlockChars, valid
// UTF-8 and a value within the limit, counts not negative. It returns nil
// or an EINVALID *Error.
func ValidateBlock(b *Block) error {
	if err := ValidateBlockName(b.Name); err != nil {
		return err
	}
	switch {
	case b.MaxChars <= 0 || b.MaxChars > MaxBlockChars:
		return Errorf(EINVALID, "block %q: max chars %d: give 1 to %d", b.Name, b.MaxChars, MaxBlockChars)
	case !utf8.ValidString(b.Value) || !utf8.ValidString(b.Label):
		return Errorf(EINVALID, "block %q: the text is not valid UTF-8", b.Name)
	case b.Chars() > b.MaxChars:
		return Errorf(EINVALID, "block %q holds %d characters, over its limit of %d", b.Name, b.Chars(), b.MaxChars)
	case b.Reads < 0 || b.Writes < 0:
		return Errorf(EINVALID, "block %q: negative usage counts", b.Name)
	}
	return nil
}

// Blocks is the store capability that keeps a bank's memory blocks. Only
// stored blocks exist here: the default blocks a bank has before they
// are written are the façade's (mnemo's Engine.Block). An unknown bank is
// ENOTFOUND in every method.
type Blocks interface {
	// Block returns a stored block, or ENOTFOUND. It counts no read.
	Block(ctx context.Context, bankID, name string) (*Block, error)
	// Blocks lists a bank's stored blocks, ordered by name.
	Blocks(ctx context.Context, bankID string) ([]*Block, error)
	// EditBlock applies e to the block (creating it if it is not stored)
	// with ApplyBlockEdit, atomically: two concurrent edits of one block
	// both land, one after the other, and an edit that fails changes
	// nothing. It returns the block as stored.
	EditBlock(ctx context.Context, bankID, name string, e BlockEdit) (*Block, error)
	// ReadBlock counts one read of a stored block (Reads, LastReadAt =
	// at) and returns it after; ENOTFOUND if it is not stored.
	ReadBlock(ctx context.Context, bankID, name string, at time.Time) (*Block, error)
	// DeleteBlock removes a stored block, or fails with ENOTFOUND.
	DeleteBlock(ctx context.Context, bankID, name string) error
}

// ExportBlock is a stored block as exported, usage counts included.
type ExportBlock struct {
	Name       string    `json:"name"`
	Label      string    `json:"label,omitempty"`
	Value      string    `json:"value"`
	MaxChars   int       `json:"max_chars"`
	Reads      int       `json:"reads"`
	Writes     int       `json:"writes"`
	LastReadAt time.Time `json:"last_read_at,omitzero"`
	CreatedAt  time.Time `json:"created_at,omitzero"`
	UpdatedAt  time.Time `json:"updated_at,omitzero"`
}

// ExportedBlock is b as exported.
func ExportedBlock(b *Block) *ExportBlock {
	return &ExportBlock{Name: b.Name, Label: b.Label, Value: b.Value, MaxChars: b.MaxChars, Reads: b.Reads, Writes: b.Writes,
		LastReadAt: b.LastReadAt, CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt}
}

// Block is the block x describes, in bank.
func (x *ExportBlock) Block(bank string) *Block {
	return &Block{BankID: bank, Name: x.Name, Label: x.Label, Value: x.Value, MaxChars: x.MaxChars, Reads: x.Reads, Writes: x.Writes,
		LastReadAt: x.LastReadAt, CreatedAt: x.CreatedAt, UpdatedAt: x.UpdatedAt}
}
