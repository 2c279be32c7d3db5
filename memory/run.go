package memory

import (
	"context"
	"time"
)

// Runs keeps the record of every consolidation run (DESIGN §3, the
// audit/run log): which pass, when, how it ended and what it counted.
// Part of [Store].
type Runs interface {
	// SaveRun stores r, replacing the record of the same (bank, id): a
	// run is saved when it starts and again when it ends. r.ID, r.Pass
	// and r.StartedAt must be set and r.Status known ([RunStatus.Valid]),
	// else EINVALID; an unknown bank is ENOTFOUND.
	SaveRun(ctx context.Context, r *Run) error
	// Runs lists a bank's runs, newest (StartedAt, then id) first, at
	// most limit (0 or less: all); an unknown bank is ENOTFOUND.
	Runs(ctx context.Context, bankID string, limit int) ([]*Run, error)
}

// RunStatus is how a consolidation run ended, or that it has not yet.
type RunStatus string

const (
	RunRunning RunStatus = "running"
	RunOK      RunStatus = "ok"
	RunFailed  RunStatus = "failed"
	// RunSkipped is a pass that did nothing on purpose; Run.Reason says
	// why ("no LLM configured").
	RunSkipped RunStatus = "skipped"
)

// Valid reports whether s is one of the known statuses.
func (s RunStatus) Valid() bool {
	return s == RunRunning || s == RunOK || s == RunFailed || s == RunSkipped
}

// Run is the record of one consolidation pass over one bank.
type Run struct {
	ID         string
	BankID     string
	Pass       string // "lifecycle", …
	StartedAt  time.Time
	FinishedAt time.Time // zero while running
	Status     RunStatus
	Reason     string // why skipped
	// Counts are the pass's own counters ("facts_scored", "promoted", …).
	Counts   map[string]int
	LLMCalls int
	Tokens   int
	Error    string // when failed
}

// CheckRun checks the fields every stored run needs: EINVALID if one is
// missing or its status unknown.
func CheckRun(r *Run) error {
	switch {
	case r == nil:
		return Errorf(EINVALID, "no run")
	case r.ID == "" || r.Pass == "":
		return Errorf(EINVALID, "a run needs an id and a pass")
	case r.StartedAt.IsZero():
		return Errorf(EINVALID, "run %s has no start time", r.ID)
	case !r.Status.Valid():
		return Errorf(EINVALID, "run %s: unknown status %q", r.ID, r.Status)
	}
	return nil
}
