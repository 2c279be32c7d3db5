package storetest

import (
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// The Directives group checks memory.Directives: must-follow memories
// stored apart from facts, listed oldest first, changed only through
// UpdateDirective, kept per bank and gone with it.

func (e *env) directiveIDs(bank string) []string {
	e.t.Helper()
	ds, err := e.s.ListDirectives(e.ctx, bank)
	if err != nil {
		e.t.Fatalf("ListDirectives(%q): %v", bank, err)
	}
	noNil(e.t, "ListDirectives", ds)
	ids := make([]string, len(ds))
	for i, d := range ds {
		ids[i] = d.ID
	}
	return ids
}

func testDirectivesRoundTrip(e *env) {
	e.newBank("b")
	later := testTime.Add(time.Hour)
	ds := []*memory.Directive{
		{ID: "dir_2", BankID: "b", Text: "Answer in British English.", CreatedAt: testTime, UpdatedAt: testTime},
		{ID: "dir_1", BankID: "b", Text: "Never push to main on Fridays — ünïcode kept.", Scopes: []string{"mnemo", "repo/web"}, CreatedAt: testTime, UpdatedAt: testTime},
		{ID: "dir_0", BankID: "b", Text: "Run the tests before a commit.", Scopes: []string{"coding"}, CreatedAt: later, UpdatedAt: later},
	}
	for _, d := range ds {
		if err := e.s.CreateDirective(e.ctx, d); err != nil {
			e.t.Fatalf("CreateDirective(%s): %v", d.ID, err)
		}
	}
	// Oldest first, then by id.
	if got, want := e.directiveIDs("b"), []string{"dir_1", "dir_2", "dir_0"}; fmt.Sprint(got) != fmt.Sprint(want) {
		e.t.Errorf("ListDirectives order = %v, want %v", got, want)
	}
	for _, want := range ds {
		got, err := e.s.Directive(e.ctx, "b", want.ID)
		if err != nil {
			e.t.Fatalf("Directive(%s): %v", want.ID, err)
		}
		if d := diff(got, want); len(d) > 0 {
			e.t.Errorf("Directive(%s) differs in %v", want.ID, d)
		}
	}
	// Update replaces text, scopes and UpdatedAt and keeps CreatedAt.
	up := &memory.Directive{ID: "dir_1", BankID: "b", Text: "Never push to main.", Scopes: []string{"ops"}, CreatedAt: later, UpdatedAt: later}
	if err := e.s.UpdateDirective(e.ctx, up); err != nil {
		e.t.Fatalf("UpdateDirective: %v", err)
	}
	got, err := e.s.Directive(e.ctx, "b", "dir_1")
	if err != nil {
		e.t.Fatalf("Directive after update: %v", err)
	}
	want := *up
	want.CreatedAt = testTime
	if d := diff(got, &want); len(d) > 0 {
		e.t.Errorf("updated directive differs in %v", d)
	}
	// Scopes cleared: everywhere.
	up.Scopes = nil
	if err := e.s.UpdateDirective(e.ctx, up); err != nil {
		e.t.Fatalf("UpdateDirective (no scopes): %v", err)
	}
	if got, _ := e.s.Directive(e.ctx, "b", "dir_1"); got == nil || len(got.Scopes) != 0 {
		e.t.Errorf("scopes after clearing = %v, want none", got)
	}
	if err := e.s.DeleteDirective(e.ctx, "b", "dir_2"); err != nil {
		e.t.Fatalf("DeleteDirective: %v", err)
	}
	if got, want := e.directiveIDs("b"), []string{"dir_1", "dir_0"}; fmt.Sprint(got) != fmt.Sprint(want) {
		e.t.Errorf("after delete = %v, want %v", got, want)
	}
	// Directives are not facts: nothing in the bank's stats counts them.
	st, err := e.s.Stats(e.ctx, "b")
	if err != nil {
		e.t.Fatalf("Stats: %v", err)
	}
	if st.Facts != 0 {
		e.t.Errorf("Stats.Facts = %d after storing directives, want 0", st.Facts)
	}
}

func testDirectivesErrors(e *env) {
	e.newBank("b")
	ok := &memory.Directive{ID: "dir_x", BankID: "b", Text: "A rule.", CreatedAt: testTime, UpdatedAt: testTime}
	if err := e.s.CreateDirective(e.ctx, ok); err != nil {
		e.t.Fatalf("CreateDirective: %v", err)
	}
	wantCode(e.t, "CreateDirective (same id)", e.s.CreateDirective(e.ctx, ok), memory.ECONFLICT)
	bad := []*memory.Directive{
		{ID: "", BankID: "b", Text: "x", CreatedAt: testTime, UpdatedAt: testTime},
		{ID: "dir_e", BankID: "b", Text: "  \n", CreatedAt: testTime, UpdatedAt: testTime},
		{ID: "dir_t", BankID: "b", Text: strings.Repeat("é", memory.MaxDirectiveChars+1), CreatedAt: testTime, UpdatedAt: testTime},
		{ID: "dir_s", BankID: "b", Text: "x", Scopes: []string{"has space"}, CreatedAt: testTime, UpdatedAt: testTime},
		{ID: "dir_u", BankID: "b", Text: "x", Scopes: []string{"b", "a"}, CreatedAt: testTime, UpdatedAt: testTime},
		{ID: "dir_8", BankID: "b", Text: "bad \xff utf-8", CreatedAt: testTime, UpdatedAt: testTime},
	}
	for _, d := range bad {
		wantCode(e.t, fmt.Sprintf("CreateDirective(%q, %q, %v)", d.ID, d.Text, d.Scopes), e.s.CreateDirective(e.ctx, d), memory.EINVALID)
		wantCode(e.t, fmt.Sprintf("UpdateDirective(%q)", d.ID), e.s.UpdateDirective(e.ctx, d), memory.EINVALID, memory.ENOTFOUND)
	}
	if got := e.directiveIDs("b"); fmt.Sprint(got) != "[dir_x]" {
		e.t.Errorf("after rejected writes = %v, want [dir_x]", got)
	}
	if got, _ := e.s.Directive(e.ctx, "b", "dir_x"); got == nil || got.Text != "A rule." {
		e.t.Errorf("dir_x changed by rejected writes: %+v", got)
	}
	missing := &memory.Directive{ID: "dir_none", BankID: "b", Text: "x", CreatedAt: testTime, UpdatedAt: testTime}
	wantCode(e.t, "UpdateDirective (missing)", e.s.UpdateDirective(e.ctx, missing), memory.ENOTFOUND)
	wantCode(e.t, "DeleteDirective (missing)", e.s.DeleteDirective(e.ctx, "b", "dir_none"), memory.ENOTFOUND)
	_, err := e.s.Directive(e.ctx, "b", "dir_none")
	wantCode(e.t, "Directive (missing)", err, memory.ENOTFOUND)
	nob := &memory.Directive{ID: "dir_y", BankID: "nobank", Text: "x", CreatedAt: testTime, UpdatedAt: testTime}
	wantCode(e.t, "CreateDirective (unknown bank)", e.s.CreateDirective(e.ctx, nob), memory.ENOTFOUND)
	_, err = e.s.ListDirectives(e.ctx, "nobank")
	wantCode(e.t, "ListDirectives (unknown bank)", err, memory.ENOTFOUND)
}

func testDirectivesIsolation(e *env) {
	e.newBank("a")
	e.newBank("b")
	for _, bank := range []string{"a", "b"} {
		d := &memory.Directive{ID: "dir_same", BankID: bank, Text: "Rule of " + bank + ".", CreatedAt: testTime, UpdatedAt: testTime}
		if err := e.s.CreateDirective(e.ctx, d); err != nil {
			e.t.Fatalf("CreateDirective(%s): %v", bank, err)
		}
	}
	if got, _ := e.s.Directive(e.ctx, "a", "dir_same"); got == nil || got.Text != "Rule of a." {
		e.t.Errorf("bank a reads %+v", got)
	}
	if err := e.s.DeleteDirective(e.ctx, "a", "dir_same"); err != nil {
		e.t.Fatalf("DeleteDirective(a): %v", err)
	}
	if got := e.directiveIDs("b"); fmt.Sprint(got) != "[dir_same]" {
		e.t.Errorf("bank b after deleting a's = %v", got)
	}
	if err := e.s.DeleteBank(e.ctx, "b"); err != nil {
		e.t.Fatalf("DeleteBank: %v", err)
	}
	e.newBank("b")
	if got := e.directiveIDs("b"); len(got) != 0 {
		e.t.Errorf("a bank made again under a deleted one's name has directives %v", got)
	}
}
