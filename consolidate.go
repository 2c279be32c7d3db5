package mnemo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/internal/id"
	"github.com/mnemo-ai/mnemo/memory"
)

// The consolidation passes Engine.Consolidate runs.
const (
	// PassMerge folds duplicate facts into one keeper without an LLM
	// (consolidate.MergeDuplicates).
	PassMerge = "merge"
	// PassLifecycle needs no LLM either: facts' decay scores, entities'
	// salience and tiers (consolidate.Lifecycle).
	PassLifecycle = "lifecycle"
)

// Passes lists the consolidation passes Engine.Consolidate runs, in the
// order a full run takes them (merges before the lifecycle, seed 000).
var Passes = consolidate.Order

// Consolidate runs one consolidation pass over bank now and returns its
// run record, which it also stores (Engine.Runs lists it): saved as
// running when the pass starts and again with its end (ok, or failed
// with the error) and its counts. The pass uses the seeds' defaults
// (consolidate.NewDefaults). An unknown pass is EINVALID naming the
// passes; an unknown bank ENOTFOUND. A pass that fails returns its
// record and the error.
func (e *Engine) Consolidate(ctx context.Context, bank, pass string) (*memory.Run, error) {
	bank = defaultBank(bank)
	if pass == "" {
		pass = PassLifecycle
	}
	var run func(now time.Time) (map[string]int, error)
	switch pass {
	case PassMerge:
		if _, err := e.store.Bank(ctx, bank); err != nil {
			return nil, err
		}
		run = func(now time.Time) (map[string]int, error) {
			res, err := consolidate.MergeDuplicates(ctx, e.store, bank, consolidate.MergeOptions{Now: e.now})
			if res == nil {
				return nil, err
			}
			return res.Counts(), err
		}
	case PassLifecycle:
		run = func(now time.Time) (map[string]int, error) {
			res, err := consolidate.Lifecycle(ctx, e.store, bank, now, consolidate.NewDefaults())
			if res == nil {
				return nil, err
			}
			return res.Counts(), err
		}
	default:
		return nil, memory.Errorf(memory.EINVALID, "unknown pass %q (want one of: %s)", pass, strings.Join(Passes, ", "))
	}
	now := e.now().UTC().Truncate(time.Microsecond)
	var nonce [8]byte
	rand.Read(nonce[:])
	r := &memory.Run{
		ID: id.Derive("run", now, bank, pass, hex.EncodeToString(nonce[:])), BankID: bank, Pass: pass,
		StartedAt: now, Status: memory.RunRunning, Counts: map[string]int{},
	}
	if err := e.store.SaveRun(ctx, r); err != nil {
		return nil, err
	}
	counts, err := run(now)
	if counts != nil {
		r.Counts = counts
	}
	r.FinishedAt, r.Status = e.now().UTC().Truncate(time.Microsecond), memory.RunOK
	if err != nil {
		r.Status, r.Error = memory.RunFailed, err.Error()
	}
	// The record is written even if the caller's context ended the pass.
	if serr := e.store.SaveRun(context.WithoutCancel(ctx), r); serr != nil && err == nil {
		err = serr
	}
	return r, err
}

// Runs lists bank's consolidation runs, newest first, at most limit (0:
// all).
func (e *Engine) Runs(ctx context.Context, bank string, limit int) ([]*memory.Run, error) {
	return e.store.Runs(ctx, defaultBank(bank), limit)
}

// Tiers counts bank's entities per tier with those of low salience and
// those eligible for early promotion (seed 004's tier stats), as the
// last lifecycle pass left them.
func (e *Engine) Tiers(ctx context.Context, bank string) (*memory.TierStats, error) {
	bank = defaultBank(bank)
	return consolidate.Tiers(ctx, e.store, bank, e.now(), consolidate.NewDefaults())
}
