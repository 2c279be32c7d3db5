package storetest

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// The Blocks group checks memory.Blocks: named working-memory texts that
// are created by their first edit, changed only whole and atomically,
// never past their limit, kept per bank and gone with it.

func (e *env) editBlock(bank, name string, ed memory.BlockEdit) *memory.Block {
	e.t.Helper()
	b, err := e.s.EditBlock(e.ctx, bank, name, ed)
	if err != nil {
		e.t.Fatalf("EditBlock(%q, %q, %+v): %v", bank, name, ed, err)
	}
	if b == nil {
		e.t.Fatalf("EditBlock(%q, %q): nil block", bank, name)
	}
	return b
}

func (e *env) block(bank, name string) *memory.Block {
	e.t.Helper()
	b, err := e.s.Block(e.ctx, bank, name)
	if err != nil {
		e.t.Fatalf("Block(%q, %q): %v", bank, name, err)
	}
	if b == nil {
		e.t.Fatalf("Block(%q, %q): nil", bank, name)
	}
	return b
}

func (e *env) blockNames(bank string) []string {
	e.t.Helper()
	bs, err := e.s.Blocks(e.ctx, bank)
	if err != nil {
		e.t.Fatalf("Blocks(%q): %v", bank, err)
	}
	noNil(e.t, "Blocks", bs)
	names := make([]string, len(bs))
	for i, b := range bs {
		names[i] = b.Name
	}
	return names
}

// noBlock checks that the block is not stored.
func (e *env) noBlock(bank, name string) {
	e.t.Helper()
	b, err := e.s.Block(e.ctx, bank, name)
	if memory.ErrorCode(err) != memory.ENOTFOUND {
		e.t.Errorf("Block(%q, %q): got %+v, %v, want ENOTFOUND", bank, name, b, err)
	}
}

// A block is created by its first edit, read back as written, listed by
// name; reads and writes are counted; append starts a new line, replace
// swaps one occurrence; delete removes it.
func testBlocksRoundTrip(e *env) {
	e.newBank("b")
	t0, t1, t2 := testTime, testTime.Add(time.Hour), testTime.Add(2*time.Hour)
	got := e.editBlock("b", "notes", memory.BlockEdit{Mode: memory.BlockWrite, Value: "Café at 9.", Label: "Scratch notes", MaxChars: 50, At: t0})
	want := &memory.Block{BankID: "b", Name: "notes", Label: "Scratch notes", Value: "Café at 9.", MaxChars: 50, Writes: 1, CreatedAt: t0, UpdatedAt: t0}
	checkDiff(e.t, "EditBlock(write)", got, want)
	checkDiff(e.t, "Block after write", e.block("b", "notes"), want)

	// A default block takes its label and limit from memory.DefaultBlocks.
	p := e.editBlock("b", memory.BlockPersona, memory.BlockEdit{Mode: memory.BlockAppend, Value: "A careful assistant.", At: t1})
	def := memory.DefaultBlock("b", memory.BlockPersona)
	if p.Label != def.Label || p.MaxChars != def.MaxChars || p.Value != "A careful assistant." {
		e.t.Errorf("EditBlock(persona, append): got label %q, max %d, value %q, want %q, %d, %q", p.Label, p.MaxChars, p.Value, def.Label, def.MaxChars, "A careful assistant.")
	}
	checkIDs(e.t, "Blocks(b)", e.blockNames("b"), []string{"notes", memory.BlockPersona})

	got = e.editBlock("b", "notes", memory.BlockEdit{Mode: memory.BlockAppend, Value: "Bring the keys.", At: t1})
	want.Value, want.Writes, want.UpdatedAt = "Café at 9.\nBring the keys.", 2, t1
	checkDiff(e.t, "EditBlock(append)", got, want)
	got = e.editBlock("b", "notes", memory.BlockEdit{Mode: memory.BlockReplace, Old: "at 9", Value: "at 10", At: t2})
	want.Value, want.Writes, want.UpdatedAt = "Café at 10.\nBring the keys.", 3, t2
	checkDiff(e.t, "EditBlock(replace)", got, want)

	for i := 1; i <= 2; i++ {
		r, err := e.s.ReadBlock(e.ctx, "b", "notes", t2.Add(time.Duration(i)*time.Minute))
		if err != nil {
			e.t.Fatalf("ReadBlock %d: %v", i, err)
		}
		want.Reads, want.LastReadAt = i, t2.Add(time.Duration(i)*time.Minute)
		checkDiff(e.t, fmt.Sprintf("ReadBlock %d", i), r, want)
	}
	checkDiff(e.t, "Block after reads", e.block("b", "notes"), want)
	// A limit or label change alone is no write.
	got = e.editBlock("b", "notes", memory.BlockEdit{MaxChars: 30, Label: "Notes", At: t2})
	want.MaxChars, want.Label = 30, "Notes"
	checkDiff(e.t, "EditBlock(limit and label)", got, want)

	if err := e.s.DeleteBlock(e.ctx, "b", "notes"); err != nil {
		e.t.Fatalf("DeleteBlock: %v", err)
	}
	e.noBlock("b", "notes")
	checkIDs(e.t, "Blocks(b) after delete", e.blockNames("b"), []string{memory.BlockPersona})
	wantCode(e.t, "DeleteBlock(deleted)", e.s.DeleteBlock(e.ctx, "b", "notes"), memory.ENOTFOUND)
	_, err := e.s.ReadBlock(e.ctx, "b", "notes", t2)
	wantCode(e.t, "ReadBlock(deleted)", err, memory.ENOTFOUND)
}

// An edit that would take a block past its limit, a replace whose text
// does not occur once, a bad name, mode or limit is EINVALID and changes
// nothing.
func testBlocksLimits(e *env) {
	e.newBank("b")
	before := e.editBlock("b", "notes", memory.BlockEdit{Mode: memory.BlockWrite, Value: "héllo wörld", MaxChars: 12, At: testTime})
	if before.Value != "héllo wörld" {
		e.t.Fatalf("write of 11 characters (13 bytes) under a limit of 12: got %q", before.Value)
	}
	for name, ed := range map[string]memory.BlockEdit{
		"write past the limit":       {Mode: memory.BlockWrite, Value: strings.Repeat("x", 13)},
		"append past the limit":      {Mode: memory.BlockAppend, Value: "!"},
		"replace past the limit":     {Mode: memory.BlockReplace, Old: "héllo", Value: "hello there"},
		"replace of absent text":     {Mode: memory.BlockReplace, Old: "bye", Value: "b"},
		"replace of repeated text":   {Mode: memory.BlockReplace, Old: "l", Value: "L"},
		"replace of nothing":         {Mode: memory.BlockReplace, Value: "x"},
		"limit under the value":      {MaxChars: 5},
		"negative limit":             {MaxChars: -1},
		"limit over MaxBlockChars":   {MaxChars: memory.MaxBlockChars + 1},
		"unknown mode":               {Mode: "prepend", Value: "x"},
		"invalid UTF-8":              {Mode: memory.BlockWrite, Value: "\xff"},
		"write past a lowered limit": {Mode: memory.BlockWrite, Value: "abcdef", MaxChars: 5},
	} {
		ed.At = testTime.Add(time.Hour)
		_, err := e.s.EditBlock(e.ctx, "b", "notes", ed)
		wantCode(e.t, "EditBlock("+name+")", err, memory.EINVALID)
		checkDiff(e.t, "block after EditBlock("+name+")", e.block("b", "notes"), before)
	}
	// A new block over the default limit, or with a bad name, is not
	// created.
	_, err := e.s.EditBlock(e.ctx, "b", "big", memory.BlockEdit{Mode: memory.BlockWrite, Value: strings.Repeat("x", memory.DefaultBlockMaxChars+1), At: testTime})
	wantCode(e.t, "EditBlock(new block past the default limit)", err, memory.EINVALID)
	e.noBlock("b", "big")
	for _, name := range []string{"", "Persona", "1st", "a-b", "a b", strings.Repeat("a", 65)} {
		_, err := e.s.EditBlock(e.ctx, "b", name, memory.BlockEdit{Mode: memory.BlockWrite, Value: "x", At: testTime})
		wantCode(e.t, fmt.Sprintf("EditBlock(name %q)", name), err, memory.EINVALID)
	}
	checkIDs(e.t, "Blocks(b)", e.blockNames("b"), []string{"notes"})
}

// Concurrent appends to one block all land, and concurrent reads are
// all counted.
func testBlocksConcurrent(e *env) {
	e.newBank("b")
	e.editBlock("b", "log", memory.BlockEdit{MaxChars: 10_000, At: testTime})
	const writers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, 2*writers*each)
	for w := range writers {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := e.s.EditBlock(e.ctx, "b", "log", memory.BlockEdit{Mode: memory.BlockAppend, Value: fmt.Sprintf("w%d-%d", w, i), At: testTime}); err != nil {
					errs <- err
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range each {
				if _, err := e.s.ReadBlock(e.ctx, "b", "log", testTime); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		e.t.Errorf("concurrent edit or read: %v", err)
	}
	b := e.block("b", "log")
	lines := strings.Split(b.Value, "\n")
	if len(lines) != writers*each {
		e.t.Errorf("after %d concurrent appends: %d lines (%q)", writers*each, len(lines), b.Value)
	}
	for w := range writers {
		for i := range each {
			if n := strings.Count("\n"+b.Value+"\n", fmt.Sprintf("\nw%d-%d\n", w, i)); n != 1 {
				e.t.Errorf("append w%d-%d is in the block %d times, want 1", w, i, n)
			}
		}
	}
	if b.Writes != writers*each || b.Reads != writers*each {
		e.t.Errorf("after %d appends and %d reads: Writes %d, Reads %d", writers*each, writers*each, b.Writes, b.Reads)
	}
}

// Blocks of one bank are invisible to another, and go with their bank.
func testBlocksIsolation(e *env) {
	e.newBank("a")
	e.newBank("b")
	e.editBlock("a", "notes", memory.BlockEdit{Mode: memory.BlockWrite, Value: "a's notes", At: testTime})
	e.noBlock("b", "notes")
	checkIDs(e.t, "Blocks(b)", e.blockNames("b"), nil)
	_, err := e.s.ReadBlock(e.ctx, "b", "notes", testTime)
	wantCode(e.t, "ReadBlock(b, notes)", err, memory.ENOTFOUND)
	wantCode(e.t, "DeleteBlock(b, notes)", e.s.DeleteBlock(e.ctx, "b", "notes"), memory.ENOTFOUND)
	e.editBlock("b", "notes", memory.BlockEdit{Mode: memory.BlockAppend, Value: "b's notes", At: testTime})
	if got := e.block("a", "notes").Value; got != "a's notes" {
		e.t.Errorf("Block(a, notes) after an edit in b: got %q", got)
	}
	if got := e.block("b", "notes").Value; got != "b's notes" {
		e.t.Errorf("Block(b, notes): got %q", got)
	}

	if err := e.s.DeleteBank(e.ctx, "a"); err != nil {
		e.t.Fatalf("DeleteBank(a): %v", err)
	}
	e.newBank("a")
	checkIDs(e.t, "Blocks(a) of a bank deleted and created again", e.blockNames("a"), nil)
	checkIDs(e.t, "Blocks(b) after DeleteBank(a)", e.blockNames("b"), []string{"notes"})
}

// Every call on an unknown bank is ENOTFOUND.
func testBlocksUnknownBank(e *env) {
	_, err := e.s.Block(e.ctx, "nope", "notes")
	wantCode(e.t, "Block", err, memory.ENOTFOUND)
	_, err = e.s.Blocks(e.ctx, "nope")
	wantCode(e.t, "Blocks", err, memory.ENOTFOUND)
	_, err = e.s.EditBlock(e.ctx, "nope", "notes", memory.BlockEdit{Mode: memory.BlockWrite, Value: "x", At: testTime})
	wantCode(e.t, "EditBlock", err, memory.ENOTFOUND)
	_, err = e.s.ReadBlock(e.ctx, "nope", "notes", testTime)
	wantCode(e.t, "ReadBlock", err, memory.ENOTFOUND)
	wantCode(e.t, "DeleteBlock", e.s.DeleteBlock(e.ctx, "nope", "notes"), memory.ENOTFOUND)
}
