package storetest

import (
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// testBankSettingsSet replaces a bank's settings and reads them back,
// leaving the rest of the bank (embedder, creation time) and other banks
// as they were.
func testBankSettingsSet(e *env) {
	e.newBank("alice")
	e.newBank("bob")
	before := e.bank("alice")
	want := memory.BankSettings{
		Skepticism: 5, Literalism: 1, Empathy: 3,
		Mission: "keep Alice's garden notes", Background: "Alice grows tomatoes",
		ShortTermTTL: 12 * time.Hour,
	}
	if err := e.s.SetBankSettings(e.ctx, "alice", want); err != nil {
		e.t.Fatalf("SetBankSettings(alice): %v", err)
	}
	after := *before
	after.Settings = want
	checkDiff(e.t, "Bank(alice) after SetBankSettings", e.bank("alice"), &after)
	checkDiff(e.t, "Bank(bob) after SetBankSettings(alice)", e.bank("bob").Settings, memory.BankSettings{})

	// Settings are replaced, not merged: what the new value leaves out is
	// gone.
	next := memory.BankSettings{Empathy: 2}
	if err := e.s.SetBankSettings(e.ctx, "alice", next); err != nil {
		e.t.Fatalf("SetBankSettings(alice, again): %v", err)
	}
	checkDiff(e.t, "Bank(alice) after a second SetBankSettings", e.bank("alice").Settings, next)
}

// testBankSettingsErrInvalid refuses settings out of range and stores
// nothing; an unknown bank is ENOTFOUND.
func testBankSettingsErrInvalid(e *env) {
	e.newBank("alice")
	good := memory.BankSettings{Skepticism: 2, Mission: "m"}
	if err := e.s.SetBankSettings(e.ctx, "alice", good); err != nil {
		e.t.Fatalf("SetBankSettings(alice): %v", err)
	}
	for name, bad := range map[string]memory.BankSettings{
		"skepticism 6":      {Skepticism: 6},
		"literalism -1":     {Literalism: -1},
		"empathy 9":         {Empathy: 9},
		"mission too long":  {Mission: strings.Repeat("x", memory.MaxBankTextBytes+1)},
		"background utf-8":  {Background: "bad \xff"},
		"negative duration": {ShortTermTTL: -time.Hour},
	} {
		wantCode(e.t, "SetBankSettings("+name+")", e.s.SetBankSettings(e.ctx, "alice", bad), memory.EINVALID)
	}
	checkDiff(e.t, "Bank(alice) after refused settings", e.bank("alice").Settings, good)
	wantCode(e.t, "SetBankSettings(unknown bank)", e.s.SetBankSettings(e.ctx, "nobody", good), memory.ENOTFOUND)
}
