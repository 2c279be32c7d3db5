package mnemo_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
)

func blockNames(bs []*memory.Block) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.Name
	}
	return out
}

// Every bank has the default blocks, empty, before any write; custom
// blocks follow them; a read is counted and stores a default block.
func TestEngine_Blocks(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t, filepath.Join(t.TempDir(), "m.db"))
	if _, err := eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	bs, err := eng.Blocks(ctx, "b")
	if err != nil {
		t.Fatalf("Blocks: %v", err)
	}
	want := []string{memory.BlockPersona, memory.BlockUserProfile, memory.BlockWorkingContext, memory.BlockOperationalFindings, memory.BlockContactsSummary}
	if got := blockNames(bs); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("Blocks of a new bank: got %q, want %q", got, want)
	}
	for _, b := range bs {
		if b.Value != "" || b.MaxChars != memory.DefaultBlockMaxChars || b.Label == "" || b.Reads != 0 {
			t.Errorf("default block %s of a new bank: %+v, want empty with a label and the default limit", b.Name, b)
		}
	}

	if _, err := eng.WriteBlock(ctx, "b", "trip_plan", "Lyon in May.", mnemo.BlockOptions{MaxChars: 40, Label: "The trip"}); err != nil {
		t.Fatalf("WriteBlock(trip_plan): %v", err)
	}
	if _, err := eng.WriteBlock(ctx, "b", memory.BlockUserProfile, "Likes tea.", mnemo.BlockOptions{}); err != nil {
		t.Fatalf("WriteBlock(user_profile): %v", err)
	}
	bs, err = eng.Blocks(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if got := blockNames(bs); strings.Join(got, ",") != strings.Join(append(want, "trip_plan"), ",") {
		t.Errorf("Blocks: got %q, want the defaults then trip_plan", got)
	}
	if bs[1].Value != "Likes tea." || bs[1].Writes != 1 {
		t.Errorf("Blocks: user_profile %+v, want the written value and one write", bs[1])
	}

	for i := 1; i <= 2; i++ {
		p, err := eng.Block(ctx, "b", memory.BlockPersona)
		if err != nil {
			t.Fatalf("Block(persona) %d: %v", i, err)
		}
		if p.Value != "" || p.Reads != i || p.LastReadAt.IsZero() {
			t.Errorf("Block(persona) read %d: %+v, want empty, %d reads, a last read", i, p, i)
		}
	}
	if _, err := eng.Block(ctx, "b", "nope"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("Block(custom never written): %v, want ENOTFOUND", err)
	}
	if _, err := eng.Block(ctx, "b", "Bad Name"); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("Block(bad name): %v, want EINVALID", err)
	}
	if _, err := eng.Blocks(ctx, "nope"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("Blocks(unknown bank): %v, want ENOTFOUND", err)
	}
	if _, err := eng.WriteBlock(ctx, "nope", memory.BlockPersona, "x", mnemo.BlockOptions{}); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("WriteBlock(unknown bank): %v, want ENOTFOUND", err)
	}
}

// Append, replace and the limit through the façade; a failed write
// changes nothing; deleting a default block resets it, deleting a custom
// block removes it.
func TestEngine_WriteBlock(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t, filepath.Join(t.TempDir(), "m.db"))
	// The default bank is created on first use.
	b, err := eng.WriteBlock(ctx, "", memory.BlockWorkingContext, "Step 1: draft.", mnemo.BlockOptions{MaxChars: 40})
	if err != nil {
		t.Fatalf("WriteBlock: %v", err)
	}
	if b.BankID != memory.DefaultBank {
		t.Errorf("WriteBlock with no bank: bank %q, want %q", b.BankID, memory.DefaultBank)
	}
	b, err = eng.WriteBlock(ctx, "", memory.BlockWorkingContext, "Step 2: review.", mnemo.BlockOptions{Mode: memory.BlockAppend})
	if err != nil || b.Value != "Step 1: draft.\nStep 2: review." {
		t.Fatalf("WriteBlock(append): %+v, %v", b, err)
	}
	b, err = eng.WriteBlock(ctx, "", memory.BlockWorkingContext, "done", mnemo.BlockOptions{Mode: memory.BlockReplace, Old: "draft"})
	if err != nil || b.Value != "Step 1: done.\nStep 2: review." || b.Writes != 3 {
		t.Fatalf("WriteBlock(replace): %+v, %v", b, err)
	}
	for name, tc := range map[string]struct {
		value string
		opts  mnemo.BlockOptions
	}{
		"past the limit":   {strings.Repeat("x", 41), mnemo.BlockOptions{}},
		"append past it":   {strings.Repeat("x", 20), mnemo.BlockOptions{Mode: memory.BlockAppend}},
		"absent old text":  {"y", mnemo.BlockOptions{Mode: memory.BlockReplace, Old: "Step 3"}},
		"unknown mode":     {"y", mnemo.BlockOptions{Mode: "insert"}},
		"limit too small":  {"y", mnemo.BlockOptions{Mode: memory.BlockAppend, MaxChars: 10}},
		"limit too large":  {"y", mnemo.BlockOptions{MaxChars: memory.MaxBlockChars + 1}},
		"invalid utf-8":    {"\xc3", mnemo.BlockOptions{}},
		"repeated old txt": {"y", mnemo.BlockOptions{Mode: memory.BlockReplace, Old: "Step"}},
	} {
		if _, err := eng.WriteBlock(ctx, "", memory.BlockWorkingContext, tc.value, tc.opts); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("WriteBlock(%s): %v, want EINVALID", name, err)
		}
	}
	got, err := eng.Block(ctx, "", memory.BlockWorkingContext)
	if err != nil || got.Value != b.Value || got.Writes != b.Writes || got.MaxChars != 40 {
		t.Errorf("Block after failed writes: %+v, %v, want %q with %d writes and limit 40", got, err, b.Value, b.Writes)
	}

	if err := eng.DeleteBlock(ctx, "", memory.BlockWorkingContext); err != nil {
		t.Fatalf("DeleteBlock(default block): %v", err)
	}
	bs, err := eng.Blocks(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if wc := bs[2]; wc.Name != memory.BlockWorkingContext || wc.Value != "" || wc.MaxChars != memory.DefaultBlockMaxChars {
		t.Errorf("working_context after DeleteBlock: %+v, want it empty with the default limit", wc)
	}
	if err := eng.DeleteBlock(ctx, "", memory.BlockWorkingContext); err != nil {
		t.Errorf("DeleteBlock(default block never written): %v, want nil", err)
	}
	if _, err := eng.WriteBlock(ctx, "", "scratch", "x", mnemo.BlockOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := eng.DeleteBlock(ctx, "", "scratch"); err != nil {
		t.Fatalf("DeleteBlock(scratch): %v", err)
	}
	if err := eng.DeleteBlock(ctx, "", "scratch"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("DeleteBlock(scratch) again: %v, want ENOTFOUND", err)
	}
}

func ExampleEngine_WriteBlock() {
	dir, err := os.MkdirTemp("", "mnemo-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: filepath.Join(dir, "memory.db")})
	if err != nil {
		panic(err)
	}
	defer eng.Close()

	if _, err := eng.WriteBlock(ctx, "", memory.BlockUserProfile, "Name: Alice.", mnemo.BlockOptions{}); err != nil {
		panic(err)
	}
	if _, err := eng.WriteBlock(ctx, "", memory.BlockUserProfile, "Lives in Lisbon.", mnemo.BlockOptions{Mode: memory.BlockAppend}); err != nil {
		panic(err)
	}
	b, err := eng.Block(ctx, "", memory.BlockUserProfile)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s (%d/%d characters):\n%s\n", b.Name, b.Chars(), b.MaxChars, b.Value)
	_, err = eng.WriteBlock(ctx, "", memory.BlockUserProfile, "Likes tea.", mnemo.BlockOptions{Mode: memory.BlockReplace, Old: "coffee"})
	fmt.Println(memory.ErrorCode(err))
	// Output:
	// user_profile (29/2000 characters):
	// Name: Alice.
	// Lives in Lisbon.
	// invalid
}
