package consolidate

import (
	"slices"
	"time"
)

// The runner only decides when consolidation runs (DESIGN §6): the
// decisions below are pure functions of a bank's state and a clock,
// tested directly; the façade's loop gathers the state, asks [Due] and
// queues what is due as one job on the durable job queue, whose claims
// and leases keep one run per bank across processes.

// JobKind is the kind of a consolidation job on the durable queue; its
// payload is a JSON [JobPayload].
const JobKind = "consolidate"

// JobPayload is what a consolidation job runs: the passes, in order, over
// one bank, and the triggers that asked for them (for the record).
type JobPayload struct {
	Bank     string    `json:"bank"`
	Passes   []string  `json:"passes"`
	Triggers []Trigger `json:"triggers,omitempty"`
}

// The runner's defaults.
const (
	// DefaultPendingEvery is how often a bank with pending facts is
	// consolidated: 30 s (seed 000, "A background loop runs every 30
	// seconds, processing unconsolidated facts"). It is also how often
	// the runner looks at the banks.
	DefaultPendingEvery = 30 * time.Second
	// DefaultIdle is how long a bank goes without a retain before the
	// idle trigger runs a full consolidation: 5 minutes (seed 001,
	// "after 5 minutes of idle time").
	DefaultIdle = 5 * time.Minute
	// DefaultDailyAt is the time of day, after local midnight, of the
	// daily full run: 03:00 (seed 004, "Every night at 3 AM").
	DefaultDailyAt = 3 * time.Hour
)

// Trigger names why a run is due.
type Trigger string

// The triggers.
const (
	// TriggerPending: facts were retained since the pending passes last
	// ran successfully, and the pending interval has passed since they
	// last started.
	TriggerPending Trigger = "pending"
	// TriggerIdle: no retain for the idle time, and facts were retained
	// since the full run last ran successfully.
	TriggerIdle Trigger = "idle"
	// TriggerDaily: the daily hour has passed since the full run last
	// started.
	TriggerDaily Trigger = "daily"
)

// RunnerConfig holds the runner's triggers. For each duration 0 means its
// default and a negative value turns the trigger off (the project's
// zero-value rule).
type RunnerConfig struct {
	// PendingEvery is the pending trigger's interval (DefaultPendingEvery).
	PendingEvery time.Duration `json:"pending_every"`
	// Idle is the idle trigger's quiet time (DefaultIdle).
	Idle time.Duration `json:"idle"`
	// DailyAt is the daily run's time of day after midnight
	// (DefaultDailyAt); since 0 means the default, midnight is 24h.
	DailyAt time.Duration `json:"daily_at"`
	// Location is the time zone of DailyAt; nil means time.Local.
	Location *time.Location `json:"timezone"`
}

// WithDefaults returns c with its zero fields filled from the defaults.
// Negative durations stay: those triggers are off.
func (c RunnerConfig) WithDefaults() RunnerConfig {
	if c.PendingEvery == 0 {
		c.PendingEvery = DefaultPendingEvery
	}
	if c.Idle == 0 {
		c.Idle = DefaultIdle
	}
	if c.DailyAt == 0 {
		c.DailyAt = DefaultDailyAt
	}
	if c.Location == nil {
		c.Location = time.Local
	}
	return c
}

// Off reports whether every trigger of c is off: the runner then starts
// nothing.
func (c RunnerConfig) Off() bool {
	return c.PendingEvery < 0 && c.Idle < 0 && c.DailyAt < 0
}

// Tick is how often the runner looks at the banks: the pending interval,
// or DefaultPendingEvery when that trigger is off.
func (c RunnerConfig) Tick() time.Duration {
	c = c.WithDefaults()
	if c.PendingEvery > 0 {
		return c.PendingEvery
	}
	return DefaultPendingEvery
}

// PassRun is when a pass of a bank last started, and last started a run
// that ended ok.
type PassRun struct {
	Started time.Time // the latest run, whatever its end; zero: never
	OK      time.Time // the latest run that ended ok or skipped; zero: never
}

// BankState is what the runner knows of one bank when it decides.
type BankState struct {
	// LastRetain is when the bank's newest fact was created; zero when it
	// has none.
	LastRetain time.Time
	// Passes holds, per pass name, its latest runs.
	Passes map[string]PassRun
	// Busy is true when a consolidation job of the bank is queued or
	// running: nothing else is due until it ends.
	Busy bool
	// Full and Pending are the bank's passes that the full run and the
	// pending trigger take, in [Order] ([Enabled]); nil means [Order] and
	// [PendingPasses]. A pass left out is neither run nor waited for.
	Full, Pending []string
}

func (s BankState) full() []string {
	if s.Full == nil {
		return Order
	}
	return s.Full
}

func (s BankState) pending() []string {
	if s.Pending == nil {
		return PendingPasses
	}
	return s.Pending
}

// Enabled returns the passes a bank's runs take under d, in [Order]:
// every pass but those that need an LLM when hasLLM is false (they would
// only record "skipped" every time) and those d turns off ([Defaults.Off]);
// and of them, those of [PendingPasses].
func Enabled(d Defaults, hasLLM bool) (full, pending []string) {
	full = []string{}
	for _, p := range Order {
		if (NeedsLLM(p) && !hasLLM) || d.Off(p) {
			continue
		}
		full = append(full, p)
	}
	pending = []string{}
	for _, p := range full {
		if slices.Contains(PendingPasses, p) {
			pending = append(pending, p)
		}
	}
	return full, pending
}

// okSince is the earliest of the latest ok runs of passes: facts created
// after it have not been through all of them. Zero if one never ran ok.
func (s BankState) okSince(passes []string) time.Time {
	var t time.Time
	for i, p := range passes {
		ok := s.Passes[p].OK
		if ok.IsZero() {
			return time.Time{}
		}
		if i == 0 || ok.Before(t) {
			t = ok
		}
	}
	return t
}

// startedSince is the earliest of the latest starts of passes; zero if
// one never started.
func (s BankState) startedSince(passes []string) time.Time {
	var t time.Time
	for i, p := range passes {
		st := s.Passes[p].Started
		if st.IsZero() {
			return time.Time{}
		}
		if i == 0 || st.Before(t) {
			t = st
		}
	}
	return t
}

// Due returns the triggers due for a bank in state s at now under cfg
// (its zero fields meaning the defaults), in the order pending, idle,
// daily; none when the bank is busy.
//
//   - pending: a fact was created after the earliest latest ok run of
//     [PendingPasses], and PendingEvery has passed since their earliest
//     latest start (a failing pass is retried at that pace, not at once);
//   - idle: the newest fact is at least Idle old and was created after the
//     earliest latest ok run of [Order] (one full run per quiet spell);
//   - daily: the latest DailyAt (in Location, on or before now) is after
//     the earliest latest start of [Order] (a daily run missed while
//     nothing ran is caught up at the next look).
func Due(s BankState, now time.Time, cfg RunnerConfig) []Trigger {
	if s.Busy {
		return nil
	}
	cfg = cfg.WithDefaults()
	var due []Trigger
	if cfg.PendingEvery > 0 && !s.LastRetain.IsZero() && s.LastRetain.After(s.okSince(s.pending())) {
		if st := s.startedSince(s.pending()); st.IsZero() || !now.Before(st.Add(cfg.PendingEvery)) {
			due = append(due, TriggerPending)
		}
	}
	if cfg.Idle > 0 && !s.LastRetain.IsZero() && !now.Before(s.LastRetain.Add(cfg.Idle)) && s.LastRetain.After(s.okSince(s.full())) {
		due = append(due, TriggerIdle)
	}
	if cfg.DailyAt > 0 && LastDaily(now, cfg.DailyAt, cfg.Location).After(s.startedSince(s.full())) {
		due = append(due, TriggerDaily)
	}
	return due
}

// LastDaily is the latest instant on or before now that is at on the
// clock of loc: today's if now is past it, else yesterday's. at is a
// time of day after midnight, taken modulo 24 h (24h is midnight).
func LastDaily(now time.Time, at time.Duration, loc *time.Location) time.Time {
	if loc == nil {
		loc = time.Local
	}
	at %= 24 * time.Hour
	local := now.In(loc)
	h, m := int(at/time.Hour), int(at%time.Hour/time.Minute)
	sec := int(at % time.Minute / time.Second)
	t := time.Date(local.Year(), local.Month(), local.Day(), h, m, sec, int(at%time.Second), loc)
	if t.After(now) {
		t = time.Date(local.Year(), local.Month(), local.Day()-1, h, m, sec, int(at%time.Second), loc)
	}
	return t
}

// PassesFor returns the passes the triggers run in a bank of state s, each
// once, in [Order]: pending runs the bank's pending passes, idle and
// daily its full run.
func (s BankState) PassesFor(triggers []Trigger) []string {
	want := map[string]bool{}
	for _, t := range triggers {
		switch t {
		case TriggerPending:
			for _, p := range s.pending() {
				want[p] = true
			}
		case TriggerIdle, TriggerDaily:
			for _, p := range s.full() {
				want[p] = true
			}
		}
	}
	var out []string
	for _, p := range Order {
		if want[p] {
			out = append(out, p)
		}
	}
	return out
}
