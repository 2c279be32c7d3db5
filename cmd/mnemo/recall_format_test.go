package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRecall_Format prints the packed context in each format, and as of a
// time before anything was remembered.
func TestRecall_Format(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "retain", "--speaker", "Ada", "--at", "2024-03-01", "I moved to Lyon last month.")
	mustRun(t, db, "retain", "--speaker", "Ada", "--at", "2024-06-01", "I adopted a cat in Lyon.")

	if out := mustRun(t, db, "recall", "--format", "text", "Lyon"); !strings.HasPrefix(out, "Relevant memories") || !strings.Contains(out, "Ada: I adopted a cat in Lyon.") {
		t.Errorf("--format text:\n%s", out)
	}
	if out := mustRun(t, db, "recall", "--format", "markdown", "Lyon"); !strings.HasPrefix(out, "## Relevant memories") || !strings.Contains(out, "**2024-06-01** Ada: I adopted a cat") {
		t.Errorf("--format markdown:\n%s", out)
	}
	out := mustRun(t, db, "recall", "--format", "json", "Lyon")
	var doc struct {
		Facts []struct{ Date, Speaker, Text string } `json:"facts"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Facts) != 2 {
		t.Errorf("--format json: %v, %d facts\n%s", err, len(doc.Facts), out)
	}
	r := mnemoRun(t, db, "recall", "--format", "html", "Lyon")
	wantFailure(t, r, exitInvalid, "want text, markdown or json")

	// Nothing was known in 2020 (transaction time: the facts were learned now).
	if out := mustRun(t, db, "recall", "--as-of", "2020-01-01", "Lyon"); !strings.Contains(out, "nothing relevant remembered") {
		t.Errorf("--as-of 2020:\n%s", out)
	}
	if out := mustRun(t, db, "recall", "--as-of", "2099-01-01", "Lyon"); !strings.Contains(out, "Lyon") {
		t.Errorf("--as-of 2099:\n%s", out)
	}
}
