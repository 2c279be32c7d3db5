package mnemo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"maps"
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
	PassCommunities      = consolidate.PassCommunities
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
		PassObservations:     e.runObservations,     // observe.go
		PassTemporal:         e.runTemporal,         // temporal.go
		PassObservationMerge: e.runObservationMerge, // observe.go
		PassMerge:            e.runMerge,            // merge.go
		PassGroup:            e.runGroup,            // group.go
		PassDreams:           e.runDreams,           // dreams.go
		PassArchive:          e.runArchive,          // archive.go
		PassExpire:           e.runExpire,           // shortterm.go
		PassLifecycle:        e.runLifecycle,
		PassStanding:         e.runStanding,    // standing.go
		PassCommunities:      e.runCommunities, // communities.go
	}
}

// runLifecycle scores the importance of unscored facts first when an
// LLM is configured (consolidate.ScoreImportance), so that the decay
// scores the lifecycle computes next read it; offline it is the
// lifecycle alone.
func (e *Engine) runLifecycle(ctx context.Context, p passRun) (map[string]int, error) {
	var scored map[string]int
	if p.llm != nil {
		imp, err := consolidate.ScoreImportance(ctx, e.store, p.llm, p.bank, p.now, p.d.Importance)
		if imp != nil {
			scored = imp.Counts()
		}
		if err != nil {
			return scored, err
		}
	}
	res, err := consolidate.Lifecycle(ctx, e.store, p.bank, p.now, p.d)
	if res == nil {
		return scored, err
	}
	counts := res.Counts()
	maps.Copy(counts, scored)
	return counts, err
}

// Consolidate runs one consolidation pass over bank now and returns its
// run record, which it also stores (Engine.Runs lists it): saved as
// running when the pass starts and again with its end (ok, or failed
// with the error) and its counts, LLM calls and tokens. A pass that
// needs an LLM (consolidate.NeedsLLM) when none is configured is
// recorded as skipped with the reason consolidate.NoLLM and does
// nothing. The pass uses the engine's defaults
// (Config.ConsolidationDefaults, else consolidate.NewDefaults) with the
// bank's overrides. An unknown pass is EINVALID naming the
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
	e.emit(ctx, bank, memory.EventConsolidation, map[string]any{
		"run_id": r.ID, "pass": r.Pass, "status": r.Status, "reason": r.Reason, "error": r.Error, "counts": r.Counts,
		"llm_calls": r.LLMCalls, "started_at": r.StartedAt, "finished_at": r.FinishedAt,
	})
	return r, err
}

// bankConsolidation returns bank's consolidation numbers and runner
// triggers: the seeds' defaults and the engine's runner config, with the
// bank's overrides applied (memory.BankSettings.Consolidation, and its
// older ConsolidateInterval for the pending trigger). An unknown bank is
// ENOTFOUND; overrides stored before a knob was renamed are EINVALID.
func (e *Engine) bankConsolidation(ctx context.Context, bank string) (consolidate.Defaults, consolidate.RunnerConfig, error) {
	b, err := e.store.Bank(ctx, bank)
	if err != nil {
		return consolidate.Defaults{}, consolidate.RunnerConfig{}, err
	}
	return consolidationSettings(b.Settings, e.runnerCfg)
}

// consolidationSettings lays s's overrides over the defaults and rc.
func consolidationSettings(s memory.BankSettings, rc consolidate.RunnerConfig) (consolidate.Defaults, consolidate.RunnerConfig, error) {
	if s.ConsolidateInterval > 0 {
		rc.PendingEvery = s.ConsolidateInterval
	}
	d := consolidate.NewDefaults()
	if s.ShortTermTTL > 0 {
		d.ShortTerm.TTL = s.ShortTermTTL
	}
	d, rc, err := consolidate.Apply(s.Consolidation, d, rc)
	return d, rc.WithDefaults(), err
}

// ConsolidationSettings lists every consolidation number and trigger of
// bank with its value, the bank's overrides applied and marked
// (consolidate.Knobs). SetConsolidationSettings changes them.
func (e *Engine) ConsolidationSettings(ctx context.Context, bank string) ([]consolidate.Knob, error) {
	b, err := e.store.Bank(ctx, defaultBank(bank))
	if err != nil {
		return nil, err
	}
	return knobsOf(b.Settings, e.runnerCfg)
}

// SetConsolidationSettings overrides bank's consolidation settings by
// name: a value sets the knob for the bank, "" goes back to the default
// (memory.PatchSettings); names left out keep their value. An unknown
// name or a bad value is EINVALID and changes nothing. It returns every
// knob as ConsolidationSettings does.
func (e *Engine) SetConsolidationSettings(ctx context.Context, bank string, patch map[string]string) ([]consolidate.Knob, error) {
	b, err := e.ChangeBank(ctx, bank, func(s *memory.BankSettings) {
		s.Consolidation = memory.PatchSettings(s.Consolidation, patch)
	})
	if err != nil {
		return nil, err
	}
	return knobsOf(b.Settings, e.runnerCfg)
}

// knobsOf lists the knobs of a bank with settings s, its overrides marked.
func knobsOf(s memory.BankSettings, rc consolidate.RunnerConfig) ([]consolidate.Knob, error) {
	d, rc, err := consolidationSettings(s, rc)
	if err != nil {
		return nil, err
	}
	knobs := consolidate.Knobs(d, rc)
	for i := range knobs {
		_, knobs[i].Overridden = s.Consolidation[knobs[i].Name]
	}
	return knobs, nil
}

// Runs lists bank's consolidation runs, newest first, at most limit (0:
// all).
func (e *Engine) Runs(ctx context.Context, bank string, limit int) ([]*memory.Run, error) {
	return e.store.Runs(ctx, defaultBank(bank), limit)
}

// Tiers counts bank's entities per tier with those of low salience and
// those eligible for early promotion (seed 004's tier stats), as the
// last lifecycle pass left them, under the bank's consolidation
// settings.
func (e *Engine) Tiers(ctx context.Context, bank string) (*memory.TierStats, error) {
	bank = defaultBank(bank)
	d, _, err := e.bankConsolidation(ctx, bank)
	if err != nil {
		return nil, err
	}
	return consolidate.Tiers(ctx, e.store, bank, e.now(), d)
}

// ConsolidateAll runs every pass over bank now, in consolidate.Order,
// and returns their run records (see Consolidate): a full run on demand.
// A pass that needs an LLM when none is configured, or that the bank
// turns off, is recorded as skipped with its reason. Every pass is tried;
// the first error is returned with all the records.
func (e *Engine) ConsolidateAll(ctx context.Context, bank string) ([]*memory.Run, error) {
	bank = defaultBank(bank)
	if _, err := e.store.Bank(ctx, bank); err != nil {
		return nil, err
	}
	var runs []*memory.Run
	var first error
	for _, pass := range Passes {
		if err := ctx.Err(); err != nil {
			return runs, err
		}
		r, err := e.Consolidate(ctx, bank, pass)
		if r != nil {
			runs = append(runs, r)
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return runs, first
}
