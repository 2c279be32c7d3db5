package memory_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

func TestValidateBankName(t *testing.T) {
	for _, tt := range []struct {
		name string
		ok   bool
	}{
		{"default", true}, {"conv-26", true}, {"a.b:c_d-e", true}, {"A1", true},
		{"", false}, {"-lead", false}, {"has space", false}, {"slash/no", false},
		{string(make([]byte, 129)), false}, {"é", false},
	} {
		err := memory.ValidateBankName(tt.name)
		if got := err == nil; got != tt.ok {
			t.Errorf("ValidateBankName(%q) = %v, want ok %v", tt.name, err, tt.ok)
		}
		if err != nil && memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("ValidateBankName(%q) code %q, want %q", tt.name, memory.ErrorCode(err), memory.EINVALID)
		}
	}
}

func TestNormalizeName(t *testing.T) {
	for in, want := range map[string]string{
		"Caroline":         "caroline",
		"  New   York  ":   "new york",
		"Mel's":            "mels",
		"Mel’s":            "mels",
		"Dr. Jane-Doe":     "dr jane doe",
		"LGBTQ+":           "lgbtq",
		"!!!":              "",
		"São Paulo":        "são paulo",
		"Northwind\tLabs!": "northwind labs",
	} {
		if got := memory.NormalizeName(in); got != want {
			t.Errorf("NormalizeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEntityID(t *testing.T) {
	a := memory.EntityID("Caroline")
	if b := memory.EntityID("  caroline! "); a != b {
		t.Errorf("same normalised name, different ids: %s %s", a, b)
	}
	if d := memory.EntityID("Melanie"); a == d {
		t.Errorf("two names share id %s", a)
	}
}

func TestErrorCode(t *testing.T) {
	inner := memory.Errorf(memory.ENOTFOUND, "unknown bank %q", "x")
	wrapped := fmt.Errorf("recall: %w", inner)
	for _, tt := range []struct {
		err       error
		code, msg string
	}{
		{nil, "", ""},
		{inner, memory.ENOTFOUND, `unknown bank "x"`},
		{wrapped, memory.ENOTFOUND, `unknown bank "x"`},
		{errors.New("disk on fire"), memory.EINTERNAL, "internal error"},
	} {
		if got := memory.ErrorCode(tt.err); got != tt.code {
			t.Errorf("ErrorCode(%v) = %q, want %q", tt.err, got, tt.code)
		}
		if got := memory.ErrorMessage(tt.err); got != tt.msg {
			t.Errorf("ErrorMessage(%v) = %q, want %q", tt.err, got, tt.msg)
		}
	}
}

func TestFact_EventTime(t *testing.T) {
	occ := time.Date(2023, 5, 6, 0, 0, 0, 0, time.UTC)
	ment := occ.Add(48 * time.Hour)
	created := ment.Add(time.Hour)
	for _, tt := range []struct {
		f    memory.Fact
		want time.Time
	}{
		{memory.Fact{OccurredStart: occ, MentionedAt: ment, CreatedAt: created}, occ},
		{memory.Fact{MentionedAt: ment, CreatedAt: created}, ment},
		{memory.Fact{CreatedAt: created}, created},
		{memory.Fact{}, time.Time{}},
	} {
		if got := tt.f.EventTime(); !got.Equal(tt.want) {
			t.Errorf("EventTime() = %v, want %v", got, tt.want)
		}
	}
}

func TestChunkID(t *testing.T) {
	if got, want := memory.ChunkID("bank", "doc_1", 3), "bank_doc_1_3"; got != want {
		t.Errorf("ChunkID = %q, want %q", got, want)
	}
}
