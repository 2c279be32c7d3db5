package main

import (
	"strings"
	"testing"
)

// blockOut is a block as `mnemo blocks … --json` prints it.
type blockOut struct {
	Bank       string `json:"bank"`
	Name       string `json:"name"`
	Label      string `json:"label"`
	Value      string `json:"value"`
	Chars      int    `json:"chars"`
	MaxChars   int    `json:"max_chars"`
	Reads      int    `json:"reads"`
	Writes     int    `json:"writes"`
	LastReadAt string `json:"last_read_at"`
	CreatedAt  string `json:"created_at"`
	UpdatedAt  string `json:"updated_at"`
}

// mnemo blocks lists the default blocks of a new bank; write, --append,
// --replace and stdin change one; show prints it and counts the read; a
// write past the limit fails with the invalid exit code and changes
// nothing; delete removes a custom block.
func TestBlocks(t *testing.T) {
	db := emptyDB(t)
	var list struct {
		Blocks []blockOut `json:"blocks"`
	}
	decodeStrict(t, mustRun(t, db, "--json", "blocks"), &list)
	var names []string
	for _, b := range list.Blocks {
		names = append(names, b.Name)
	}
	if got := strings.Join(names, " "); got != "persona user_profile working_context operational_findings contacts_summary" {
		t.Fatalf("blocks of a new bank: %q", got)
	}

	var b blockOut
	decodeStrict(t, mustRun(t, db, "--json", "blocks", "write", "--max-chars", "30", "todo", "buy milk"), &b)
	if b.Name != "todo" || b.Value != "buy milk" || b.Chars != 8 || b.MaxChars != 30 || b.Writes != 1 || b.Bank != "default" {
		t.Errorf("blocks write --json: %+v", b)
	}
	mustRun(t, db, "blocks", "write", "--append", "todo", "call Anna")
	if got := mustRun(t, db, "blocks", "write", "--replace", "milk", "todo", "oat milk"); got != "block todo: 22 of 30 characters\n" {
		t.Errorf("blocks write --replace: %q", got)
	}
	r := mnemoIn(t, db, strings.NewReader("Warm and brief.\n"), "blocks", "write", "persona", "-")
	if r.code != exitOK {
		t.Fatalf("blocks write persona -: %v", r)
	}
	if got := mustRun(t, db, "blocks", "show", "todo"); got != "buy oat milk\ncall Anna\n" {
		t.Errorf("blocks show todo: %q", got)
	}
	if got := mustRun(t, db, "blocks", "show", "persona"); got != "Warm and brief.\n" {
		t.Errorf("blocks show persona: %q (stdin's final newline belongs to the pipe)", got)
	}

	wantFailure(t, mnemoRun(t, db, "blocks", "write", "--append", "todo", strings.Repeat("x", 10)), exitInvalid, "limit of 30")
	wantFailure(t, mnemoRun(t, db, "blocks", "write", "--replace", "tea", "todo", "x"), exitInvalid, "does not contain")
	wantFailure(t, mnemoRun(t, db, "blocks", "write", "--append", "--replace", "milk", "todo", "x"), exitInvalid, "not both")
	wantFailure(t, mnemoRun(t, db, "blocks", "show", "nope"), exitNotFound, "nope")
	decodeStrict(t, mustRun(t, db, "--json", "blocks", "show", "todo"), &b)
	if b.Value != "buy oat milk\ncall Anna" || b.Writes != 3 || b.Reads != 2 || b.LastReadAt == "" {
		t.Errorf("todo after failed writes and two reads: %+v", b)
	}

	var del struct {
		Deleted string `json:"deleted"`
	}
	if decodeStrict(t, mustRun(t, db, "--json", "blocks", "delete", "todo"), &del); del.Deleted != "todo" {
		t.Errorf("blocks delete --json: %+v", del)
	}
	wantFailure(t, mnemoRun(t, db, "blocks", "delete", "todo"), exitNotFound, "todo")
	out := mustRun(t, db, "blocks")
	if !strings.Contains(out, "persona") || !strings.Contains(out, "15/2000") || strings.Contains(out, "todo") {
		t.Errorf("blocks:\n%s", out)
	}
}
