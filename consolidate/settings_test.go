package consolidate

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

func TestApply(t *testing.T) {
	d, r, err := Apply(map[string]string{
		"salience_half_life": "45d",
		"importance_floor":   "0.5",
		"l1_min_episodes":    "4",
		"evergreen_types":    "person, habit",
		"daily_at":           "04:30",
		"idle":               "off",
		"pending_every":      "2m",
		"timezone":           "Europe/Paris",
	}, NewDefaults(), RunnerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	want := NewDefaults()
	want.SalienceHalfLife = 45 * Day
	want.ImportanceFloor = 0.5
	want.L1MinEpisodes = 4
	want.EvergreenTypes = []memory.EntityType{memory.EntityPerson, memory.EntityHabit}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("defaults:\ngot  %+v\nwant %+v", d, want)
	}
	if r.DailyAt != 4*time.Hour+30*time.Minute || r.Idle >= 0 || r.PendingEvery != 2*time.Minute || r.Location.String() != "Europe/Paris" {
		t.Errorf("runner: got %+v", r)
	}
	if got := r.WithDefaults(); got.Idle >= 0 {
		t.Errorf("idle off must stay off after WithDefaults, got %v", got.Idle)
	}
	// Midnight is 24h: 0 would read as "the default".
	if _, r, _ := Apply(map[string]string{"daily_at": "00:00"}, NewDefaults(), RunnerConfig{}); r.DailyAt != 24*time.Hour {
		t.Errorf("daily_at 00:00 = %v, want 24h", r.DailyAt)
	}
}

func TestApply_Invalid(t *testing.T) {
	for name, over := range map[string]map[string]string{
		"unknown knob":      {"salience_halflife": "30d"},
		"bad duration":      {"salience_half_life": "soon"},
		"negative duration": {"salience_half_life": "-3h"},
		"half-life off":     {"salience_half_life": "off"},
		"NaN":               {"importance_floor": "NaN"},
		"not an int":        {"l1_min_episodes": "3.5"},
		"bad switch":        {"pending_every": "maybe"},
		"bad time of day":   {"daily_at": "25:00"},
		"bad zone":          {"timezone": "Mars/Olympus"},
		"batch too large":   {"batch_size": "100000"},
	} {
		if _, _, err := Apply(over, NewDefaults(), RunnerConfig{}); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("%s: got %v, want EINVALID", name, err)
		}
	}
}

// TestKnobs_RoundTrip: every knob Knobs lists, given back as an override,
// changes nothing; so every knob is spelled as Apply reads it.
func TestKnobs_RoundTrip(t *testing.T) {
	d, r := NewDefaults(), RunnerConfig{}.WithDefaults()
	r.Location = time.UTC
	knobs := Knobs(d, r)
	over := map[string]string{}
	for _, k := range knobs {
		over[k.Name] = k.Value
	}
	for _, name := range []string{"recency_half_life", "salience_half_life", "daily_at", "pending_every", "timezone", "l2_types"} {
		if _, ok := over[name]; !ok {
			t.Errorf("Knobs lacks %s", name)
		}
	}
	if over["salience_half_life"] != "30d" || over["daily_at"] != "3h0m0s" || over["l2_types"] != "person,place,relationship,habit,emotion" {
		t.Errorf("spelling: salience_half_life=%s daily_at=%s l2_types=%s", over["salience_half_life"], over["daily_at"], over["l2_types"])
	}
	d2, r2, err := Apply(over, d, r)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d2, d) || !reflect.DeepEqual(r2, r) {
		t.Errorf("round trip changed the settings:\n%+v\n%+v", d2, r2)
	}
	if !slices.IsSortedFunc(knobs, func(a, b Knob) int { return compareStrings(a.Name, b.Name) }) {
		t.Error("knobs are not sorted by name")
	}
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestEnabled(t *testing.T) {
	full, pending := Enabled(NewDefaults(), false)
	for _, p := range full {
		if NeedsLLM(p) {
			t.Errorf("offline full run takes %s, which needs an LLM", p)
		}
	}
	if !slices.Contains(full, PassLifecycle) || !slices.Contains(pending, PassMerge) {
		t.Errorf("offline: full %v pending %v", full, pending)
	}
	withLLM, _ := Enabled(NewDefaults(), true)
	for _, p := range Order {
		if !slices.Contains(withLLM, p) && !NewDefaults().Off(p) {
			t.Errorf("with an LLM the full run lacks %s", p)
		}
	}
}
