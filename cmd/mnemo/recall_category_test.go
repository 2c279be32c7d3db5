package main

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/wire"
)

// TestRecall_Category keeps the results of the categories asked for,
// repeated or comma-separated, and refuses an unknown category.
func TestRecall_Category(t *testing.T) {
	db := newDB(t)
	for _, text := range []string{"Ada moved to Lyon in 2019.", "Ada has a meeting in Lyon next Tuesday.", "Ada prefers tea to coffee in Lyon."} {
		mustRun(t, db, "retain", text)
	}
	var page wire.FactPage
	if err := json.Unmarshal([]byte(mustRun(t, db, "--json", "facts")), &page); err != nil {
		t.Fatal(err)
	}
	byCat := map[string][]string{}
	for _, f := range page.Facts {
		byCat[string(f.Category)] = append(byCat[string(f.Category)], f.ID)
	}
	if len(byCat) < 2 {
		t.Fatalf("facts of categories %v: want at least two categories to tell apart", byCat)
	}
	ids := func(out recallOut) []string {
		var got []string
		for _, r := range out.Results {
			got = append(got, r.ID)
		}
		slices.Sort(got)
		return got
	}
	var every []string
	for c, want := range byCat {
		slices.Sort(want)
		if got := ids(doRecall(t, db, "--category", c, "Ada Lyon")); !slices.Equal(got, want) {
			t.Errorf("--category %s: got %v, want %v", c, got, want)
		}
		every = append(every, c)
	}
	all := ids(doRecall(t, db, "Ada Lyon"))
	if got := ids(doRecall(t, db, "--category", every[0], "--category", every[1], "Ada Lyon")); len(got) != len(byCat[every[0]])+len(byCat[every[1]]) {
		t.Errorf("--category %s --category %s: got %v, want the facts of both (%v, %v)", every[0], every[1], got, byCat[every[0]], byCat[every[1]])
	}
	comma := every[0]
	for _, c := range every[1:] {
		comma += "," + c
	}
	if got := ids(doRecall(t, db, "--category", comma, "Ada Lyon")); !slices.Equal(got, all) {
		t.Errorf("--category %s: got %v, want every result %v", comma, got, all)
	}
	r := mnemoRun(t, db, "recall", "--category", "misc", "Ada Lyon")
	wantFailure(t, r, exitInvalid, `unknown category "misc"`)
}
