package id

import (
	"strings"
	"testing"
	"time"
)

func TestDerive(t *testing.T) {
	t0 := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	a := Derive("f", t0, "doc", "0")
	if b := Derive("f", t0, "doc", "0"); a != b {
		t.Errorf("not deterministic: %s %s", a, b)
	}
	if !strings.HasPrefix(a, "f_") || len(a) != len("f_")+26 {
		t.Errorf("shape: %q", a)
	}
	for _, other := range []string{Derive("f", t0, "doc", "1"), Derive("f", t0, "do", "c0"), Derive("g", t0, "doc", "0")} {
		if other == a {
			t.Errorf("different parts give the same id %s", a)
		}
	}
	// Later times sort later, whatever the parts.
	prev := Derive("f", t0, "zzz")
	for i := 1; i < 100; i++ {
		next := Derive("f", t0.Add(time.Duration(i)*time.Millisecond), "aaa", string(rune('a'+i%26)))
		if next <= prev {
			t.Fatalf("id %s at +%dms does not sort after %s", next, i, prev)
		}
		prev = next
	}
}
