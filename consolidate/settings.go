package consolidate

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// A bank overrides any consolidation number or trigger by name: its
// settings hold a map from a knob's name to its value as text
// (memory.BankSettings.Consolidation), and [Apply] lays it over the
// defaults. The knobs are the json-tagged fields of [Defaults] (and of
// its per-pass structs) and of [RunnerConfig]; [Knobs] lists them with
// their values. Values are text so that one spelling serves the CLI
// (`--set salience_half_life=45d`), the HTTP API and the stored JSON:
//
//	durations  "72h", "90m", "30d" (days), "1.5d"; "off" turns a
//	           trigger off; a time of day ("03:00") for daily_at
//	numbers    "0.85", "3"
//	switches   "true"/"false", "on"/"off"
//	lists      "person,place,relationship"
//	timezone   an IANA name, "Europe/Paris" ("Local", "UTC")

// Knob is one overridable number or trigger and its value.
type Knob struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Kind is how its value is spelled: duration, number, integer,
	// switch, list or timezone.
	Kind string `json:"kind"`
	// Overridden is true when the bank sets the knob; Knobs leaves it
	// false (it sees values, not where they came from).
	Overridden bool `json:"overridden"`
}

// MaxOverrides bounds how many knobs one bank may set.
const MaxOverrides = 100

// Apply returns d and r with over applied (see the package's knob
// spelling). An unknown knob or a value that does not parse is EINVALID
// naming it; so is a result [Defaults.Validate] refuses. d and r are not
// changed.
func Apply(over map[string]string, d Defaults, r RunnerConfig) (Defaults, RunnerConfig, error) {
	if len(over) > MaxOverrides {
		return d, r, memory.Errorf(memory.EINVALID, "consolidation: %d overrides, at most %d", len(over), MaxOverrides)
	}
	fields := map[string]reflect.Value{}
	collect(reflect.ValueOf(&d).Elem(), fields)
	collect(reflect.ValueOf(&r).Elem(), fields)
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range over {
			if !yield(k) {
				return
			}
		}
	})
	for _, name := range names {
		f, ok := fields[name]
		if !ok {
			return d, r, memory.Errorf(memory.EINVALID, "consolidation: unknown setting %q (want one of: %s)", name, strings.Join(slices.Sorted(mapKeys(fields)), ", "))
		}
		if err := set(f, strings.TrimSpace(over[name])); err != nil {
			return d, r, memory.Errorf(memory.EINVALID, "consolidation: %s=%q: %v", name, over[name], err)
		}
	}
	if err := d.Validate(); err != nil {
		return d, r, err
	}
	if r.DailyAt > 24*time.Hour {
		return d, r, memory.Errorf(memory.EINVALID, "consolidation: daily_at %s: want a time of day", r.DailyAt)
	}
	return d, r, nil
}

// Knobs lists every knob with its value in d and r, by name.
func Knobs(d Defaults, r RunnerConfig) []Knob {
	fields := map[string]reflect.Value{}
	collect(reflect.ValueOf(&d).Elem(), fields)
	collect(reflect.ValueOf(&r).Elem(), fields)
	var out []Knob
	for _, name := range slices.Sorted(mapKeys(fields)) {
		v, kind := format(fields[name])
		out = append(out, Knob{Name: name, Value: v, Kind: kind})
	}
	return out
}

func mapKeys(m map[string]reflect.Value) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	locationType = reflect.TypeFor[*time.Location]()
	timeType     = reflect.TypeFor[time.Time]()
)

// collect adds the knobs of struct v to fields: each field with a json
// name, and the knobs of each untagged struct field (a pass's numbers).
func collect(v reflect.Value, fields map[string]reflect.Value) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			if sf.Type.Kind() == reflect.Struct && sf.Type != timeType {
				collect(v.Field(i), fields)
			}
			continue
		}
		fields[name] = v.Field(i)
	}
}

// set parses s into f by f's type.
func set(f reflect.Value, s string) error {
	switch {
	case f.Type() == durationType:
		d, err := ParseDuration(s)
		if err != nil {
			return err
		}
		f.SetInt(int64(d))
	case f.Type() == locationType:
		loc, err := time.LoadLocation(s)
		if err != nil {
			return fmt.Errorf("unknown time zone")
		}
		f.Set(reflect.ValueOf(loc))
	case f.Kind() == reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("want a number")
		}
		f.SetFloat(x)
	case f.Kind() == reflect.Int:
		n, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("want an integer")
		}
		f.SetInt(int64(n))
	case f.Kind() == reflect.Bool:
		switch strings.ToLower(s) {
		case "true", "on", "yes", "1":
			f.SetBool(true)
		case "false", "off", "no", "0":
			f.SetBool(false)
		default:
			return fmt.Errorf("want on or off")
		}
	case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
		var parts []string
		for p := range strings.SplitSeq(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				parts = append(parts, p)
			}
		}
		out := reflect.MakeSlice(f.Type(), len(parts), len(parts))
		for i, p := range parts {
			out.Index(i).SetString(p)
		}
		f.Set(out)
	default:
		return fmt.Errorf("cannot be set (%s)", f.Type())
	}
	return nil
}

// format spells f's value as set parses it, and names its kind.
func format(f reflect.Value) (string, string) {
	switch {
	case f.Type() == durationType:
		return FormatDuration(time.Duration(f.Int())), "duration"
	case f.Type() == locationType:
		if f.IsNil() {
			return "Local", "timezone"
		}
		return f.Interface().(*time.Location).String(), "timezone"
	case f.Kind() == reflect.Float64:
		return strconv.FormatFloat(f.Float(), 'g', -1, 64), "number"
	case f.Kind() == reflect.Int:
		return strconv.FormatInt(f.Int(), 10), "integer"
	case f.Kind() == reflect.Bool:
		if f.Bool() {
			return "on", "switch"
		}
		return "off", "switch"
	case f.Kind() == reflect.Slice:
		parts := make([]string, f.Len())
		for i := range parts {
			parts[i] = f.Index(i).String()
		}
		return strings.Join(parts, ","), "list"
	}
	return fmt.Sprint(f.Interface()), f.Kind().String()
}

// ParseDuration reads a knob's duration: Go's spelling ("72h", "90m"),
// days ("30d", "1.5d"), a time of day ("03:00", "03:00:30") counted from
// midnight, or "off" (-1 ns: a trigger turned off; a pass's number
// refuses it in [Defaults.Validate]).
func ParseDuration(s string) (time.Duration, error) {
	switch {
	case s == "off":
		return -1, nil
	case strings.HasSuffix(s, "d"):
		x, err := strconv.ParseFloat(strings.TrimSuffix(s, "d"), 64)
		if err != nil || x < 0 || x > 100000 {
			return 0, fmt.Errorf("want a duration such as 72h or 30d")
		}
		return time.Duration(x * float64(Day)), nil
	case strings.Contains(s, ":"):
		layout := "15:04"
		if strings.Count(s, ":") == 2 {
			layout = "15:04:05"
		}
		t, err := time.Parse(layout, s)
		if err != nil {
			return 0, fmt.Errorf("want a time of day such as 03:00")
		}
		d := time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute + time.Duration(t.Second())*time.Second
		if d == 0 {
			d = 24 * time.Hour // midnight: 0 would mean the default
		}
		return d, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want a duration such as 72h or 30d")
	}
	return d, nil
}

// FormatDuration spells d as ParseDuration reads it: whole days as "30d",
// a negative value as "off", else Go's spelling.
func FormatDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "off"
	case d > 0 && d%Day == 0:
		return strconv.FormatInt(int64(d/Day), 10) + "d"
	}
	return d.String()
}
