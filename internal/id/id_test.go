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

func TestNth(t *testing.T) {
	t0 := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	a := Nth("f", t0, 7, "doc")
	if b := Nth("f", t0, 7, "doc"); a != b {
		t.Errorf("not deterministic: %s %s", a, b)
	}
	if !strings.HasPrefix(a, "f_") || len(a) != len("f_")+26 {
		t.Errorf("shape: %q", a)
	}
	for _, other := range []string{Nth("f", t0, 8, "doc"), Nth("f", t0, 7, "do", "c"), Nth("g", t0, 7, "doc"), Derive("f", t0, "doc", "7")} {
		if other == a {
			t.Errorf("different parts give the same id %s", a)
		}
	}
	// One sequence's ids sort by their number, past a byte's and a base32
	// character's boundaries, and share their first 96 bits.
	prev := Nth("f", t0, 0, "doc")
	for _, n := range []uint32{1, 2, 31, 32, 255, 256, 1 << 20, 1<<32 - 1} {
		next := Nth("f", t0, n, "doc")
		if next <= prev {
			t.Fatalf("number %d: %s does not sort after %s", n, next, prev)
		}
		if next[:2+19] != prev[:2+19] {
			t.Errorf("number %d: %s and %s differ before the number", n, next, prev)
		}
		prev = next
	}
	// Later times sort later, whatever the parts and the number.
	if b := Nth("f", t0.Add(time.Millisecond), 0, "aaa"); b <= Nth("f", t0, 1<<32-1, "zzz") {
		t.Errorf("a later time sorts first: %s", b)
	}
}
