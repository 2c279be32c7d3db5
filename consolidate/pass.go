package consolidate

import (
	"context"
	"slices"
	"sync"

	"github.com/mnemo-ai/mnemo/memory"
)

// The pass names, in the order a full run takes them (seed 000, "daily:
// temporal pass → observation merge → fact merge → dream pass"; seed 002's
// group consolidation after the fact merge; then seed 001's archival and
// seed 002's short-term expiry; the lifecycle last, so that it scores
// what the others left). The per-fact observation pass comes first: it
// takes newly retained facts in, as the pending trigger does.
const (
	// PassObservations turns unconsolidated facts into observations
	// (seed 000 per-fact consolidation; LLM).
	PassObservations = "observations"
	// PassTemporal finds trends, transitions, cycles and correlations
	// in the recent facts of busy entities (seed 000; LLM).
	PassTemporal = "temporal"
	// PassObservationMerge merges near-identical observations (seed 000;
	// LLM).
	PassObservationMerge = "observation-merge"
	// PassMerge folds duplicate facts into one keeper: exact and
	// near-exact duplicates without an LLM, similar pairs judged by one
	// with it (seed 000 fact merge; DESIGN §4.6).
	PassMerge = "merge"
	// PassGroup summarises groups of similar facts into one fact (seed
	// 002; LLM).
	PassGroup = "group"
	// PassDreams bridges fact clusters into insights (seed 000/001; LLM;
	// off unless a bank turns it on).
	PassDreams = "dreams"
	// PassArchive archives consolidated, old, low-decay facts and
	// observations (seed 001).
	PassArchive = "archive"
	// PassExpire promotes or prunes expired short-term facts (seed 002;
	// no LLM; shortterm.go).
	PassExpire = "expire"
	// PassLifecycle scores decay, salience and tiers (seed 002 and 004;
	// no LLM).
	PassLifecycle = "lifecycle"
)

// Order is the order of a full run: every pass, each at its place. Every
// trigger that runs a set of passes takes them in this order.
//
// A pass joins Order when it is built, at its place in the sequence
// above.
var Order = []string{PassObservations, PassTemporal, PassObservationMerge, PassMerge, PassGroup, PassDreams, PassArchive, PassExpire, PassLifecycle, PassCommunities, PassStanding}

// PendingPasses are the passes that take newly retained facts through
// consolidation, run by the pending trigger (seed 000, "every 30s:
// consolidate pending facts"): the per-fact observations, and the
// offline fact merge that folds new duplicates.
var PendingPasses = []string{PassObservations, PassMerge}

// NeedsLLM reports whether pass does nothing without an LLM: its run is
// then recorded as skipped with the reason [NoLLM] (DESIGN §6, "passes
// that need an LLM say skipped: no LLM configured rather than fake
// output"). The fact merge and the passes without a model are not among
// them.
func NeedsLLM(pass string) bool {
	switch pass {
	case PassObservations, PassTemporal, PassObservationMerge, PassGroup, PassDreams, PassStanding:
		return true
	}
	return false
}

// NoLLM is the reason recorded for a pass skipped for want of an LLM.
const NoLLM = "no LLM configured"

// Meter is an LLM that counts the calls and tokens that pass through it:
// the façade wraps its model in one per run, and the run record takes
// its totals. It is safe for concurrent use.
type Meter struct {
	LLM memory.LLM

	mu     sync.Mutex
	calls  int
	tokens int
}

// Name is the metered model's name.
func (m *Meter) Name() string { return m.LLM.Name() }

// Chat calls the model and counts the call, and its tokens when it
// answered; a failed call counts too (it was made).
func (m *Meter) Chat(ctx context.Context, req *memory.ChatRequest) (*memory.ChatResponse, error) {
	resp, err := m.LLM.Chat(ctx, req)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	if resp != nil {
		m.tokens += resp.Usage.InputTokens + resp.Usage.OutputTokens
	}
	return resp, err
}

// Totals returns the calls made and the tokens used so far.
func (m *Meter) Totals() (calls, tokens int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls, m.tokens
}

// Known reports whether pass is one [Order] lists.
func Known(pass string) bool { return slices.Contains(Order, pass) }

// Skipped is the error a pass returns when it did nothing on purpose:
// the façade records the run as skipped with Reason ("dreams are off for
// this bank"), not as failed.
type Skipped struct{ Reason string }

func (s *Skipped) Error() string { return "skipped: " + s.Reason }

// Off reports whether d turns pass off for a bank: a pass off by default
// (the dream pass) until its switch is on (Dream.Enabled, "dreams").
func (d Defaults) Off(pass string) bool {
	return pass == PassDreams && !d.Dream.Enabled
}
