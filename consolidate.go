package mnemo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/internal/id"
	"github.com/mnemo-ai/mnemo/memory"
)

// The consolidation passes Engine.Consolidate runs: consolidate's pass
// names, here for callers of the façade.
const (
	PassObservations     = consolidate.PassObservations
	PassTemporal         = consolidate.PassTemporal
	PassObservationMerge = consolidate.PassObservationMerge
	PassMerge            = consolidate.PassMerge
	PassGroup            = consolidate.PassGroup
	PassDreams           = consolidate.PassDreams
	PassArchive          = consolidate.PassArchive
	PassExpire           = consolidate.PassExpire
	PassLifecycle        = consolidate.PassLifecycle
)

// Passes lists the consolidation passes Engine.Consolidate runs, in the
// order a full run takes them (consolidate.Order).
var Passes = consolidate.Order

// passRun is what a pass function gets for one run: the bank, the run's
// clock reading, the bank's consolidation numbers, and the run's metered
// LLM (nil when none is configured; a pass that needs one never runs
// without it).
type passRun struct {
	bank string
	now  time.Time
	d    consolidate.Defaults
	llm  memory.LLM
}

// passFunc runs one pass and returns its counts (a partial count with an
// error when it stopped midway). A *consolidate.Skipped error records the
// run as skipped with its reason.
type passFunc func(ctx context.Context, p passRun) (map[string]int, error)

// passFuncs maps each pass name to the façade call that runs it. Each
// pass lives in consolidate as a plain function over the store
// capability it declares; its entry here only hands it the engine's
// store, embedder and clock.
func (e *Engine) passFuncs() map[string]passFunc {
	return map[string]passFunc{
		PassMerge:     e.runMerge,
		PassExpire:    e.runExpire, // shortterm.go
		PassLifecycle: e.runLifecycle,
	}
}

func (e *Engine) runMerge(ctx context.Context, p passRun) (map[string]int, error) {
	res, err := consolidate.MergeDuplicates(ctx, e.store, p.bank, consolidate.MergeOptions{Now: e.now})
	if res == nil {
		return nil, err
	}
	return res.Counts(), err
}

func (e *Engine) runLifecycle(ctx context.Context, p passRun) (map[string]int, error) {
	res, err := consolidate.Lifecycle(ctx, e.store, p.bank, p.now, p.d)
	if res == nil {
		return nil, err
	}
	return res.Counts(), err
}

// Consolidate runs one consolidation pass over bank now and returns its
// run record, which it also stores (Engine.Runs lists it): saved as
// running when the pass starts and again with its end (ok, or failed
// with the error) and its counts, LLM calls and tokens. A pass that
// needs an LLM (consolidate.NeedsLLM) when none is configured is
// recorded as skipped with the reason consolidate.NoLLM and does
// nothing. The pass uses the seeds' defaults (consolidate.NewDefaults)
// with the bank's overrides. An unknown pass is EINVALID naming the
// passes; an unknown bank ENOTFOUND. A pass that fails returns its
// record and the error.
func (e *Engine) Consolidate(ctx context.Context, bank, pass string) (*memory.Run, error) {
	bank = defaultBank(bank)
	if pass == "" {
		pass = PassLifecycle
	}
	fn, ok := e.passFuncs()[pass]
	if !ok {
		return nil, memory.Errorf(memory.EINVALID, "unknown pass %q (want one of: %s)", pass, strings.Join(Passes, ", "))
	}
	d, _, err := e.bankConsolidation(ctx, bank)
	if err != nil {
		return nil, err
	}
	now := e.now().UTC().Truncate(time.Microsecond)
	var nonce [8]byte
	rand.Read(nonce[:])
	r := &memory.Run{
		ID: id.Derive("run", now, bank, pass, hex.EncodeToString(nonce[:])), BankID: bank, Pass: pass,
		StartedAt: now, Status: memory.RunRunning, Counts: map[string]int{},
	}
	if consolidate.NeedsLLM(pass) && e.llm == nil {
		r.FinishedAt, r.Status, r.Reason = now, memory.RunSkipped, consolidate.NoLLM
		return r, e.store.SaveRun(ctx, r)
	}
	if err := e.store.SaveRun(ctx, r); err != nil {
		return nil, err
	}
	p := passRun{bank: bank, now: now, d: d}
	var meter *consolidate.Meter
	if e.llm != nil {
		meter = &consolidate.Meter{LLM: e.llm}
		p.llm = meter
	}
	counts, err := fn(ctx, p)
	if counts != nil {
		r.Counts = counts
	}
	if meter != nil {
		r.LLMCalls, r.Tokens = meter.Totals()
	}
	r.FinishedAt, r.Status = e.now().UTC().Truncate(time.Microsecond), memory.RunOK
	var skip *consolidate.Skipped
	switch {
	case errors.As(err, &skip):
		r.Status, r.Reason, err = memory.RunSkipped, skip.Reason, nil
	case err != nil:
		r.Status, r.Error = memory.RunFailed, err.Error()
	}
	// The record is written even if the caller's context ended the pass.
	if serr := e.store.SaveRun(context.WithoutCancel(ctx), r); serr != nil && err == nil {
		err = serr
	}
	return r, err
}

// bankConsolidation returns bank's consolidation numbers and runner
// triggers: the seeds' defaults and the engine's runner config, with the
// bank's overrides applied. An unknown bank is ENOTFOUND.
func (e *Engine) bankConsolidation(ctx context.Context, bank string) (consolidate.Defaults, consolidate.RunnerConfig, error) {
	b, err := e.store.Bank(ctx, bank)
	if err != nil {
		return consolidate.Defaults{}, consolidate.RunnerConfig{}, err
	}
	d := consolidate.NewDefaults()
	if ttl := b.Settings.ShortTermTTL; ttl > 0 {
		d.ShortTerm.TTL = ttl
	}
	return d, e.runnerCfg, nil
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
