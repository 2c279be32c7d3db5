package consolidate

import (
	"slices"
	"testing"
	"time"
)

var utc = RunnerConfig{Location: time.UTC}

// ran is a state where every pass of Order last started, and ended ok,
// at t.
func ran(t time.Time) map[string]PassRun {
	m := map[string]PassRun{}
	for _, p := range Order {
		m[p] = PassRun{Started: t, OK: t}
	}
	return m
}

// with returns m with pass's runs set to r.
func with(m map[string]PassRun, pass string, r PassRun) map[string]PassRun {
	m[pass] = r
	return m
}

func TestDue_Pending(t *testing.T) {
	// 10:00 is past the daily 03:00 and the full run started at 09:00, so
	// only the pending and idle triggers are at stake.
	t0 := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	cfg := utc
	cfg.Idle = -1
	for _, tc := range []struct {
		name string
		s    BankState
		now  time.Time
		want []Trigger
	}{
		{"NoFacts", BankState{Passes: ran(t0)}, t0.Add(time.Hour), nil},
		{"NothingNew", BankState{LastRetain: t0.Add(-time.Second), Passes: ran(t0)}, t0.Add(time.Hour), nil},
		{"NeverRan", BankState{LastRetain: t0}, t0, []Trigger{TriggerPending, TriggerDaily}},
		// A fact at t0+1s; the merge started at t0: due once the 30 s
		// interval since t0 is over (t0+30s), not a moment before.
		{"BeforeInterval", BankState{LastRetain: t0.Add(time.Second), Passes: ran(t0)}, t0.Add(DefaultPendingEvery - time.Nanosecond), nil},
		{"AfterInterval", BankState{LastRetain: t0.Add(time.Second), Passes: ran(t0)}, t0.Add(DefaultPendingEvery), []Trigger{TriggerPending}},
		{"Busy", BankState{LastRetain: t0.Add(time.Second), Passes: ran(t0), Busy: true}, t0.Add(time.Hour), nil},
		{"FailedRunRetried", BankState{LastRetain: t0.Add(time.Second), Passes: with(ran(t0), PassMerge, PassRun{Started: t0.Add(2 * time.Second), OK: t0})},
			t0.Add(2*time.Second + DefaultPendingEvery), []Trigger{TriggerPending}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := tc.now
			if got := Due(tc.s, now, cfg); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("Off", func(t *testing.T) {
		cfg := cfg
		cfg.PendingEvery = -1
		if got := Due(BankState{LastRetain: t0.Add(time.Second), Passes: ran(t0)}, t0.Add(time.Hour), cfg); len(got) != 0 {
			t.Errorf("got %v, want none", got)
		}
	})
}

func TestDue_Idle(t *testing.T) {
	t0 := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	cfg := utc
	cfg.PendingEvery = -1
	last := t0.Add(time.Minute) // a retain after the full run of t0
	s := BankState{LastRetain: last, Passes: ran(t0)}
	if got := Due(s, last.Add(DefaultIdle-time.Second), cfg); len(got) != 0 {
		t.Errorf("4m59s idle: got %v, want none", got)
	}
	if got := Due(s, last.Add(DefaultIdle), cfg); !slices.Equal(got, []Trigger{TriggerIdle}) {
		t.Errorf("5m idle: got %v, want idle", got)
	}
	// Once the full run has run after the retain, the quiet spell is done.
	s.Passes = ran(last.Add(DefaultIdle))
	if got := Due(s, last.Add(time.Hour), cfg); len(got) != 0 {
		t.Errorf("after the idle run: got %v, want none", got)
	}
	cfg.Idle = 10 * time.Minute
	s.Passes = ran(t0)
	if got := Due(s, last.Add(DefaultIdle), cfg); len(got) != 0 {
		t.Errorf("idle 10m, 5m quiet: got %v, want none", got)
	}
}

func TestDue_Daily(t *testing.T) {
	cfg := RunnerConfig{PendingEvery: -1, Idle: -1, Location: time.UTC}
	day := func(d, h, m int) time.Time { return time.Date(2026, 3, d, h, m, 0, 0, time.UTC) }
	for _, tc := range []struct {
		name    string
		at      time.Duration
		last    time.Time // the full run's start
		now     time.Time
		wantDue bool
	}{
		{"BeforeHour", 0, day(1, 3, 0), day(2, 2, 59), false},
		{"AtHour", 0, day(1, 3, 0), day(2, 3, 0), true},
		{"RanToday", 0, day(2, 3, 0), day(2, 23, 0), false},
		// 23:00 daily: at 00:30 the day after, yesterday's 23:00 passed
		// since a run at 22:00: caught up across midnight.
		{"AcrossMidnight", 23 * time.Hour, day(1, 22, 0), day(2, 0, 30), true},
		{"AcrossMidnightRan", 23 * time.Hour, day(1, 23, 0), day(2, 0, 30), false},
		{"Midnight", 24 * time.Hour, day(1, 23, 0), day(2, 0, 0), true},
		{"NeverRan", 0, time.Time{}, day(2, 1, 0), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := cfg
			cfg.DailyAt = tc.at
			s := BankState{Passes: map[string]PassRun{}}
			if !tc.last.IsZero() {
				s.Passes = ran(tc.last)
			}
			got := Due(s, tc.now, cfg)
			if want := []Trigger(nil); tc.wantDue {
				want = []Trigger{TriggerDaily}
				if !slices.Equal(got, want) {
					t.Errorf("got %v, want %v", got, want)
				}
			} else if len(got) != 0 {
				t.Errorf("got %v, want none", got)
			}
		})
	}
	t.Run("Off", func(t *testing.T) {
		cfg := cfg
		cfg.DailyAt = -1
		if got := Due(BankState{}, day(2, 4, 0), cfg); len(got) != 0 {
			t.Errorf("got %v, want none", got)
		}
	})
}

func TestLastDaily(t *testing.T) {
	loc := time.FixedZone("IST", 5*3600+1800)
	// 2026-03-02 01:00 UTC is 06:30 IST: past 03:00 IST that day, which
	// is 2026-03-01 21:30 UTC.
	got := LastDaily(time.Date(2026, 3, 2, 1, 0, 0, 0, time.UTC), DefaultDailyAt, loc)
	if want := time.Date(2026, 3, 1, 21, 30, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestPasses(t *testing.T) {
	if got := (BankState{}).PassesFor([]Trigger{TriggerPending}); !slices.Equal(got, PendingPasses) {
		t.Errorf("pending: got %v, want %v", got, PendingPasses)
	}
	if got := (BankState{}).PassesFor([]Trigger{TriggerDaily, TriggerPending}); !slices.Equal(got, Order) {
		t.Errorf("daily+pending: got %v, want %v", got, Order)
	}
	if got := (BankState{}).PassesFor(nil); len(got) != 0 {
		t.Errorf("none: got %v", got)
	}
}
